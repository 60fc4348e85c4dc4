/**
 * The edits of a finding's code actions, placed in LSP coordinates when a code action asks for
 * them: its fix and alternative rewrites, "suppress on this line" and "suppress in this file". A
 * lint makes none of them: a file's findings are many, and the editor asks only for those under the
 * cursor. Their fixes' edits are made then, by the engine (`fixesOf`), once per finding and lint.
 */
import type { FindingFixes, Fix, FoundDiagnostic, PythonDocument, Range } from "../engine";
import { fileSuppressionEdit, linesMayEndInsideStrings, suppressionEdit } from "./suppression";
import type { CodeActionsResult, FindingActions, FindingReference, PlacedEdit, PlacedFix } from "./workerProtocol";

/** Makes the fixes, with their edits, of the findings given, in their order. */
export type FixMaker = (findings: readonly FoundDiagnostic[]) => (FindingFixes | undefined)[];

/**
 * The actions of each finding asked about among `findings`, the last lint of `document` at its
 * current version. `made` holds the fixes made for this lint's findings so far, and gets those
 * `makeFixes` makes now (none when it is undefined: the findings' fixes then offer nothing).
 */
export function findingActions(document: PythonDocument, findings: readonly FoundDiagnostic[], requested: readonly FindingReference[], made: Map<FoundDiagnostic, FindingFixes | undefined>, makeFixes: FixMaker | undefined): CodeActionsResult {
  const asked = requested.map((reference) => findings.find((d) => d.code === reference.code && sameRange(d.range, reference.range)));
  const toMake = [...new Set(asked.filter((finding): finding is FoundDiagnostic => finding !== undefined && !made.has(finding)))];
  if (toMake.length > 0) {
    const fixes = makeFixes?.(toMake);
    toMake.forEach((finding, i) => made.set(finding, fixes?.[i]));
  }
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
  const actionsOf = (finding: FoundDiagnostic | undefined): FindingActions | null => {
    if (!finding) return null;
    const fixes = made.get(finding);
    return {
      fix: fixes?.fix && place(fixes.fix),
      alternatives: fixes?.alternatives?.map(place),
      suppression: suppressionEdit(document, finding.range.start.line, finding.code, mayEndInsideString),
      fileSuppression: fileSuppression(finding.code),
    };
  };
  return { version: document.version, findings: asked.map(actionsOf), safelyFixable: findings.some((d) => d.fix?.safe === true) };
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}
