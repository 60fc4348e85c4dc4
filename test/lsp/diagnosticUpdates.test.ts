/**
 * A lint's findings sent from the worker as a change to the list sent before: the connection
 * thread's rebuilt list is the lint's whole list, whatever the edit did, and the findings an edit
 * did not touch keep their LSP objects.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Diagnostic } from "../../server/src/engine";
import { toLspDiagnostic } from "../../server/src/lsp/diagnostics";
import { DiagnosticLists, diagnosticsUpdate, linted, SentDiagnostics } from "../../server/src/lsp/diagnosticUpdates";
import type { DiagnosticsUpdate } from "../../server/src/lsp/workerProtocol";
import { Random } from "../bench/random";

const URI = "file:///dags/updates.py";

function finding(line: number, character: number, code = "AS101", message = `found at ${line}`, relatedLines: number[] = []): Diagnostic {
  const range = { start: { line, character }, end: { line, character: character + 5 } };
  const found: Diagnostic = { code, name: "rule", severity: "error", message, range, startOffset: 0, endOffset: 5 };
  if (relatedLines.length > 0) found.related = { message: "Another call", ranges: relatedLines.map((l) => ({ start: { line: l, character: 0 }, end: { line: l, character: 3 } })) };
  return found;
}

function movedDown(found: Diagnostic, lines: number): Diagnostic {
  const move = (range: Diagnostic["range"]) => ({ start: { ...range.start, line: range.start.line + lines }, end: { ...range.end, line: range.end.line + lines } });
  return { ...found, range: move(found.range), related: found.related && { ...found.related, ranges: found.related.ranges.map(move) } };
}

/** The worker's side and the connection thread's, in step as they are in the server. */
class Channel {
  private sent: SentDiagnostics | undefined;
  readonly lists = new DiagnosticLists(toLspDiagnostic);
  mismatches = 0;
  lastUpdate: DiagnosticsUpdate | undefined;

  lint(findings: Diagnostic[]) {
    const update = diagnosticsUpdate(this.sent, findings);
    this.sent = { id: update.id, findings };
    this.lastUpdate = update;
    // What the worker posts is copied, as postMessage copies it.
    return this.lists.apply(URI, structuredClone(update), () => this.mismatches++);
  }
}

const expected = (findings: Diagnostic[]) => findings.map((d) => toLspDiagnostic(URI, linted(d)));

describe("diagnostics sent as changes to the last list", () => {
  test("the first list is sent whole; the same list again sends nothing and keeps every object", () => {
    const channel = new Channel();
    const findings = [finding(1, 4), finding(3, 8, "AS102"), finding(9, 0, "AS401", "m", [11, 12])];
    const first = channel.lint(findings);
    assert.deepEqual(first, expected(findings));
    assert.equal(channel.lastUpdate?.base, undefined);
    const again = channel.lint(findings.map((d) => ({ ...d })));
    assert.deepEqual(again, expected(findings));
    assert.deepEqual(channel.lastUpdate?.changed, []);
    again!.forEach((d, i) => assert.equal(d, first![i], `finding ${i} is the same object`));
  });

  test("an edit that adds lines sends the findings it touched; those after it move down", () => {
    const channel = new Channel();
    const before = [finding(1, 4), finding(5, 8, "AS102"), finding(9, 0, "AS401", "m", [11, 12]), finding(20, 2)];
    const first = channel.lint(before);
    const after = [before[0], finding(5, 8, "AS102", "changed"), finding(6, 1, "AS103"), movedDown(before[2], 2), movedDown(before[3], 2)];
    const rebuilt = channel.lint(after);
    assert.deepEqual(rebuilt, expected(after));
    assert.deepEqual(channel.lastUpdate && { head: channel.lastUpdate.head, tail: channel.lastUpdate.tail, tailLines: channel.lastUpdate.tailLines, changed: channel.lastUpdate.changed.length }, { head: 1, tail: 2, tailLines: 2, changed: 2 });
    assert.equal(rebuilt![0], first![0]);
    assert.deepEqual(rebuilt![3].relatedInformation?.map((r) => r.location.range.start.line), [13, 14]);
  });

  test("a related place that did not move with its finding is sent again", () => {
    const channel = new Channel();
    const before = [finding(1, 0), finding(9, 0, "AS401", "m", [2, 12])];
    channel.lint(before);
    const after = [finding(1, 0, "AS101", "changed"), finding(10, 0, "AS401", "m", [2, 13])];
    assert.deepEqual(channel.lint(after), expected(after));
    assert.equal(channel.lastUpdate?.tail, 0);
  });

  test("random edits of random lists: the rebuilt list is always the lint's", () => {
    const random = new Random(9);
    const channel = new Channel();
    let findings: Diagnostic[] = [];
    for (let round = 0; round < 2000; round++) {
      const at = random.int(0, findings.length);
      const removed = random.int(0, Math.min(3, findings.length - at));
      const lines = random.int(-3, 3);
      const line = findings[at - 1]?.range.start.line ?? 0;
      const added = Array.from({ length: random.int(0, 3) }, (_, i) => finding(line + i, random.int(0, 4), random.pick(["AS101", "AS102"]), random.pick(["a", "b"]), random.chance(0.3) ? [random.int(0, 50)] : []));
      // Sometimes every finding is found anew (a lint from scratch gives new objects for the same findings).
      const kept = random.chance(0.2) ? findings.map((d) => ({ ...d })) : findings;
      findings = [...kept.slice(0, at), ...added, ...kept.slice(at + removed).map((d) => (random.chance(0.95) ? movedDown(d, lines) : finding(d.range.start.line, 1, "AS103")))];
      assert.deepEqual(channel.lint(findings), expected(findings), `round ${round}`);
    }
    assert.equal(channel.mismatches, 0);
  });

  test("an update of a list not held: none after the document closed, a mismatch otherwise", () => {
    const channel = new Channel();
    channel.lint([finding(1, 0)]);
    const update = diagnosticsUpdate({ id: 1, findings: [finding(1, 0)] }, [finding(2, 0)]);
    assert.deepEqual(channel.lists.apply(URI, { ...update, base: 7 }, () => channel.mismatches++), undefined);
    assert.equal(channel.mismatches, 1);
    channel.lists.forget(URI);
    assert.deepEqual(channel.lists.apply(URI, update, () => channel.mismatches++), undefined);
    assert.equal(channel.mismatches, 1, "a closed document's late update is dropped quietly");
    assert.deepEqual(channel.lists.apply(URI, diagnosticsUpdate(undefined, [finding(2, 0)]), () => channel.mismatches++), expected([finding(2, 0)]), "a whole list needs no base");
  });
});
