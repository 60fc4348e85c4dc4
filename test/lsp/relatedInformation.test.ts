/** A finding's other places reach the editor as LSP related information, in the document itself. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { toLspDiagnostic } from "../../server/src/lsp/diagnostics";

const range = (line: number) => ({ start: { line, character: 4 }, end: { line, character: 20 } });

test("related locations become relatedInformation on the document; none, none", () => {
  const uri = "file:///dags/crawl.py";
  const diagnostic = { code: "AS401", severity: "warning" as const, message: "m", range: range(5), related: { message: "Another call", ranges: [range(7), range(9)] } };
  assert.deepEqual(toLspDiagnostic(uri, diagnostic).relatedInformation, [
    { location: { uri, range: range(7) }, message: "Another call" },
    { location: { uri, range: range(9) }, message: "Another call" },
  ]);
  const { related: _, ...plain } = diagnostic;
  assert.equal("relatedInformation" in toLspDiagnostic(uri, plain), false);
});
