/** The whole command: arguments in, output written, exit status out. main.ts only wires it to the process. */
import { packageVersion } from "../docs/location";
import { GitBaselines } from "../engine/git";
import { AirflowVersionResolver, diskProjectFiles } from "../engine/project";
import { parseCliArgs, PROGRAM, USAGE, UsageError, CliOptions, Format } from "./args";
import { baselineNeed, checkFile, CheckSettings } from "./check";
import { findPythonFiles, mapConcurrently, missingPaths } from "./files";
import { buildReport, displayPath, exitStatus, RunReport } from "./findings";
import { formatJson } from "./json";
import { formatReview } from "./review";
import { formatSarif } from "./sarif";
import { formatText } from "./text";
import { cliWorkspace } from "./workspace";

/** Files read, linted and (for AS301) compared with git at once: enough to overlap I/O and git, few enough for large trees. */
const CONCURRENT_FILES = 8;

export interface Io {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
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
  const baselines = new GitBaselines({ onProblem: (message) => io.stderr(`${PROGRAM}: warning: ${message}\n`) });
  try {
    return await checkAll(options, io, baselines);
  } finally {
    baselines.dispose();
  }
}

async function checkAll(options: CliOptions, io: Io, baselines: GitBaselines): Promise<number> {
  const settings: CheckSettings = {
    lint: { severities: options.severities, select: options.select, ignore: options.ignore },
    fix: options.fix,
    baseline: options.baseline,
    baselines,
    workspace: cliWorkspace(io.cwd, options.paths),
    pins: new AirflowVersionResolver(diskProjectFiles),
    reviewTitle: options.format === "review" ? (file) => displayPath(file, io.cwd) : undefined,
  };
  const search = await findPythonFiles(options.paths, io.cwd);
  const needsBaseline = baselineNeed(settings);
  const outcomes = await mapConcurrently(search.files, CONCURRENT_FILES, (file) => checkFile(file, settings, needsBaseline));
  const report = buildReport(outcomes, search.problems, io.cwd, options.fix);

  for (const failure of report.failures) io.stderr(`${PROGRAM}: error: ${failure.path}: ${failure.message}\n`);
  io.stdout(FORMATTERS[options.format](report));
  return exitStatus(report, options.exitZero);
}
