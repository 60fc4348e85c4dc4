/**
 * Code actions built from the diagnostics published for the document's current version: the rule's
 * own fix and its alternative rewrites, "Suppress ASxxx on this line", and the fix-all source action.
 */
import {
  CodeAction,
  CodeActionKind,
  Diagnostic as LspDiagnostic,
  OptionalVersionedTextDocumentIdentifier,
  Range,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from "vscode-languageserver";
import { DIAGNOSTIC_SOURCE } from "./diagnostics";
import type { LintedDiagnostic, PlacedEdit, PlacedFix } from "./workerProtocol";

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.airflowStateStore`;

export const PROVIDED_KINDS = [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite, FIX_ALL_KIND];

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

/** The actions for the client's diagnostics that match, by code and range, one of `current` (the published result for this version). */
export function diagnosticActions(target: EditTarget, current: readonly LintedDiagnostic[], requested: readonly LspDiagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const shown of requested) {
    if (shown.source !== DIAGNOSTIC_SOURCE) continue;
    const diagnostic = current.find((d) => d.code === shown.code && sameRange(d.range, shown.range));
    if (!diagnostic) continue;
    // Only the rule's own fix can be preferred, and only when safe; its alternatives never are.
    if (diagnostic.fix) actions.push(fixAction(target, shown, diagnostic.fix, diagnostic.fix.safe));
    for (const alternative of diagnostic.alternatives ?? []) actions.push(fixAction(target, shown, alternative, false));
    if (diagnostic.suppression) {
      actions.push({
        title: `Suppress ${diagnostic.code} on this line`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [shown],
        edit: workspaceEdit(target, [diagnostic.suppression]),
      });
    }
  }
  return actions;
}

function fixAction(target: EditTarget, shown: LspDiagnostic, fix: PlacedFix, isPreferred: boolean): CodeAction {
  return {
    title: fix.title,
    kind: fix.kind === "refactor.rewrite" ? CodeActionKind.RefactorRewrite : CodeActionKind.QuickFix,
    diagnostics: [shown],
    isPreferred,
    edit: workspaceEdit(target, fix.edits),
  };
}

export function fixAllAction(target: EditTarget, edit: PlacedEdit): CodeAction {
  return { title: "Fix all safely fixable Airflow state store problems", kind: FIX_ALL_KIND, edit: workspaceEdit(target, [edit]) };
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}
