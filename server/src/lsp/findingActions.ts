/**
 * The edits of a finding's code actions, placed in LSP coordinates when a code action asks for
 * them: its fix and alternative rewrites (the engine gives them as offsets), "suppress on this
 * line" and "suppress in this file". A lint places none of them: a file's findings are many, and
 * the editor asks only for those under the cursor.
 */
import type { Diagnostic, Fix, PythonDocument, Range } from "../engine";
import { fileSuppressionEdit, linesMayEndInsideStrings, suppressionEdit } from "./suppression";
import type { CodeActionsResult, FindingActions, FindingReference, PlacedEdit, PlacedFix } from "./workerProtocol";

/** The actions of each finding asked about among `findings`, the last lint of `document` at its current version. */
export function findingActions(document: PythonDocument, findings: readonly Diagnostic[], requested: readonly FindingReference[]): CodeActionsResult {
  const mayEndInsideString = linesMayEndInsideStrings(document.getText());
  // One edit per code, however many of its findings are asked about.
  const fileSuppressions = new Map<string, PlacedEdit | undefined>();
  const fileSuppression = (code: string): PlacedEdit | undefined => {
    if (!fileSuppressions.has(code)) fileSuppressions.set(code, fileSuppressionEdit(document, code));
    return fileSuppressions.get(code);
  };
  const place = (fix: Fix): PlacedFix => ({
    title: fix.title,
    safe: fix.safe,
    kind: fix.kind,
    edits: fix.edits.map((e) => ({ range: { start: document.positionAt(e.start), end: document.positionAt(e.end) }, newText: e.newText })),
  });
  const actionsOf = (reference: FindingReference): FindingActions | null => {
    const finding = findings.find((d) => d.code === reference.code && sameRange(d.range, reference.range));
    if (!finding) return null;
    return {
      fix: finding.fix && place(finding.fix),
      alternatives: finding.alternatives?.map(place),
      suppression: suppressionEdit(document, finding.range.start.line, finding.code, mayEndInsideString),
      fileSuppression: fileSuppression(finding.code),
    };
  };
  return { version: document.version, findings: requested.map(actionsOf), safelyFixable: findings.some((d) => d.fix?.safe === true) };
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}
