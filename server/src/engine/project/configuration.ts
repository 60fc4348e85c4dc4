/**
 * The project's configuration of the linter, which the CLI, the language server and the MCP server
 * all read through `ProjectConfiguration.forFile`: `[tool.airflow-state-lint]` in `pyproject.toml`,
 * or the same keys at the top level of `airflow-state-lint.toml` / `.airflow-state-lint.toml`. As
 * ruff finds its configuration, the nearest folder from the checked file up that holds one of these
 * decides (`.airflow-state-lint.toml` before `airflow-state-lint.toml` before `pyproject.toml`; a
 * `pyproject.toml` counts only when it has the section); configurations are not merged.
 *
 * A file with a problem (not TOML, an unknown key, a value of the wrong type, an unknown rule code)
 * is not used at all: its problems are reported, each with the file, line and key, and the defaults
 * apply to the files it covers. Nothing here throws for bad input.
 */
import * as path from "node:path";
import { SEVERITY_SETTINGS, type SeveritySetting } from "../types";
import { AirflowVersionResolver } from "./airflowVersion";
import { diskProjectFiles, ProjectFiles } from "./files";
import { isUsableRevision } from "./git";
import { compileGlob, globMatches, GlobPattern } from "./glob";
import { AirflowPin, exactMention, specifierMention } from "./pin";
import { parseSpecifierSet, parseVersion } from "./pep440";
import { parseToml, TomlError, TomlTable, TomlValue } from "./toml";

/** Configuration files in the order they win within one folder. */
export const CONFIGURATION_FILE_NAMES = [".airflow-state-lint.toml", "airflow-state-lint.toml", "pyproject.toml"] as const;
const PYPROJECT_SECTION = ["tool", "airflow-state-lint"];

/** Which wins where the editor's settings (or the command line) and a configuration file both say something; `editorOnly` ignores the files. */
export type ConfigurationPreference = "editorFirst" | "filesystemFirst" | "editorOnly";
export const CONFIGURATION_PREFERENCES: readonly ConfigurationPreference[] = ["editorFirst", "filesystemFirst", "editorOnly"];

/** The severity settings, most severe first, as messages about a configuration file or the command line list them. */
export const SEVERITIES_MOST_SEVERE_FIRST: readonly SeveritySetting[] = [...SEVERITY_SETTINGS].reverse();

/** What a front end sets on top of the files: the editor's `airflowStateStore.rules`, or the command line's flags. */
export interface ConfigurationOverrides {
  /** Replaces the file's `select` (the command line's `--select`). */
  select?: readonly string[];
  /** Added to the selection (`--extend-select`). */
  extendSelect?: readonly string[];
  /** Added to the file's `ignore` (`--ignore`). */
  ignore?: readonly string[];
  /** Severity per rule code; which of these and the file's `severity` wins is `preference`. */
  severities?: Readonly<Record<string, SeveritySetting>>;
  /** Replaces the file's `exclude` (`--exclude`); patterns relative to `base`. */
  exclude?: readonly string[];
  /** Added to the exclusions (`--extend-exclude`); patterns relative to `base`. */
  extendExclude?: readonly string[];
  /** The folder `exclude` and `extendExclude` are relative to (the CLI's working folder); without it, the file's folder. */
  base?: string;
  /** Replaces the file's `baseline` (`--baseline`). */
  baseline?: string;
  /** Default `editorFirst`: the overrides win. */
  preference?: ConfigurationPreference;
}

/** A problem of a configuration file: where it is and what is wrong. */
export interface ConfigurationProblem {
  file: string;
  /** 1-based. */
  line: number;
  /** The key as written in the file (`tool.airflow-state-lint.select` in pyproject.toml), when one is at fault. */
  key?: string;
  message: string;
}

/** What applies to one file: pass `lint` to the linter, skip the file when `excluded`. */
export interface FileConfiguration {
  /** The configuration file that applies (absolute), also when it has problems and is not used. */
  configurationFile?: string;
  /** Left out by `exclude` / `extend-exclude` (or the overrides'). */
  excluded: boolean;
  /** Rule selection and severities, in the linter's terms (`LintOptions`). */
  lint: { select?: string[]; ignore: string[]; severities: Record<string, SeveritySetting> };
  /** The git revision AS301 compares with (`baseline`, default HEAD). */
  baseline: string;
  /** The Airflow pin for AS501/AS502: the file's `airflow-version`, else the one the project's files pin. */
  airflowPin?: AirflowPin;
  /** Why the project's pin could not be read (AS501 and AS502 then do not know it). */
  airflowPinError?: string;
  /** Problems of the configuration file that applies; when there are any, the file is not used. */
  problems: ConfigurationProblem[];
}

export interface ProjectConfigurationOptions {
  /** Every rule's code (`allRules.map((rule) => rule.code)`): the files' codes are checked against them. */
  ruleCodes: readonly string[];
  /** How files are read; the disk by default. */
  files?: ProjectFiles;
}

/** One configuration file's settings, checked. */
interface Settings {
  select?: string[];
  extendSelect: string[];
  ignore: string[];
  perFileIgnores: { glob: GlobPattern; codes: string[] }[];
  exclude?: GlobPattern[];
  extendExclude: GlobPattern[];
  severity: Record<string, SeveritySetting>;
  baseline?: string;
  airflowPin?: AirflowPin;
}

interface ConfigurationFile {
  path: string;
  folder: string;
  /** Undefined when the file has problems. */
  settings?: Settings;
  problems: ConfigurationProblem[];
}

/**
 * Finds and reads configuration files, each folder and file once (the owner drops what changed
 * with `invalidate`), and the Airflow pins of the projects they cover.
 */
export class ProjectConfiguration {
  private readonly files: ProjectFiles;
  private readonly ruleCodes: readonly string[];
  private readonly pins: AirflowVersionResolver;
  /** Folder -> the configuration file nearest to it (null: none up to the root). */
  private readonly nearest = new Map<string, ConfigurationFile | null>();
  private readonly globs = new Map<string, GlobPattern | undefined>();

  constructor(options: ProjectConfigurationOptions) {
    this.files = options.files ?? diskProjectFiles;
    this.ruleCodes = options.ruleCodes;
    this.pins = new AirflowVersionResolver(this.files);
  }

  /** Everything that applies to the file at `filePath` (absolute, or relative to the process's folder), given the front end's overrides. */
  forFile(filePath: string, overrides: ConfigurationOverrides = {}): FileConfiguration {
    const file = path.resolve(filePath);
    const preference = overrides.preference ?? "editorFirst";
    const found = preference === "editorOnly" ? undefined : this.nearestTo(path.dirname(file));
    const settings = found?.settings;
    const relative = found ? slashed(path.relative(found.folder, file)) : undefined;
    const overrideRelative = slashed(path.relative(overrides.base ?? path.dirname(file), file));

    const select = overrides.select ? [...overrides.select] : settings?.select;
    const selection = select ? [...select, ...(settings?.extendSelect ?? []), ...(overrides.extendSelect ?? [])] : undefined;
    const ignore = [...(settings?.ignore ?? []), ...(overrides.ignore ?? [])];
    for (const entry of settings?.perFileIgnores ?? []) if (globMatches(entry.glob, relative!)) ignore.push(...entry.codes);
    const severities = preference === "filesystemFirst" ? { ...overrides.severities, ...settings?.severity } : { ...settings?.severity, ...overrides.severities };

    const fileExcludes = overrides.exclude ? [] : [...(settings?.exclude ?? []), ...(settings?.extendExclude ?? [])];
    const overrideExcludes = [...(overrides.exclude ?? []), ...(overrides.extendExclude ?? [])].flatMap((pattern) => this.glob(pattern) ?? []);
    const excluded = fileExcludes.some((glob) => globMatches(glob, relative!)) || overrideExcludes.some((glob) => globMatches(glob, overrideRelative));

    const configuration: FileConfiguration = {
      configurationFile: found?.path,
      excluded,
      lint: { ...(selection ? { select: selection } : {}), ignore, severities },
      baseline: overrides.baseline ?? settings?.baseline ?? "HEAD",
      problems: found?.problems ?? [],
    };
    if (settings?.airflowPin) configuration.airflowPin = settings.airflowPin;
    else {
      try {
        configuration.airflowPin = this.pins.pinFor(file);
      } catch (error) {
        configuration.airflowPinError = error instanceof Error ? error.message : String(error);
      }
    }
    return configuration;
  }

  /**
   * Forgets what a created, changed or deleted file or folder could change: a configuration file
   * (or a folder, which may have held one) drops every configuration read, a project file the pins
   * it could affect. Returns whether anything was dropped.
   */
  invalidate(changed: string): boolean {
    const name = path.basename(changed);
    let dropped = this.pins.invalidate(changed);
    if (this.nearest.size > 0 && (isConfigurationFileName(name) || !path.extname(name))) {
      this.nearest.clear();
      dropped = true;
    }
    return dropped;
  }

  clear(): void {
    this.nearest.clear();
    this.pins.clear();
  }

  private nearestTo(folder: string): ConfigurationFile | undefined {
    const known = this.nearest.get(folder);
    if (known !== undefined) return known ?? undefined;
    const names = this.files.listDir(folder) ?? [];
    let found: ConfigurationFile | undefined;
    for (const name of CONFIGURATION_FILE_NAMES) {
      if (!names.includes(name)) continue;
      found = this.read(path.join(folder, name), name === "pyproject.toml");
      if (found) break;
    }
    const parent = path.dirname(folder);
    if (!found && parent !== folder) found = this.nearestTo(parent);
    this.nearest.set(folder, found ?? null);
    return found;
  }

  /** The configuration in a file; undefined for a `pyproject.toml` without the section. */
  private read(file: string, isPyproject: boolean): ConfigurationFile | undefined {
    const folder = path.dirname(file);
    const text = this.files.readFile(file);
    if (text === undefined) {
      return isPyproject ? undefined : { path: file, folder, problems: [{ file, line: 1, message: "the file cannot be read" }] };
    }
    let document: TomlTable;
    try {
      document = parseToml(text);
    } catch (error) {
      if (!(error instanceof TomlError)) throw error;
      // A pyproject.toml that is not TOML is the linter's business only when it means to configure it.
      if (isPyproject && !/^\s*\[\s*tool\s*\.\s*["']?airflow-state-lint\b/m.test(text)) return undefined;
      return { path: file, folder, problems: [{ file, line: error.line, message: `not valid TOML: ${error.reason}` }] };
    }
    let table: TomlValue | undefined = document;
    if (isPyproject) {
      for (const key of PYPROJECT_SECTION) table = table?.type === "table" ? table.entries.get(key) : undefined;
      if (table === undefined) return undefined;
    }
    const reader = new SettingsReader(file, isPyproject ? `${PYPROJECT_SECTION.join(".")}.` : "", this.ruleCodes);
    const settings = reader.settings(table);
    return { path: file, folder, settings: reader.problems.length === 0 ? settings : undefined, problems: reader.problems };
  }

  private glob(pattern: string): GlobPattern | undefined {
    if (!this.globs.has(pattern)) this.globs.set(pattern, compileGlob(pattern));
    return this.globs.get(pattern);
  }
}

/** Whether a file of this name can be a configuration file. */
export function isConfigurationFileName(name: string): boolean {
  return (CONFIGURATION_FILE_NAMES as readonly string[]).includes(name);
}

/** `pyproject.toml:3: tool.airflow-state-lint.select: "AS999" is not a rule code or prefix of one`, with the path as given. */
export function describeConfigurationProblem(problem: ConfigurationProblem, shownPath: string = problem.file): string {
  return `${shownPath}:${problem.line}: ${problem.key ? `${problem.key}: ` : ""}${problem.message}`;
}

/** What a front end says after a file's problems. */
export const UNUSED_CONFIGURATION = "the file is not used until this is fixed; the defaults apply to the files it covers";

const KEYS = ["select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude", "severity", "baseline", "airflow-version"];

/** Checks one configuration table, collecting a problem for each thing wrong with it. */
class SettingsReader {
  readonly problems: ConfigurationProblem[] = [];

  constructor(
    private readonly file: string,
    /** Prefix of the keys as the file writes them. */
    private readonly keyPrefix: string,
    private readonly ruleCodes: readonly string[],
  ) {}

  settings(table: TomlValue): Settings {
    const settings: Settings = { extendSelect: [], ignore: [], perFileIgnores: [], extendExclude: [], severity: {} };
    if (table.type !== "table") {
      this.problems.push({ file: this.file, line: table.line, key: this.keyPrefix.slice(0, -1), message: "must be a table of settings" });
      return settings;
    }
    for (const [key, value] of table.entries) {
      switch (key) {
        case "select":
          settings.select = this.codes(key, value);
          break;
        case "extend-select":
          settings.extendSelect = this.codes(key, value) ?? [];
          break;
        case "ignore":
          settings.ignore = this.codes(key, value) ?? [];
          break;
        case "per-file-ignores":
          settings.perFileIgnores = this.perFileIgnores(key, value);
          break;
        case "exclude":
          settings.exclude = this.globs(key, value);
          break;
        case "extend-exclude":
          settings.extendExclude = this.globs(key, value) ?? [];
          break;
        case "severity":
          settings.severity = this.severities(key, value);
          break;
        case "baseline":
          settings.baseline = this.baseline(key, value);
          break;
        case "airflow-version":
          settings.airflowPin = this.airflowVersion(key, value);
          break;
        default:
          this.problem(value.line, key, `unknown key; the keys are ${KEYS.join(", ")}`);
      }
    }
    return settings;
  }

  private strings(key: string, value: TomlValue, what: string): { value: string; line: number }[] | undefined {
    if (value.type !== "array" || value.items.some((item) => item.type !== "string")) {
      this.problem(value.line, key, `must be an array of strings (${what}), not ${shape(value)}`);
      return undefined;
    }
    return value.items.map((item) => ({ value: (item as { value: string }).value, line: item.line }));
  }

  /** Codes or ruff-style prefixes (`AS1`); each must name a rule, so a typo is not silently ignored. */
  private codes(key: string, value: TomlValue): string[] | undefined {
    const items = this.strings(key, value, 'rule codes or prefixes, e.g. ["AS1", "AS201"]');
    if (!items) return undefined;
    const codes: string[] = [];
    for (const item of items) {
      const code = item.value.trim().toUpperCase();
      if (/^AS\d{0,3}$/.test(code) && this.ruleCodes.some((known) => known.startsWith(code))) codes.push(code);
      else this.problem(item.line, key, `${JSON.stringify(item.value)} is not a rule code or prefix of one`);
    }
    return codes;
  }

  private globs(key: string, value: TomlValue): GlobPattern[] | undefined {
    const items = this.strings(key, value, 'glob patterns, e.g. ["dags/legacy/**"]');
    if (!items) return undefined;
    return items.flatMap((item) => this.glob(key, item.value, item.line) ?? []);
  }

  private glob(key: string, pattern: string, line: number): GlobPattern | undefined {
    const glob = compileGlob(pattern);
    if (!glob) this.problem(line, key, `${JSON.stringify(pattern)} is not a glob pattern (empty, or a bracket or brace does not close)`);
    return glob;
  }

  private perFileIgnores(key: string, value: TomlValue): Settings["perFileIgnores"] {
    if (value.type !== "table") {
      this.problem(value.line, key, `must be a table of glob patterns to rule codes, e.g. { "tests/**" = ["AS301"] }, not ${shape(value)}`);
      return [];
    }
    const entries: Settings["perFileIgnores"] = [];
    for (const [pattern, codes] of value.entries) {
      const glob = this.glob(`${key}.${JSON.stringify(pattern)}`, pattern, codes.line);
      const list = this.codes(`${key}.${JSON.stringify(pattern)}`, codes);
      if (glob && list) entries.push({ glob, codes: list });
    }
    return entries;
  }

  private severities(key: string, value: TomlValue): Record<string, SeveritySetting> {
    const severities: Record<string, SeveritySetting> = {};
    if (value.type !== "table") {
      this.problem(value.line, key, `must be a table of rule codes to severities, e.g. { AS101 = "warning" }, not ${shape(value)}`);
      return severities;
    }
    for (const [code, level] of value.entries) {
      const upper = code.trim().toUpperCase();
      const where = `${key}.${code}`;
      if (!this.ruleCodes.includes(upper)) this.problem(level.line, where, `${JSON.stringify(code)} is not a rule code`);
      else if (level.type !== "string" || !(SEVERITIES_MOST_SEVERE_FIRST as readonly string[]).includes(level.value)) {
        this.problem(level.line, where, `must be one of ${SEVERITIES_MOST_SEVERE_FIRST.map((s) => `"${s}"`).join(", ")}, not ${shape(level)}`);
      } else severities[upper] = level.value as SeveritySetting;
    }
    return severities;
  }

  private baseline(key: string, value: TomlValue): string | undefined {
    if (value.type === "string" && isUsableRevision(value.value)) return value.value;
    this.problem(value.line, key, `must be a git revision as a string, e.g. "HEAD" or "origin/main", not ${shape(value)}`);
    return undefined;
  }

  /** `"2.10.5"` (one version) or a PEP 440 specifier (`"<3.3"`, `">=2.8,<3.3"`). */
  private airflowVersion(key: string, value: TomlValue): AirflowPin | undefined {
    if (value.type === "string") {
      const source = { path: this.file, line: value.line };
      const written = value.value.trim();
      const mention = parseVersion(written) ? exactMention(written, source) : parseSpecifierSet(written) ? specifierMention(written, source) : undefined;
      if (mention?.pin) return mention.pin;
      if (mention) {
        this.problem(value.line, key, `${JSON.stringify(written)} does not cap the version, so it says nothing AS501 and AS502 could use; give a version ("2.10.5") or an upper bound ("<3.3")`);
        return undefined;
      }
    }
    this.problem(value.line, key, `must be an Airflow version or a PEP 440 specifier as a string, e.g. "2.10.5" or "<3.3", not ${shape(value)}`);
    return undefined;
  }

  private problem(line: number, key: string, message: string): void {
    this.problems.push({ file: this.file, line, key: `${this.keyPrefix}${key}`, message });
  }
}

/** A value as a message shows it: `"AS101"`, `3`, `an array`, `a table`. */
function shape(value: TomlValue): string {
  if (value.type === "string") return JSON.stringify(value.value);
  if (value.type === "other") return value.raw;
  return value.type === "array" ? "an array" : "a table";
}

function slashed(relative: string): string {
  return relative.split(path.sep).join("/");
}
