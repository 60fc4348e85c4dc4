/**
 * A lint's findings go from the lint worker to the connection thread as a change to the list the
 * worker sent before for the same document. An edit leaves most of a file's findings as they were:
 * those before it unchanged, those after it unchanged or moved by the lines it added or removed.
 * So the worker sends only the findings in between (`diagnosticsUpdate`), and the connection thread
 * rebuilds the whole list from the one it holds (`DiagnosticLists`), keeping its LSP objects for the
 * findings that did not change. Copying thousands of findings between the threads, and converting
 * them, on every keystroke cost more than linting a 1,000-line file.
 */
import type { Diagnostic as LspDiagnostic, Range as LspRange } from "vscode-languageserver";
import type { FoundDiagnostic, Range, RelatedLocations } from "../engine";
import type { DiagnosticsUpdate, LintedDiagnostic } from "./workerProtocol";

/** The list of a document's findings the worker sent last, and its number. */
export interface SentDiagnostics {
  id: number;
  findings: readonly FoundDiagnostic[];
}

/** The findings as a change to `sent` (a whole list when there is none). */
export function diagnosticsUpdate(sent: SentDiagnostics | undefined, findings: readonly FoundDiagnostic[]): DiagnosticsUpdate {
  const id = (sent?.id ?? 0) + 1;
  if (!sent) return { id, head: 0, tail: 0, tailLines: 0, changed: findings.map(linted) };
  const before = sent.findings;
  const shorter = Math.min(before.length, findings.length);
  let head = 0;
  while (head < shorter && sameFinding(before[head], findings[head], 0)) head++;
  // What follows the edit moved by the lines it added or removed, the same for every finding there.
  const tailLines = head < shorter ? findings[findings.length - 1].range.start.line - before[before.length - 1].range.start.line : 0;
  let tail = 0;
  while (tail < shorter - head && sameFinding(before[before.length - 1 - tail], findings[findings.length - 1 - tail], tailLines)) tail++;
  return { id, base: sent.id, head, tail, tailLines, changed: findings.slice(head, findings.length - tail).map(linted) };
}

/** A finding as the editor shows it. */
export function linted(finding: FoundDiagnostic): LintedDiagnostic {
  const shown: LintedDiagnostic = { code: finding.code, severity: finding.severity, message: finding.message, range: finding.range };
  if (finding.related) shown.related = finding.related;
  return shown;
}

/** Whether `after` is `before` moved down by `lines` (up when negative), as the editor shows them. */
function sameFinding(before: FoundDiagnostic, after: FoundDiagnostic, lines: number): boolean {
  if (before === after && lines === 0) return true;
  return (
    before.code === after.code &&
    before.severity === after.severity &&
    before.message === after.message &&
    sameRange(before.range, after.range, lines) &&
    sameRelated(before.related, after.related, lines)
  );
}

function sameRelated(before: RelatedLocations | undefined, after: RelatedLocations | undefined, lines: number): boolean {
  if (!before || !after) return before === after;
  return before.message === after.message && before.ranges.length === after.ranges.length && before.ranges.every((range, i) => sameRange(range, after.ranges[i], lines));
}

function sameRange(before: Range, after: Range, lines: number): boolean {
  return (
    before.start.line + lines === after.start.line &&
    before.start.character === after.start.character &&
    before.end.line + lines === after.end.line &&
    before.end.character === after.end.character
  );
}

/**
 * The connection thread's copy of the lists one lint worker sent, as LSP diagnostics: what is
 * published for each document, and the base the worker's next update for it changes.
 */
export class DiagnosticLists {
  private readonly byUri = new Map<string, { id: number; diagnostics: LspDiagnostic[] }>();

  constructor(private readonly convert: (uri: string, diagnostic: LintedDiagnostic) => LspDiagnostic) {}

  /**
   * The document's whole list after `update`. Undefined when the list it changes is not the one held:
   * none when the document was closed since the worker sent it (it is of no use then), or another
   * one (`mismatch`), which cannot happen as long as the worker's updates arrive in order.
   */
  apply(uri: string, update: DiagnosticsUpdate, mismatch: () => void): LspDiagnostic[] | undefined {
    const held = this.byUri.get(uri);
    let diagnostics: LspDiagnostic[];
    if (update.base === undefined) {
      diagnostics = update.changed.map((d) => this.convert(uri, d));
    } else {
      if (!held) return undefined;
      const before = held.diagnostics;
      if (held.id !== update.base || update.head + update.tail > before.length) {
        mismatch();
        return undefined;
      }
      diagnostics = before.slice(0, update.head);
      for (const d of update.changed) diagnostics.push(this.convert(uri, d));
      for (let i = before.length - update.tail; i < before.length; i++) diagnostics.push(update.tailLines === 0 ? before[i] : movedDown(before[i], update.tailLines));
    }
    this.byUri.set(uri, { id: update.id, diagnostics });
    return diagnostics;
  }

  /** The worker was told the document closed (or left it for another worker). */
  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  /** A new worker thread knows no document. */
  clear(): void {
    this.byUri.clear();
  }
}

function movedDown(diagnostic: LspDiagnostic, lines: number): LspDiagnostic {
  const moved: LspDiagnostic = { ...diagnostic, range: movedRange(diagnostic.range, lines) };
  if (diagnostic.relatedInformation) {
    moved.relatedInformation = diagnostic.relatedInformation.map((info) => ({ ...info, location: { ...info.location, range: movedRange(info.location.range, lines) } }));
  }
  return moved;
}

function movedRange(range: LspRange, lines: number): LspRange {
  return { start: { line: range.start.line + lines, character: range.start.character }, end: { line: range.end.line + lines, character: range.end.character } };
}
