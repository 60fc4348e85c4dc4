/**
 * A short seeded fuzz of the language server's incremental sync: random edits (inserted and deleted
 * text, line breaks of every kind, `# noqa`, brackets) sent as incremental changes, some several in
 * one notification, then the diagnostics of the edited document must equal those of the same text
 * opened fresh. The edits of a lone `\r` next to a `\n` are among them, where the tree is told a
 * wider change than the edit (syntax/document.ts).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TextDocument } from "vscode-languageserver-textdocument";
import { Random } from "../bench/random";
import { seedTexts } from "../fuzz/mutations";
import { fileUri, LspSession } from "./session";

const SEED = 7_2026;
const DOCUMENTS = 6;
const EDITS_PER_DOCUMENT = 25;
const PIECES = ["\n", "\r", "\r\n", "\\\n", "  # noqa: AS101", "  # noqa", "(", ")", "[", "]", "'", '"', "    ", "None", "datetime.now()", "task_state_store.set(\"k\", ", "x", ""];

let session: LspSession;
before(async () => {
  session = await LspSession.start({ initializationOptions: { trusted: false } });
});
after(async () => {
  await session.shutdown();
});

const shown = (diagnostics: { code?: unknown; range: unknown; message: unknown }[]) => diagnostics.map((d) => JSON.stringify([d.code, d.range, d.message])).sort();

test(`${DOCUMENTS} documents, ${EDITS_PER_DOCUMENT} incremental changes each: the diagnostics equal a fresh open's`, { timeout: 120_000 }, async () => {
  const random = new Random(SEED);
  const seeds = seedTexts().filter((text) => text.length < 6000);
  for (let d = 0; d < DOCUMENTS; d++) {
    const uri = fileUri(`/fuzz/edited_${d}.py`);
    let text = random.pick(seeds);
    if (random.chance(0.5)) text = text.replace(/\n/g, () => random.pick(["\n", "\r", "\r\n"]));
    await session.open(uri, text);
    let document = TextDocument.create(uri, "python", 1, text);
    let edited = await session.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "" }]);
    for (let e = 0; e < EDITS_PER_DOCUMENT; e++) {
      const changes = Array.from({ length: random.int(1, 3) }, () => {
        // Positions as the client counts them in the text each change applies to.
        const length = document.getText().length;
        const start = random.int(0, length);
        const end = Math.min(length, start + (random.chance(0.5) ? 0 : random.int(1, 12)));
        const change = { range: { start: document.positionAt(start), end: document.positionAt(end) }, text: random.pick(PIECES) };
        document = TextDocument.update(document, [change], document.version);
        return change;
      });
      edited = await session.change(uri, changes);
    }
    const fresh = fileUri(`/fuzz/fresh_${d}.py`);
    const opened = await session.open(fresh, document.getText());
    assert.deepEqual(shown(edited.diagnostics), shown(opened.diagnostics), `document ${d} after its edits:\n${JSON.stringify(document.getText())}`);
  }
});
