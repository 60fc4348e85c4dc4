/** The command line: parsing with node's `util.parseArgs`, validation, and the help text. */
import { parseArgs } from "node:util";
import { allRules, SeveritySetting } from "../engine";
import { isUsableRevision } from "../engine/project/git";

export const PROGRAM = "airflow-state-lint";

export const FORMATS = ["text", "json", "sarif", "review"] as const;
export type Format = (typeof FORMATS)[number];

const SEVERITY_SETTINGS: readonly SeveritySetting[] = ["error", "warning", "info", "hint", "off"];

export const USAGE = `Usage: ${PROGRAM} [options] [paths...]

Checks Python DAG files for misuse of Apache Airflow 3.3's state stores
(task_state_store, asset_state_store, ResumableJobMixin). Folders are searched
recursively for *.py files, skipping .git, node_modules, .venv, venv,
__pycache__ and hidden folders. The default path is the current folder.
Operator classes the checked files import from other modules of the same
tree are followed (module names start at the git top level, else the
current folder, at the paths given, and at each file's folder).

Options:
  --format FORMAT             output format: text (default), json, sarif, or
                              review (a Markdown review of each file: findings
                              by category, why they matter, before/after code)
  --select CODES              check only these rules: comma-separated codes or
                              prefixes, e.g. AS1,AS201
  --ignore CODES              skip these rules (codes or prefixes)
  --rule-severity CODE=LEVEL  change a rule's severity: error, warning, info,
                              hint or off; comma-separated or repeated
  --fix                       apply the safe fixes, write the changed files
                              back and report what remains
  --baseline REV              git revision that AS301 compares external_id_key
                              with (default: HEAD)
  --exit-zero                 exit with 0 even when errors or warnings remain
  --no-cache                  neither read nor write the cache of findings
                              (.airflow_state_lint_cache/ in the current
                              folder; safe to delete)
  -h, --help                  show this help and exit
  -V, --version               show the version and exit

Findings are cached by file content, rule options, the Airflow pin, the git
baseline, the modules a file imports and the linter's build, so unchanged
files are not checked again; --fix and --format review do not use the cache.

Exit status:
  0  no error or warning reported (info and hint do not count)
  1  at least one error or warning reported
  2  usage error, or a file could not be read, checked or written back
     (the other files are still checked and reported)
`;

export interface CliOptions {
  paths: string[];
  format: Format;
  select?: string[];
  ignore?: string[];
  severities: Record<string, SeveritySetting>;
  fix: boolean;
  baseline: string;
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
        ignore: { type: "string", multiple: true },
        "rule-severity": { type: "string", multiple: true },
        fix: { type: "boolean" },
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
  const baseline = values.baseline ?? "HEAD";
  if (!isUsableRevision(baseline)) throw new UsageError(`--baseline needs a git revision, e.g. HEAD or main; got "${baseline}".`);

  return {
    paths: positionals.length > 0 ? positionals : ["."],
    format: format as Format,
    select: values.select ? ruleSelectors(values.select, "--select") : undefined,
    ignore: values.ignore ? ruleSelectors(values.ignore, "--ignore") : undefined,
    severities: ruleSeverities(values["rule-severity"] ?? []),
    fix: values.fix ?? false,
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

/** `AS101=warning,AS102=off`: exact codes, as in the `airflowStateStore.rules` setting. */
function ruleSeverities(values: readonly string[]): Record<string, SeveritySetting> {
  const severities: Record<string, SeveritySetting> = {};
  for (const item of commaList(values)) {
    const match = /^([A-Za-z]+\d+)\s*=\s*([A-Za-z]+)$/.exec(item);
    if (!match) throw new UsageError(`--rule-severity takes CODE=LEVEL, e.g. AS101=warning; got "${item}".`);
    const code = match[1].toUpperCase();
    const level = match[2].toLowerCase() as SeveritySetting;
    if (!allRules.some((rule) => rule.code === code)) throw new UsageError(`--rule-severity: unknown rule ${code}. Rules: ${knownCodes()}.`);
    if (!SEVERITY_SETTINGS.includes(level)) throw new UsageError(`--rule-severity: ${code}=${match[2]}: the level must be one of ${SEVERITY_SETTINGS.join(", ")}.`);
    severities[code] = level;
  }
  return severities;
}
