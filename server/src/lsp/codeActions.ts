/**
 * Code actions of the findings published for the document's current version, with the edits their
 * worker placed when asked (findingActions.ts): the rule's own fix and its alternative rewrites,
 * "suppress on this line", "suppress in this file", "show documentation", and fix-all (as the
 * source action, and in the lightbulb as a quick fix).
 * Every title is plain text and names where it comes from, as ruff's do:
 * "Airflow State Store (AS101): convert with .isoformat()". The rules write their titles with
 * Markdown code spans; the lightbulb shows them literally, so they are turned into plain text here.
 */
import {
  CodeAction,
  CodeActionKind,
  Diagnostic as LspDiagnostic,
  OptionalVersionedTextDocumentIdentifier,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from "vscode-languageserver";
import { ACTION_SOURCE, FIX_ALL_KIND, SHOW_RULE_DOCUMENTATION_COMMAND } from "./codeActionProtocol";
import { DIAGNOSTIC_SOURCE } from "./diagnostics";
import type { CodeActionsResult, PlacedEdit, PlacedFix } from "./workerProtocol";

export { FIX_ALL_KIND };

/** Fix-all in the lightbulb: a quick fix (the lightbulb shows no source actions) whose edit is computed when chosen. */
export const FIX_ALL_QUICK_FIX_KIND = `${CodeActionKind.QuickFix}.airflowStateStore.fixAll`;

export const PROVIDED_KINDS = [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite, FIX_ALL_KIND];

export const FIX_ALL_TITLE = `${ACTION_SOURCE}: fix all safely fixable problems`;

/** What a fix-all quick fix carries until it is resolved. */
export interface FixAllData {
  fixAll: { uri: string; version: number };
}

export function isFixAllData(data: unknown): data is FixAllData {
  const fixAll = (data as Partial<FixAllData> | undefined)?.fixAll;
  return typeof fixAll?.uri === "string" && typeof fixAll.version === "number";
}

/** Whether an action of `kind` answers a request limited to `only` (a kind also covers its sub-kinds). */
export function isRequested(kind: string, only: readonly string[] | undefined): boolean {
  return !only || only.some((wanted) => kind === wanted || kind.startsWith(`${wanted}.`));
}

/** Fix-all re-lints the file several times, so it is computed only when explicitly asked for (on save, or the Source Action menu). */
export function isFixAllRequested(only: readonly string[] | undefined): boolean {
  return !!only && isRequested(FIX_ALL_KIND, only);
}

export interface EditTarget {
  uri: string;
  version: number;
  /** The client accepts versioned `documentChanges`, so it refuses an edit made for another version. */
  versioned: boolean;
}

export function workspaceEdit(target: EditTarget, edits: readonly PlacedEdit[]): WorkspaceEdit {
  const textEdits = edits.map((e) => TextEdit.replace(e.range, e.newText));
  return target.versioned
    ? { documentChanges: [TextDocumentEdit.create(OptionalVersionedTextDocumentIdentifier.create(target.uri, target.version), textEdits)] }
    : { changes: { [target.uri]: textEdits } };
}

/** "Airflow State Store (AS101): convert with .isoformat()" from the rule's "Convert with `.isoformat()`". */
export function actionTitle(code: string, title: string): string {
  return `${ACTION_SOURCE} (${code}): ${plainText(title)}`;
}

/** Without code-span backticks; the first word in lower case after the colon, unless it is a name (`UTC`, `ResumableJobMixin`). */
function plainText(markdown: string): string {
  const text = markdown.replace(/`/g, "");
  return /^[A-Z][a-z]*$/.test(text.split(" ")[0]) ? text[0].toLowerCase() + text.slice(1) : text;
}

/** The findings among the client's diagnostics of `requested` that are this server's, which the document's worker is asked about. */
export function ownDiagnostics(requested: readonly LspDiagnostic[]): LspDiagnostic[] {
  return requested.filter((shown) => shown.source === DIAGNOSTIC_SOURCE);
}

/** The actions of each of `shown` (this server's diagnostics the client asked about) that the worker's last lint of this version found. */
export function diagnosticActions(target: EditTarget, answer: CodeActionsResult, shown: readonly LspDiagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  const documented = new Set<string>();
  shown.forEach((diagnostic, index) => {
    const found = answer.findings[index];
    if (!found) return;
    const code = String(diagnostic.code);
    // Only the rule's own fix can be preferred, and only when safe; its alternatives never are.
    if (found.fix) actions.push(fixAction(target, diagnostic, code, found.fix, found.fix.safe));
    for (const alternative of found.alternatives ?? []) actions.push(fixAction(target, diagnostic, code, alternative, false));
    if (found.suppression) actions.push(suppressAction(target, diagnostic, actionTitle(code, "suppress on this line"), found.suppression));
    if (found.fileSuppression) actions.push(suppressAction(target, diagnostic, actionTitle(code, "suppress in this file"), found.fileSuppression));
    // One per rule, however many of its findings the cursor is on.
    if (!documented.has(code)) {
      documented.add(code);
      const title = actionTitle(code, "show documentation");
      actions.push({ title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], command: { title, command: SHOW_RULE_DOCUMENTATION_COMMAND, arguments: [code] } });
    }
  });
  return actions;
}

/**
 * The lightbulb's fix-all, offered beside the actions of one of this server's findings when the
 * file has a safe fix anywhere. Its edit is left to codeAction/resolve: computing it re-lints the
 * file, which every cursor move would otherwise pay for.
 */
export function fixAllQuickFix(target: EditTarget, answer: CodeActionsResult, shown: readonly LspDiagnostic[]): CodeAction | undefined {
  if (shown.length === 0 || !answer.safelyFixable) return undefined;
  const data: FixAllData = { fixAll: { uri: target.uri, version: target.version } };
  return { title: FIX_ALL_TITLE, kind: FIX_ALL_QUICK_FIX_KIND, data };
}

function fixAction(target: EditTarget, shown: LspDiagnostic, code: string, fix: PlacedFix, isPreferred: boolean): CodeAction {
  return {
    title: actionTitle(code, fix.title),
    kind: fix.kind === "refactor.rewrite" ? CodeActionKind.RefactorRewrite : CodeActionKind.QuickFix,
    diagnostics: [shown],
    isPreferred,
    edit: workspaceEdit(target, fix.edits),
  };
}

function suppressAction(target: EditTarget, shown: LspDiagnostic, title: string, edit: PlacedEdit): CodeAction {
  return { title, kind: CodeActionKind.QuickFix, diagnostics: [shown], edit: workspaceEdit(target, [edit]) };
}

export function fixAllAction(target: EditTarget, edit: PlacedEdit): CodeAction {
  return { title: FIX_ALL_TITLE, kind: FIX_ALL_KIND, edit: workspaceEdit(target, [edit]) };
}
