/**
 * Checks one file: read it, fetch its git baseline when a rule compares with one, find the Airflow
 * version its project pins, lint it (or fix it and lint what remains), write it back when a fix
 * changed it. Failures become messages in the outcome, never exceptions, so one bad file does not
 * stop the others.
 */
import { pathToFileURL } from "node:url";
import { Diagnostic, enabledRules, fixAll, lint, LintOptions, PythonDocument, reviewMarkdown, WorkspaceIndex } from "../engine";
import { GitBaselines } from "../engine/project/git";
import { AirflowPin, AirflowVersionResolver } from "../engine/project";
import { LintCache } from "./cache";
import { readSourceFileSync, writeSourceFile } from "./files";
import { hasStarImport } from "./workspace";

export interface CheckSettings {
  /** Severities, select and ignore; the same for every file. */
  lint: Pick<LintOptions, "severities" | "select" | "ignore">;
  fix: boolean;
  /** The git revision baseline rules compare with. */
  baseline: string;
  /** Reads the committed versions; without it, no file has a baseline. */
  baselines?: GitBaselines;
  /** Classes of the modules the checked files import. */
  workspace?: WorkspaceIndex;
  /** The Airflow version each file's project pins (AS501, AS502), read from disk once per folder. */
  pins?: AirflowVersionResolver;
  /** Findings of files checked before with the same inputs; never set with `fix` or `reviewTitle`. */
  cache?: LintCache;
  /** Set for `--format review`: each file is also reviewed, under the title this gives its path. */
  reviewTitle?: (file: string) => string;
}

/** What the report shows of a finding: plain data, small enough to send between threads and to cache. */
export type ReportedDiagnostic = Pick<Diagnostic, "code" | "name" | "severity" | "message" | "range" | "related"> & { fix?: { title: string; safe: boolean } };

export interface FileOutcome {
  /** Absolute path. */
  file: string;
  /** What is reported: everything found, or what remains after fixing. */
  diagnostics: ReportedDiagnostic[];
  /** Fixes applied and written back. */
  fixed: number;
  /** Why the file could not be read, checked completely or written back. */
  errors: string[];
  /** The Markdown review of the file as it stands after any fixes (`--format review`). */
  review?: string;
}

/**
 * Whether a file's committed version could matter to an enabled rule, from the file's text: git is
 * asked only for such files.
 */
export type BaselineNeed = (text: string) => boolean;

export function baselineNeed(settings: CheckSettings): BaselineNeed {
  const needs = enabledRules(settings.lint).flatMap((rule) => (rule.inputs?.baseline ? [rule.inputs.baseline] : []));
  return (text) => needs.some((need) => need(text));
}

/** A file read and its inputs gathered, ready to lint. */
interface PreparedFile {
  outcome: FileOutcome;
  text: string;
  byteOrderMark: boolean;
  uri: string;
  document: PythonDocument;
  baselineText: string | undefined;
  airflowPin: AirflowPin | undefined;
  cacheKey: string | undefined;
}

/** Reads the file and gathers its inputs; answers the outcome instead when there is nothing to lint: it could not be read, or the cache knows its findings. */
async function prepare(file: string, settings: CheckSettings, needsBaseline: BaselineNeed): Promise<PreparedFile | FileOutcome> {
  const outcome: FileOutcome = { file, diagnostics: [], fixed: 0, errors: [] };
  // Read synchronously: a promise per read costs more than the read of a DAG file, and when the cache answers, reading is most of the work.
  const source = readSourceFileSync(file);
  if ("error" in source) {
    outcome.errors.push(source.error);
    return outcome;
  }
  const { text, byteOrderMark } = source;
  const uri = pathToFileURL(file).href;
  const document = new PythonDocument(uri, text);
  // A file the engine would not parse needs no baseline either.
  const baselineText = document.isRelevant() && needsBaseline(text) ? await settings.baselines?.committedText(file, settings.baseline) : undefined;
  if (hasStarImport(text)) settings.workspace?.update(file, text);
  const airflowPin = pinOf(file, settings.pins, outcome);
  const cacheKey = settings.cache?.keyFor({ file, text, pin: airflowPin, baselineText });
  const cached = cacheKey ? settings.cache?.lookup(cacheKey) : undefined;
  if (cached) {
    outcome.diagnostics = cached;
    return outcome;
  }
  return { outcome, text, byteOrderMark, uri, document, baselineText, airflowPin, cacheKey };
}

/** The outcome of a file when it needs no lint (it could not be read, or the cache knows its findings); undefined when it must be checked. */
export async function outcomeWithoutLint(file: string, settings: CheckSettings, needsBaseline: BaselineNeed): Promise<FileOutcome | undefined> {
  const prepared = await prepare(file, settings, needsBaseline);
  return "document" in prepared ? undefined : prepared;
}

export async function checkFile(file: string, settings: CheckSettings, needsBaseline: BaselineNeed): Promise<FileOutcome> {
  const prepared = await prepare(file, settings, needsBaseline);
  if (!("document" in prepared)) return prepared;
  const { outcome, text, byteOrderMark, uri, document, baselineText, airflowPin, cacheKey } = prepared;
  const cache = settings.cache;
  const ruleErrors = new Set<string>();
  /** The workspace files the lint looks at or for: a cached entry is good only while they stay as they are. */
  const consulted = new Set<string>();
  const options: LintOptions = {
    ...settings.lint,
    path: file,
    baselineText,
    workspace: cache ? settings.workspace?.recording(consulted) : settings.workspace,
    airflowPin,
    onRuleError: (rule, error) => ruleErrors.add(`rule ${rule.code} failed, so the file was not checked completely: ${error instanceof Error ? error.message : String(error)}`),
  };

  /** The file as it is on disk once this check is done. */
  let checked = document;
  if (settings.fix) {
    const result = fixAll(uri, text, options);
    const changed = result.text !== text;
    const writeError = changed ? await writeSourceFile(file, result.text, byteOrderMark) : undefined;
    if (writeError) {
      // The file is as it was, so report what it still holds.
      outcome.errors.push(writeError);
      outcome.diagnostics = lint(document, options).map(reported);
    } else {
      outcome.diagnostics = result.diagnostics.map(reported);
      outcome.fixed = changed ? result.applied : 0;
      if (changed) checked = new PythonDocument(uri, result.text);
      // Files checked later that import this one see it as it is now.
      if (changed && settings.workspace?.has(file)) settings.workspace.update(file, result.text);
    }
  } else {
    outcome.diagnostics = lint(document, options).map(reported);
  }
  // The review lints again: it needs the model as well as the findings, and reviews are read by people, a few files at a time.
  if (settings.reviewTitle) outcome.review = reviewMarkdown(checked, { ...options, title: settings.reviewTitle(file) });
  outcome.errors.push(...ruleErrors);
  // A check that did not complete (a rule failed, the pin could not be read) is done again next time.
  if (cache && cacheKey !== undefined && outcome.errors.length === 0) await cache.store(cacheKey, outcome.diagnostics, consulted);
  return outcome;
}

function reported(diagnostic: Diagnostic): ReportedDiagnostic {
  const { code, name, severity, message, range, fix, related } = diagnostic;
  return { code, name, severity, message, range, ...(fix ? { fix: { title: fix.title, safe: fix.safe } } : {}), ...(related ? { related } : {}) };
}

/** The file's pin; a project file no reader can make sense of is reported with the file, which is still checked. */
function pinOf(file: string, pins: AirflowVersionResolver | undefined, outcome: FileOutcome): AirflowPin | undefined {
  try {
    return pins?.pinFor(file);
  } catch (error) {
    outcome.errors.push(`could not read the Airflow version the project pins, so AS501 and AS502 were not checked: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
