/** The whole command: arguments in, output written, exit status out. main.ts only wires it to the process. */
import * as path from "node:path";
import { packageVersion } from "../docs/location";
import { GitBaselines } from "../engine/project/git";
import { parseCliArgs, PROGRAM, USAGE, UsageError, CliOptions, Format } from "./args";
import { CACHE_FOLDER, engineIdentity } from "./cache";
import { baselineNeed, checkFile, FixPreview } from "./check";
import { findPythonFiles, mapConcurrently, missingPaths } from "./files";
import { buildReport, exitStatus, RunReport } from "./findings";
import { checkJob, checkSettings } from "./job";
import { formatJson } from "./json";
import { checkOnThreads, threadCount } from "./parallel";
import { formatReview } from "./review";
import { formatSarif } from "./sarif";
import { formatText } from "./text";

/** Files read, linted and (for AS301) compared with git at once: enough to overlap I/O and git, few enough for large trees. */
const CONCURRENT_FILES = 8;

export interface Io {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * The CLI's bundle, when it runs from one: worker threads run it, and its hash identifies the
   * engine's build in the cache. Without it, files are checked on the main thread, uncached.
   */
  bundle?: { script: string; forcedThreads?: number };
  /** With `--fix`: what would be written goes here and nothing is written (see `CheckSettings.previewFix`). */
  previewFix?: FixPreview;
}

const FORMATTERS: Record<Format, (report: RunReport) => string> = { text: formatText, json: formatJson, sarif: formatSarif, review: formatReview };

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
  const missing = await missingPaths(options.paths, io.cwd);
  if (missing.length > 0) {
    for (const given of missing) io.stderr(`${PROGRAM}: error: ${given}: no such file or folder\n`);
    return 2;
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
  const cache = bundle && options.cache ? { folder: path.join(io.cwd, CACHE_FOLDER), engine: engineIdentity(bundle.script) } : undefined;
  const job = checkJob(options, io.cwd, cache);
  const search = await findPythonFiles(options.paths, io.cwd);
  const threads = bundle ? threadCount(search.files.length, job, bundle.forcedThreads) : 1;
  const settings = { ...checkSettings(job, baselines, warning(io)), previewFix: io.previewFix };
  const needsBaseline = baselineNeed(settings);
  const outcomes =
    bundle && threads > 1
      ? await checkOnThreads(search.files, job, settings, needsBaseline, {
          script: bundle.script,
          threads,
          forced: bundle.forcedThreads !== undefined,
          concurrentFiles: CONCURRENT_FILES,
          warn: warning(io),
        })
      : await mapConcurrently(search.files, CONCURRENT_FILES, (file) => checkFile(file, settings, needsBaseline));
  const report = buildReport(outcomes, search.problems, io.cwd, options.fix);

  for (const failure of report.failures) io.stderr(`${PROGRAM}: error: ${failure.path}: ${failure.message}\n`);
  io.stdout(FORMATTERS[options.format](report));
  return exitStatus(report, options.exitZero);
}

function warning(io: Io): (message: string) => void {
  return (message) => io.stderr(`${PROGRAM}: warning: ${message}\n`);
}
