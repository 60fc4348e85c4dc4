/**
 * Checks one file: read it, fetch its git baseline when a rule compares with one, find the Airflow
 * version its project pins, lint it (or fix it and lint what remains), write it back when a fix
 * changed it. Failures become messages in the outcome, never exceptions, so one bad file does not
 * stop the others.
 */
import { pathToFileURL } from "node:url";
import { Diagnostic, enabledRules, fixAll, lint, LintOptions, PythonDocument, reviewMarkdown, WorkspaceIndex } from "../engine";
import { committedText } from "../engine/project/git";
import { AirflowPin, AirflowVersionResolver } from "../engine/project";
import { readSourceFile, writeSourceFile } from "./files";
import { hasStarImport } from "./workspace";

export interface CheckSettings {
  /** Severities, select and ignore; the same for every file. */
  lint: Pick<LintOptions, "severities" | "select" | "ignore">;
  fix: boolean;
  /** The git revision baseline rules compare with. */
  baseline: string;
  /** Classes of the modules the checked files import. */
  workspace?: WorkspaceIndex;
  /** The Airflow version each file's project pins (AS501, AS502), read from disk once per folder. */
  pins?: AirflowVersionResolver;
  /** Set for `--format review`: each file is also reviewed, under the title this gives its path. */
  reviewTitle?: (file: string) => string;
}

export interface FileOutcome {
  /** Absolute path. */
  file: string;
  /** What is reported: everything found, or what remains after fixing. */
  diagnostics: Diagnostic[];
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

export async function checkFile(file: string, settings: CheckSettings, needsBaseline: BaselineNeed): Promise<FileOutcome> {
  const outcome: FileOutcome = { file, diagnostics: [], fixed: 0, errors: [] };
  const source = await readSourceFile(file);
  if ("error" in source) {
    outcome.errors.push(source.error);
    return outcome;
  }
  const uri = pathToFileURL(file).href;
  const document = new PythonDocument(uri, source.text);
  // A file the engine would not parse needs no baseline either.
  const baselineText = document.isRelevant() && needsBaseline(source.text) ? await committedText(file, settings.baseline) : undefined;
  const ruleErrors = new Set<string>();
  if (hasStarImport(source.text)) settings.workspace?.update(file, source.text);
  const options: LintOptions = {
    ...settings.lint,
    path: file,
    baselineText,
    workspace: settings.workspace,
    airflowPin: pinOf(file, settings.pins, outcome),
    onRuleError: (rule, error) => ruleErrors.add(`rule ${rule.code} failed, so the file was not checked completely: ${error instanceof Error ? error.message : String(error)}`),
  };

  /** The file as it is on disk once this check is done. */
  let checked = document;
  if (settings.fix) {
    const result = fixAll(uri, source.text, options);
    const changed = result.text !== source.text;
    const writeError = changed ? await writeSourceFile(file, result.text, source.byteOrderMark) : undefined;
    if (writeError) {
      // The file is as it was, so report what it still holds.
      outcome.errors.push(writeError);
      outcome.diagnostics = lint(document, options);
    } else {
      outcome.diagnostics = result.diagnostics;
      outcome.fixed = changed ? result.applied : 0;
      if (changed) checked = new PythonDocument(uri, result.text);
      // Files checked later that import this one see it as it is now.
      if (changed && settings.workspace?.has(file)) settings.workspace.update(file, result.text);
    }
  } else {
    outcome.diagnostics = lint(document, options);
  }
  // The review lints again: it needs the model as well as the findings, and reviews are read by people, a few files at a time.
  if (settings.reviewTitle) outcome.review = reviewMarkdown(checked, { ...options, title: settings.reviewTitle(file) });
  outcome.errors.push(...ruleErrors);
  return outcome;
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
