/**
 * A soak of the language server as an editor session strains it: many documents opened at once,
 * typed in by turns (some changes superseded before their lint), closed and opened again, a large
 * one in the slow worker, code actions along the way, then shutdown. The workers' heap limits
 * (lintWorkerPool.ts) and the diagnostics sent as changes (diagnosticUpdates.ts) must leave every
 * document's diagnostics as a fresh open of the same text gives them, and the process must exit
 * cleanly with nothing in the error log.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CodeAction, Diagnostic, TextDocumentContentChangeEvent } from "vscode-languageserver-protocol/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { exampleDags, storeDenseDag } from "../bench/benchFiles";
import { Random } from "../bench/random";
import { fileUri, LspSession } from "./session";

const DOCUMENTS = 120;
const TYPED = 12;
const KEYSTROKES = 8;
const PIECES = ["\n", "    ", "x", "None", "datetime.now()", "# ", "(", ")", ""];

let session: LspSession;
before(async () => {
  session = await LspSession.start({ initializationOptions: { trusted: false } });
});
after(() => session.dispose());

const shown = (diagnostics: Diagnostic[]) => diagnostics.map((d) => JSON.stringify([d.code, d.range, d.message, d.relatedInformation ?? null])).sort();

/** A random keystroke in `text`, as the client sends it. */
function keystroke(random: Random, document: TextDocument): TextDocumentContentChangeEvent {
  const offset = random.int(0, document.getText().length);
  const end = random.chance(0.3) ? Math.min(document.getText().length, offset + random.int(1, 4)) : offset;
  return { range: { start: document.positionAt(offset), end: document.positionAt(end) }, text: random.pick(PIECES) };
}

async function sameAsFresh(uri: string, diagnostics: Diagnostic[], label: string): Promise<void> {
  const fresh = fileUri(`/soak/fresh/${encodeURIComponent(uri)}.py`);
  const opened = await session.open(fresh, session.text(uri));
  assert.deepEqual(shown(diagnostics), shown(opened.diagnostics), `${label}: ${uri}`);
  session.close(fresh);
}

test(`${DOCUMENTS} documents opened at once, typed in, closed and opened again, then shutdown`, { timeout: 180_000 }, async () => {
  const random = new Random(31);
  const texts = exampleDags();
  const uris = Array.from({ length: DOCUMENTS }, (_, i) => fileUri(`/soak/dag_${i}.py`));
  const first = await Promise.all(uris.map((uri, i) => session.open(uri, texts[i % texts.length])));
  first.forEach((published, i) => assert.equal(published.version, 1, uris[i]));

  // A large document lives in the slow worker meanwhile.
  const large = fileUri("/soak/large.py");
  await session.open(large, storeDenseDag(12_000), 1);

  // Keystrokes by turns in several documents: each sent without waiting, so lints are superseded.
  const typed = random.sample(uris, TYPED);
  const documents = new Map([...typed, large].map((uri) => [uri, TextDocument.create(uri, "python", 1, session.text(uri))]));
  const lastVersions = new Map<string, number>();
  for (let k = 0; k < KEYSTROKES; k++) {
    for (const uri of [...typed, large]) {
      const document = documents.get(uri)!;
      const change = keystroke(random, document);
      documents.set(uri, TextDocument.update(document, [change], document.version + 1));
      lastVersions.set(uri, session.changeWithoutWaiting(uri, [change]));
    }
  }
  const settled = await Promise.all([...lastVersions].map(([uri, version]) => session.diagnosticsWhen(uri, (p) => p.version === version, 60_000)));
  for (const published of settled) await sameAsFresh(published.uri, published.diagnostics, "after typing");

  // A code action on a finding of a typed document, applied, is linted like any edit.
  const withFix = settled.find((published) => published.uri !== large && published.diagnostics.length > 0);
  if (withFix) {
    const offered = (await session.codeActions(withFix.uri, { range: withFix.diagnostics[0].range, context: { diagnostics: [withFix.diagnostics[0]] } })) as CodeAction[];
    const suppress = offered.find((action) => action.title.endsWith("suppress on this line"));
    if (suppress?.edit) {
      const after = await session.applyEdit(withFix.uri, suppress.edit);
      await sameAsFresh(withFix.uri, after.diagnostics, "after a suppression");
    }
  }

  // Close most, open some of them again with what they held: each starts over from a whole list.
  const closed = uris.slice(0, DOCUMENTS / 2);
  const texts2 = new Map(closed.map((uri) => [uri, session.text(uri)]));
  for (const uri of closed) session.close(uri);
  session.close(large);
  const reopened = await Promise.all(closed.slice(0, DOCUMENTS / 4).map((uri) => session.open(uri, texts2.get(uri)!, 7)));
  for (const published of reopened.slice(0, 10)) await sameAsFresh(published.uri, published.diagnostics, "reopened");
  const edited = await session.change(reopened[0].uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "\n" }]);
  await sameAsFresh(edited.uri, edited.diagnostics, "reopened and edited");

  assert.deepEqual(session.errorLogs(), [], "nothing failed in the server");
  assert.equal(await session.shutdown(), 0);
  assert.equal(session.serverStderr, "");
});
