/** The command line: parsing with node's `util.parseArgs`, validation, and the help text. */
import { parseArgs } from "node:util";
import { allRules, SeveritySetting } from "../engine";
import { compileGlob, SEVERITIES_MOST_SEVERE_FIRST } from "../engine/project";
import { isUsableRevision } from "../engine/project/git";

export const PROGRAM = "airflow-state-lint";

export const FORMATS = ["text", "json", "sarif", "github", "gitlab", "review"] as const;
export type Format = (typeof FORMATS)[number];


export const USAGE = `Usage: ${PROGRAM} [options] [paths...]
       ${PROGRAM} [options] --stdin-filename PATH -

Checks Python DAG files for misuse of Apache Airflow 3.3's state stores
(task_state_store, asset_state_store, ResumableJobMixin). Folders are searched
recursively for *.py files, skipping .git, node_modules, .venv, venv,
__pycache__ and hidden folders. The default path is the current folder.
Operator classes the checked files import from other modules of the same
tree are followed (module names start at the git top level, else the
current folder, at the paths given, and at each file's folder).

Each file is checked with the configuration nearest to it: the
[tool.airflow-state-lint] table of a pyproject.toml, or airflow-state-lint.toml
or .airflow-state-lint.toml (same keys at the top level). The options below
override it; a configuration file with a problem is reported and not used.

Options:
  --format FORMAT             output format: text (default), json, sarif,
                              github (workflow commands: annotations in
                              GitHub Actions), gitlab (Code Climate JSON for
                              GitLab's code quality report), or review (a
                              Markdown review of each file)
  --select CODES              check only these rules: comma-separated codes or
                              prefixes, e.g. AS1,AS201 (replaces the
                              configuration's select)
  --extend-select CODES       add these rules to the selection
  --ignore CODES              skip these rules (added to the configuration's)
  --rule-severity CODE=LEVEL  change a rule's severity: error, warning, info,
                              hint or off; comma-separated or repeated
  --exclude PATTERNS          files and folders not to check: comma-separated
                              globs relative to the current folder (replaces
                              the configuration's exclude); applies to paths
                              given on the command line too
  --extend-exclude PATTERNS   add these globs to the exclusions
  --isolated                  ignore every configuration file
  --fix                       apply the safe fixes, write the changed files
                              back and report what remains
  --unsafe-fixes              with --fix or --diff, apply the unsafe fixes too
  --diff                      write nothing: print what --fix would change as
                              a unified diff; exit 1 when anything would
  --show-fixes                with --fix, list what was fixed per file; else
                              show each finding's fix under it (text format)
  --statistics                print the count of each rule's findings instead
                              of the findings (text or json format)
  --stdin-filename PATH       with the path -, check the text on standard
                              input as the file PATH: reported under PATH, with
                              the configuration and Airflow pin found from it.
                              With --fix the fixed text goes to standard
                              output and the report to standard error
  --baseline REV              git revision that AS301 compares external_id_key
                              with (default: the configuration's, else HEAD)
  --exit-zero                 exit with 0 even when errors or warnings remain
  --no-cache                  neither read nor write the cache of findings
                              (.airflow_state_lint_cache/ in the current
                              folder; safe to delete)
  -h, --help                  show this help and exit
  -V, --version               show the version and exit

Findings are cached by file content, rule options, the Airflow pin, the git
baseline, the modules a file imports and the linter's build, so unchanged
files are not checked again; --fix, --diff and --format review do not use
the cache.

Exit status:
  0  no error or warning reported (info and hint do not count)
  1  at least one error or warning reported; with --diff, a file would change
  2  usage error, or a file could not be read, checked or written back
     (the other files are still checked and reported); a configuration file
     with a problem is a warning, not an error: the defaults apply instead
`;

export interface CliOptions {
  paths: string[];
  format: Format;
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  severities: Record<string, SeveritySetting>;
  exclude?: string[];
  extendExclude?: string[];
  /** `--isolated`: no configuration file is read. */
  isolated: boolean;
  fix: boolean;
  unsafeFixes: boolean;
  diff: boolean;
  showFixes: boolean;
  statistics: boolean;
  /** `--stdin-filename`: the text comes from standard input, reported as this path. */
  stdinFilename?: string;
  /** `--baseline`; without it, each file's configuration says (default HEAD). */
  baseline?: string;
  exitZero: boolean;
  cache: boolean;
  help: boolean;
  version: boolean;
}

/** A mistake in the command line: reported on stderr with exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function parseCliArgs(argv: readonly string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: "string" },
        select: { type: "string", multiple: true },
        "extend-select": { type: "string", multiple: true },
        ignore: { type: "string", multiple: true },
        "rule-severity": { type: "string", multiple: true },
        exclude: { type: "string", multiple: true },
        "extend-exclude": { type: "string", multiple: true },
        isolated: { type: "boolean" },
        fix: { type: "boolean" },
        "unsafe-fixes": { type: "boolean" },
        diff: { type: "boolean" },
        "show-fixes": { type: "boolean" },
        statistics: { type: "boolean" },
        "stdin-filename": { type: "string" },
        baseline: { type: "string" },
        "exit-zero": { type: "boolean" },
        "no-cache": { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    // parseArgs explains unknown options and missing values well; keep its words.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;

  const format = values.format ?? "text";
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}; got "${format}".`);
  }
  const baseline = values.baseline;
  if (baseline !== undefined && !isUsableRevision(baseline)) throw new UsageError(`--baseline needs a git revision, e.g. HEAD or main; got "${baseline}".`);
  const fix = values.fix ?? false;
  const diff = values.diff ?? false;
  const statistics = values.statistics ?? false;
  if (fix && diff) throw new UsageError("--diff shows what --fix would change without writing it; give one of them.");
  if (diff && (format !== "text" || statistics)) throw new UsageError("--diff prints a diff, not a report: it takes neither --format nor --statistics.");
  if (statistics && format !== "text" && format !== "json") throw new UsageError(`--statistics prints counts as text or json; got --format ${format}.`);
  const stdinFilename = values["stdin-filename"];
  const paths = positionals.length > 0 ? positionals : ["."];
  if (stdinFilename !== undefined) {
    if (stdinFilename === "" || stdinFilename === "-") throw new UsageError("--stdin-filename needs the path the text is checked as, e.g. --stdin-filename dags/orders.py.");
    if (positionals.length > 0 && (positionals.length !== 1 || positionals[0] !== "-")) throw new UsageError("--stdin-filename reads standard input: give - as the only path, or no path.");
  } else if (paths.includes("-")) {
    throw new UsageError("- reads standard input, which needs --stdin-filename PATH: the path the text is reported under and its configuration found from.");
  }

  return {
    paths: stdinFilename !== undefined ? ["-"] : paths,
    format: format as Format,
    select: values.select ? ruleSelectors(values.select, "--select") : undefined,
    extendSelect: values["extend-select"] ? ruleSelectors(values["extend-select"], "--extend-select") : undefined,
    ignore: values.ignore ? ruleSelectors(values.ignore, "--ignore") : undefined,
    severities: ruleSeverities(values["rule-severity"] ?? []),
    exclude: values.exclude ? globs(values.exclude, "--exclude") : undefined,
    extendExclude: values["extend-exclude"] ? globs(values["extend-exclude"], "--extend-exclude") : undefined,
    isolated: values.isolated ?? false,
    fix,
    unsafeFixes: values["unsafe-fixes"] ?? false,
    diff,
    showFixes: values["show-fixes"] ?? false,
    statistics,
    stdinFilename,
    baseline,
    exitZero: values["exit-zero"] ?? false,
    cache: !(values["no-cache"] ?? false),
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

function commaList(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(",")).map((item) => item.trim()).filter((item) => item !== "");
}

function knownCodes(): string {
  return allRules.map((r) => r.code).join(", ");
}

/** Codes or ruff-style prefixes (`AS1`, `AS201`); each must name at least one rule, so a typo is not silently ignored. */
function ruleSelectors(values: readonly string[], option: string): string[] {
  const selectors = commaList(values).map((item) => item.toUpperCase());
  if (selectors.length === 0) throw new UsageError(`${option} needs at least one rule code or prefix, e.g. ${option} AS1,AS201.`);
  for (const selector of selectors) {
    if (!/^AS\d{0,3}$/.test(selector) || !allRules.some((rule) => rule.code.startsWith(selector))) {
      throw new UsageError(`${option}: "${selector}" is not a rule code or prefix of one. Rules: ${knownCodes()}.`);
    }
  }
  return selectors;
}

/** Glob patterns, each of which must compile. */
function globs(values: readonly string[], option: string): string[] {
  const patterns = commaList(values);
  if (patterns.length === 0) throw new UsageError(`${option} needs at least one glob pattern, e.g. ${option} 'dags/legacy/**'.`);
  for (const pattern of patterns) {
    if (!compileGlob(pattern)) throw new UsageError(`${option}: "${pattern}" is not a glob pattern (a bracket or brace does not close).`);
  }
  return patterns;
}

/** `AS101=warning,AS102=off`: exact codes, as in the `airflowStateStore.rules` setting. */
function ruleSeverities(values: readonly string[]): Record<string, SeveritySetting> {
  const severities: Record<string, SeveritySetting> = {};
  for (const item of commaList(values)) {
    const match = /^([A-Za-z]+\d+)\s*=\s*([A-Za-z]+)$/.exec(item);
    if (!match) throw new UsageError(`--rule-severity takes CODE=LEVEL, e.g. AS101=warning; got "${item}".`);
    const code = match[1].toUpperCase();
    const level = match[2].toLowerCase() as SeveritySetting;
    if (!allRules.some((rule) => rule.code === code)) throw new UsageError(`--rule-severity: unknown rule ${code}. Rules: ${knownCodes()}.`);
    if (!SEVERITIES_MOST_SEVERE_FIRST.includes(level)) throw new UsageError(`--rule-severity: ${code}=${match[2]}: the level must be one of ${SEVERITIES_MOST_SEVERE_FIRST.join(", ")}.`);
    severities[code] = level;
  }
  return severities;
}
