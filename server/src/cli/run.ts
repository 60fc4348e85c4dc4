/** The whole command: arguments in, output written, exit status out. main.ts only wires it to the process. */
import * as path from "node:path";
import { packageVersion } from "../docs/location";
import { ConfigurationProblem, describeConfigurationProblem, FileConfiguration, UNUSED_CONFIGURATION } from "../engine/project";
import { GitBaselines } from "../engine/project/git";
import { parseCliArgs, PROGRAM, USAGE, UsageError, CliOptions, Format } from "./args";
import { CACHE_FOLDER, engineIdentity } from "./cache";
import { checkFile, FileOutcome } from "./check";
import { findPythonFiles, mapConcurrently, missingPaths } from "./files";
import { buildReport, displayPath, exitStatus, RunReport } from "./findings";
import { formatGithub } from "./github";
import { formatGitlab } from "./gitlab";
import { checkJob, checkSettings, cliOverrides, projectConfiguration } from "./job";
import { formatJson } from "./json";
import { maxThreads, StreamingCheck } from "./parallel";
import { formatReview } from "./review";
import { formatSarif } from "./sarif";
import { formatStatistics } from "./statistics";
import { formatText } from "./text";

/** Files read, linted and (for AS301) compared with git at once: enough to overlap I/O and git, few enough for large trees. */
const CONCURRENT_FILES = 8;

export interface Io {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of standard input (`--stdin-filename`). */
  stdin?: () => Promise<string>;
  /**
   * The CLI's bundle, when it runs from one: worker threads run it, and its hash identifies the
   * engine's build in the cache. Without it, files are checked on the main thread, uncached.
   */
  bundle?: { script: string; forcedThreads?: number };
}

const FORMATTERS: Record<Format, (report: RunReport) => string> = {
  text: formatText,
  json: formatJson,
  sarif: formatSarif,
  github: formatGithub,
  gitlab: formatGitlab,
  review: formatReview,
};

export async function run(argv: readonly string[], io: Io): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${PROGRAM}: error: ${error.message}\nRun '${PROGRAM} --help' for usage.\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (options.version) {
    io.stdout(`${PROGRAM} ${packageVersion()}\n`);
    return 0;
  }
  if (options.stdinFilename === undefined) {
    const missing = await missingPaths(options.paths, io.cwd);
    if (missing.length > 0) {
      for (const given of missing) io.stderr(`${PROGRAM}: error: ${given}: no such file or folder\n`);
      return 2;
    }
  }

  // One git process per repository for the whole run; disposing it ends them.
  const baselines = new GitBaselines({ onProblem: warning(io) });
  try {
    return await checkAll(options, io, baselines);
  } finally {
    baselines.dispose();
  }
}

async function checkAll(options: CliOptions, io: Io, baselines: GitBaselines): Promise<number> {
  const bundle = io.bundle;
  const stdin = options.stdinFilename !== undefined;
  const cache = bundle && options.cache && !stdin ? { folder: path.join(io.cwd, CACHE_FOLDER), engine: engineIdentity(bundle.script) } : undefined;
  const job = checkJob(options, io.cwd, cache);
  const settings = checkSettings(job, baselines, warning(io));
  // The main thread's reader decides what is excluded and reports each configuration file's problems once.
  const configurations = projectConfiguration();
  const overrides = cliOverrides(options, io.cwd);
  const problems = new Map<string, ConfigurationProblem[]>();
  const configurationOf = (file: string): FileConfiguration => {
    const configuration = configurations.forFile(file, overrides);
    if (configuration.configurationFile && configuration.problems.length > 0) problems.set(configuration.configurationFile, configuration.problems);
    return configuration;
  };
  const included = (file: string): boolean => !configurationOf(file).excluded;

  let outcomes: FileOutcome[];
  let folderProblems: { path: string; message: string }[] = [];
  let stdinText = "";
  if (stdin) {
    const file = path.resolve(io.cwd, options.stdinFilename!);
    stdinText = io.stdin ? await io.stdin() : "";
    outcomes = included(file) ? [await checkFile(file, settings, stdinText)] : [];
  } else {
    const threads = bundle ? maxThreads(job, bundle.forcedThreads) : 1;
    const streaming =
      bundle && threads > 1
        ? new StreamingCheck(job, settings, { script: bundle.script, threads, forced: bundle.forcedThreads !== undefined, concurrentFiles: CONCURRENT_FILES, warn: warning(io) })
        : undefined;
    const search = await findPythonFiles(
      options.paths,
      io.cwd,
      streaming &&
        ((file) => {
          // The cache lookup uses the configuration read here instead of reading it again.
          const configuration = configurationOf(file);
          if (!configuration.excluded) streaming.add(file, configuration);
        }),
    );
    folderProblems = search.problems;
    outcomes = streaming ? await streaming.finish() : await mapConcurrently(search.files.filter(included), CONCURRENT_FILES, (file) => checkFile(file, settings));
    await settings.cache?.saveOutcomes(outcomes);
  }
  reportConfigurationProblems(problems, io);
  const report = buildReport(outcomes, folderProblems, io.cwd, { fixMode: options.fix, unsafeFixes: options.unsafeFixes, showFixes: options.showFixes });

  for (const failure of report.failures) io.stderr(`${PROGRAM}: error: ${failure.path}: ${failure.message}\n`);
  if (options.diff) return showDiffs(outcomes, report, io);
  const output = options.statistics ? formatStatistics(report, options.format === "json" ? "json" : "text") : FORMATTERS[options.format](report);
  if (stdin && options.fix) {
    // The fixed text is the output, as ruff gives it (unchanged when nothing was fixed); the report goes to standard error.
    io.stdout(outcomes[0]?.fixedText ?? stdinText);
    io.stderr(output);
  } else {
    io.stdout(output);
  }
  return exitStatus(report, options.exitZero);
}

/** `--diff`: the diffs on standard output, a summary on standard error; 1 when a file would change. */
function showDiffs(outcomes: readonly FileOutcome[], report: RunReport, io: Io): number {
  const changed = outcomes.filter((outcome) => outcome.diff).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const outcome of changed) io.stdout(outcome.diff!);
  const fixes = changed.reduce((sum, outcome) => sum + outcome.fixed, 0);
  io.stderr(changed.length > 0 ? `Would fix ${fixes} problem${fixes === 1 ? "" : "s"} in ${changed.length} file${changed.length === 1 ? "" : "s"}.\n` : "No fixes would be made.\n");
  if (report.failures.length > 0) return 2;
  return changed.length > 0 ? 1 : 0;
}

function reportConfigurationProblems(problems: ReadonlyMap<string, ConfigurationProblem[]>, io: Io): void {
  for (const [file, list] of problems) {
    for (const problem of list) io.stderr(`${PROGRAM}: warning: ${describeConfigurationProblem(problem, displayPath(problem.file, io.cwd))}\n`);
    io.stderr(`${PROGRAM}: warning: ${displayPath(file, io.cwd)}: ${UNUSED_CONFIGURATION}.\n`);
  }
}

function warning(io: Io): (message: string) => void {
  return (message) => io.stderr(`${PROGRAM}: warning: ${message}\n`);
}
