/**
 * Checks one file: read it, find its configuration (rule selection, severities, baseline revision
 * and Airflow pin, over which the command line's options win), fetch its git baseline when a rule
 * compares with one, lint it (or fix it and lint what remains), write it back when a fix changed it
 * (or, with `--diff`, show what would change). Failures become messages in the outcome, never exceptions, so one bad file does not
 * stop the others.
 */
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { Diagnostic, enabledRules, fixAll, FoundDiagnostic, lint, LintOptionsWithEdits, PythonDocument, reviewMarkdown, WorkspaceIndex } from "../engine";
import { GitBaselines } from "../engine/project/git";
import { isRelevantText } from "../engine/syntax/document";
import { AirflowPin, ConfigurationOverrides, FileConfiguration, ProjectConfiguration } from "../engine/project";
import { CacheKey, CacheRecord, fileStamp, LintCache } from "./cache";
import { unifiedDiff } from "./diff";
import { readSourceFileSync, writeSourceFile } from "./files";
import { hasStarImport } from "./workspace";

export interface CheckSettings {
  /** Each file's rule selection, severities, baseline revision and Airflow pin, from its configuration file and the overrides. */
  configuration: ProjectConfiguration;
  /** The command line's rule options, which win over the configuration files. */
  overrides: ConfigurationOverrides;
  /** What to do with the fixes: report them (`check`), write them back (`fix`), or show them as a diff (`diff`). */
  fixes: "check" | "fix" | "diff";
  /** Apply the unsafe fixes too. */
  unsafeFixes: boolean;
  /** Count the findings each fix removed, by code (`--show-fixes`). */
  countFixed: boolean;
  /** Reads the committed versions; without it, no file has a baseline. */
  baselines?: GitBaselines;
  /** Classes of the modules the checked files import. */
  workspace?: WorkspaceIndex;
  /** Findings of files checked before with the same inputs; never set with fixes or `reviewTitle`. */
  cache?: LintCache;
  /** Set for `--format review`: each file is also reviewed, under the title this gives its path. */
  reviewTitle?: (file: string) => string;
  /** How the report shows a path (a diff's header names it). */
  shownPath: (file: string) => string;
}

/** What the report shows of a finding: plain data, small enough to send between threads and to cache. */
export type ReportedDiagnostic = Pick<Diagnostic, "code" | "name" | "severity" | "message" | "range" | "related"> & {
  fix?: { title: string; safe: boolean };
  /** A hash of the code and the text of the finding's first line: what fingerprints are made of, so they survive edits elsewhere in the file. */
  lineHash: string;
};

export interface FileOutcome {
  /** Absolute path. */
  file: string;
  /** What is reported: everything found, or what remains after fixing. */
  diagnostics: ReportedDiagnostic[];
  /** Fixes applied and written back (with `--diff`: that would be). */
  fixed: number;
  /** Why the file could not be read, checked completely or written back. */
  errors: string[];
  /** The Markdown review of the file as it stands after any fixes (`--format review`). */
  review?: string;
  /** `--diff`: what fixing would change, as a unified diff; absent when nothing would. */
  diff?: string;
  /** Standard input fixed (`--stdin-filename` with `--fix`): the text to print instead of writing a file. */
  fixedText?: string;
  /** What the cache keeps of a file linted completely, besides its findings (the main thread saves it). */
  cacheRecord?: CacheRecord;
  /** `--show-fixes` while fixing: how many findings of each code the fixes removed. */
  fixedCodes?: Record<string, number>;
}

/** Whether a file's committed version could matter to a rule enabled for it, from the file's text: git is asked only for such files. */
function needsBaseline(lintSettings: FileConfiguration["lint"], text: string): boolean {
  return enabledRules(lintSettings).some((rule) => rule.inputs?.baseline?.(text) === true);
}

/** A file read and its inputs gathered, ready to lint. */
interface PreparedFile {
  outcome: FileOutcome;
  text: string;
  byteOrderMark: boolean;
  uri: string;
  document: PythonDocument;
  lint: FileConfiguration["lint"];
  baselineText: string | undefined;
  airflowPin: AirflowPin | undefined;
  cacheKey: CacheKey | undefined;
}

/**
 * Reads the file (or takes `stdinText`, the text standard input gave for it) and gathers its
 * inputs; answers the outcome instead when there is nothing to lint: it could not be read, or the
 * cache knows its findings. `known` is the file's configuration when the caller has just read it.
 */
async function prepare(file: string, settings: CheckSettings, stdinText?: string, known?: FileConfiguration): Promise<PreparedFile | FileOutcome> {
  const outcome: FileOutcome = { file, diagnostics: [], fixed: 0, errors: [] };
  const configuration = known ?? settings.configuration.forFile(file, settings.overrides);
  const airflowPin = configuration.airflowPin;
  // Taken before the file is read: a change after it shows in the next run's stamp.
  const stamp = settings.cache && stdinText === undefined ? fileStamp(file) : undefined;
  if (stamp && configuration.airflowPinError === undefined) {
    const cached = settings.cache?.lookupUnread({ file, lint: configuration.lint, pin: airflowPin, stamp });
    if (cached) {
      outcome.diagnostics = cached;
      return outcome;
    }
  }
  // Read synchronously: a promise per read costs more than the read of a DAG file.
  const source = stdinText !== undefined ? { text: stdinText.replace(/^\uFEFF/, ""), byteOrderMark: false } : readSourceFileSync(file);
  if ("error" in source) {
    outcome.errors.push(source.error);
    return outcome;
  }
  const { text, byteOrderMark } = source;
  // A file the engine would not parse needs no baseline either.
  const wantsBaseline = isRelevantText(text) && needsBaseline(configuration.lint, text);
  const baselineText = wantsBaseline ? await settings.baselines?.committedText(file, configuration.baseline) : undefined;
  const starImport = hasStarImport(text);
  if (starImport) settings.workspace?.update(file, text);
  if (configuration.airflowPinError !== undefined) {
    outcome.errors.push(`could not read the Airflow version the project pins, so AS501 and AS502 were not checked: ${configuration.airflowPinError}`);
  }
  // Only a file whose key is its text alone may be found by its stamp next time: a commit can change
  // its baseline, and a file with a star import must give the workspace index its text first.
  const keyStamp = !wantsBaseline && !starImport ? stamp : undefined;
  const cacheKey = settings.cache?.keyFor({ file, lint: configuration.lint, text, pin: airflowPin, baselineText, stamp: keyStamp });
  const cached = cacheKey ? settings.cache?.lookup(cacheKey) : undefined;
  if (cached) {
    outcome.diagnostics = cached;
    return outcome;
  }
  // Made only now: when the cache answers, the file's URL and document are not needed.
  const uri = pathToFileURL(file).href;
  const document = PythonDocument.forReading(uri, text);
  return { outcome, text, byteOrderMark, uri, document, lint: configuration.lint, baselineText, airflowPin, cacheKey };
}

/** A file whose check threw: reported with the others, as an internal error, instead of being dropped. */
export function crashedOutcome(file: string, error: unknown): FileOutcome {
  return { file, diagnostics: [], fixed: 0, errors: [`internal error while checking the file: ${error instanceof Error ? error.message : String(error)}`] };
}

/**
 * The outcome of a file when it needs no lint (it could not be read, or the cache knows its
 * findings); undefined when it must be checked. `configuration`: the file's, when the caller has it
 * (from `settings.configuration` or a reader of the same files with the same overrides).
 */
export async function outcomeWithoutLint(file: string, settings: CheckSettings, configuration?: FileConfiguration): Promise<FileOutcome | undefined> {
  const prepared = await prepare(file, settings, undefined, configuration);
  return "document" in prepared ? undefined : prepared;
}

/** Checks a file on disk, or, given `stdinText`, that text as the file (fixes are then returned, never written). */
export async function checkFile(file: string, settings: CheckSettings, stdinText?: string): Promise<FileOutcome> {
  const prepared = await prepare(file, settings, stdinText);
  if (!("document" in prepared)) return prepared;
  const { outcome, text, byteOrderMark, uri, document, baselineText, airflowPin, cacheKey } = prepared;
  const cache = settings.cache;
  const ruleErrors = new Set<string>();
  /** The workspace files the lint looks at or for: a cached entry is good only while they stay as they are. */
  const consulted = new Set<string>();
  const options: LintOptionsWithEdits = {
    ...prepared.lint,
    path: file,
    baselineText,
    workspace: cache ? settings.workspace?.recording(consulted) : settings.workspace,
    airflowPin,
    onRuleError: (rule, error) => ruleErrors.add(`rule ${rule.code} failed, so the file was not checked completely: ${error instanceof Error ? error.message : String(error)}`),
  };

  /** The file as it is on disk once this check is done. */
  let checked = document;
  if (settings.fixes !== "check") {
    const before = settings.countFixed ? lint(document, options) : undefined;
    const result = fixAll(uri, text, options, settings.unsafeFixes);
    const changed = result.text !== text;
    const writes = settings.fixes === "fix" && stdinText === undefined;
    const writeError = changed && writes ? await writeSourceFile(file, result.text, byteOrderMark) : undefined;
    if (writeError) {
      // The file is as it was, so report what it still holds.
      outcome.errors.push(writeError);
      outcome.diagnostics = reportedAll(before ?? lint(document, options), text);
    } else {
      outcome.diagnostics = reportedAll(result.diagnostics, result.text);
      outcome.fixed = changed ? result.applied : 0;
      if (changed && settings.fixes === "diff") outcome.diff = unifiedDiff(settings.shownPath(file), text, result.text);
      else if (stdinText !== undefined && settings.fixes === "fix") outcome.fixedText = result.text;
      if (before && changed) outcome.fixedCodes = removedCodes(before, result.diagnostics);
      if (changed && writes) {
        checked = new PythonDocument(uri, result.text);
        // Files checked later that import this one see it as it is now.
        if (settings.workspace?.has(file)) settings.workspace.update(file, result.text);
      }
    }
  } else {
    // The report names each fix by its title and safety; its edits are made only to be applied.
    outcome.diagnostics = reportedAll(lint(document, { ...options, fixEdits: false }), text);
  }
  // The review lints again: it needs the model as well as the findings, and reviews are read by people, a few files at a time.
  if (settings.reviewTitle) outcome.review = reviewMarkdown(checked, { ...options, title: settings.reviewTitle(file) });
  outcome.errors.push(...ruleErrors);
  // A check that did not complete (a rule failed, the pin could not be read) is done again next time.
  if (cache && cacheKey !== undefined && outcome.errors.length === 0) outcome.cacheRecord = cache.recordOf(cacheKey, consulted);
  return outcome;
}

/** The findings as reported, each with the hash of the line it starts on in `text`. */
function reportedAll(diagnostics: readonly FoundDiagnostic[], text: string): ReportedDiagnostic[] {
  if (diagnostics.length === 0) return [];
  const lines = text.split("\n");
  return diagnostics.map(({ code, name, severity, message, range, fix, related }) => ({
    code,
    name,
    severity,
    message,
    range,
    ...(fix ? { fix: { title: fix.title, safe: fix.safe } } : {}),
    ...(related ? { related } : {}),
    lineHash: lineHash(code, lines[range.start.line] ?? ""),
  }));
}

/** Whitespace is left out, so re-indenting the line keeps its fingerprint. */
function lineHash(code: string, line: string): string {
  return createHash("sha256").update(`${code}\0${line.replace(/\s+/g, "")}`).digest("hex").slice(0, 16);
}

/** Per code, how many fewer findings there are after fixing. */
function removedCodes(before: readonly FoundDiagnostic[], after: readonly FoundDiagnostic[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of before) counts[d.code] = (counts[d.code] ?? 0) + 1;
  for (const d of after) if (counts[d.code] !== undefined) counts[d.code]--;
  for (const code of Object.keys(counts)) if (counts[code] <= 0) delete counts[code];
  return counts;
}
