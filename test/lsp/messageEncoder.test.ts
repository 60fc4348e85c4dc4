/**
 * The JSON the server writes over stdio: a publishDiagnostics built from each diagnostic's JSON,
 * kept from its first publication, reads back as the message itself, whatever the list holds; every
 * other message is written as `JSON.stringify` writes it.
 */
import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { describe, test } from "node:test";
import { StreamMessageReader, type Diagnostic as LspDiagnostic, type Message } from "vscode-languageserver/node";
import { toLspDiagnostic } from "../../server/src/lsp/diagnostics";
import { MessageEncoder, MIN_CACHED_LIST_LENGTH, StreamFrameWriter } from "../../server/src/lsp/messageEncoder";
import { Random } from "../bench/random";

/** The JSON text of a framed message, checked against its header. */
function text(encoder: MessageEncoder, message: Message): string {
  const frame = encoder.frame(message);
  const end = frame.indexOf("\r\n\r\n");
  const header = frame.subarray(0, end).toString("latin1");
  const content = frame.subarray(end + 4);
  assert.equal(header, `Content-Length: ${content.length}`);
  return content.toString("utf8");
}

const URI = "file:///dags/encoder.py";

function diagnostic(line: number, message = `found "here" at ${line}\n\u00e9\u2028`, related = false): LspDiagnostic {
  const range = { start: { line, character: 4 }, end: { line, character: 9 } };
  return toLspDiagnostic(URI, { code: "AS101", severity: "warning", message, range, related: related ? { message: "Another call", ranges: [range, { ...range, start: { line: line + 2, character: 0 } }] } : undefined });
}

function publish(diagnostics: LspDiagnostic[], version?: number, uri = URI): Message {
  const params: Record<string, unknown> = { uri };
  if (version !== undefined) params.version = version;
  params.diagnostics = diagnostics;
  return { jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params } as Message;
}

describe("MessageEncoder", () => {
  test("a publishDiagnostics reads back as the message, with or without a version, empty or not", () => {
    const encoder = new MessageEncoder();
    const long = (first: number) => Array.from({ length: MIN_CACHED_LIST_LENGTH }, (_, i) => diagnostic(first + i, `finding ${i}`, i % 7 === 0));
    for (const message of [publish([diagnostic(1), diagnostic(3, "plain", true)], 7), publish([], 2), publish([diagnostic(5)]), publish([]), publish(long(0), 3), publish([diagnostic(1), ...long(4)])]) {
      assert.deepEqual(JSON.parse(text(encoder, message)), JSON.parse(JSON.stringify(message)));
    }
  });

  test("a diagnostic kept from one list to the next is written the same in both", () => {
    const encoder = new MessageEncoder();
    const kept = [diagnostic(1), diagnostic(2, "two", true), ...Array.from({ length: MIN_CACHED_LIST_LENGTH }, (_, i) => diagnostic(10 + i))];
    const first = text(encoder, publish(kept, 1));
    const second = text(encoder, publish([...kept, diagnostic(40)], 2));
    assert.deepEqual(JSON.parse(first).params.diagnostics, JSON.parse(JSON.stringify(kept)));
    assert.deepEqual(JSON.parse(second).params.diagnostics, JSON.parse(JSON.stringify([...kept, diagnostic(40)])));
  });

  test("lists that change as edits change them are written as JSON.stringify writes them, for several documents", () => {
    const random = new Random(9);
    const encoder = new MessageEncoder();
    const uris = [URI, "file:///dags/other.py"];
    const lists = new Map(uris.map((uri) => [uri, Array.from({ length: MIN_CACHED_LIST_LENGTH + 20 }, (_, i) => diagnostic(i, `finding ${i}`, i % 5 === 0))]));
    let made = 1000;
    const fresh = () => diagnostic(made++, `new finding ${made}`, random.chance(0.3));
    for (let round = 0; round < 300; round++) {
      const uri = random.pick(uris);
      let list = [...lists.get(uri)!];
      const at = random.int(0, list.length);
      const edit = random.int(0, 6);
      if (edit === 0) list.splice(at, random.int(1, 3), ...Array.from({ length: random.int(0, 3) }, fresh));
      else if (edit === 1) list.splice(at, 0, ...Array.from({ length: random.int(1, 3) }, fresh));
      else if (edit === 2) list.splice(at, random.int(1, 5));
      // Findings after the edit moved a line: new objects, as DiagnosticLists makes them.
      else if (edit === 3) list = [...list.slice(0, at), ...list.slice(at).map((d) => ({ ...d, range: { start: { ...d.range.start, line: d.range.start.line + 1 }, end: { ...d.range.end, line: d.range.end.line + 1 } } }))];
      // Two places changed at once, one finding written twice, the list reversed: whatever an update makes.
      else if (edit === 4) list = list.map((d, i) => (i === at || i === (at * 7) % list.length ? fresh() : d));
      else if (edit === 5) list.splice(at, 0, list[Math.min(at, list.length - 1)]);
      else list.reverse();
      // Now and then a short list (a document with few findings left, or closed), then long ones again.
      if (random.chance(0.05)) list = list.slice(0, random.int(0, MIN_CACHED_LIST_LENGTH - 1));
      while (list.length < MIN_CACHED_LIST_LENGTH && random.chance(0.9)) list.push(fresh());
      lists.set(uri, list);
      const message = publish(list, round, uri);
      assert.equal(text(encoder, message), JSON.stringify(message), `round ${round}, edit ${edit}`);
    }
  });

  test("other messages are written as JSON.stringify writes them", () => {
    const encoder = new MessageEncoder();
    const messages = [
      { jsonrpc: "2.0", id: 3, result: { capabilities: { hoverProvider: true } } },
      { jsonrpc: "2.0", method: "window/logMessage", params: { type: 3, message: "hi" } },
      { jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params: { uri: URI, diagnostics: "not a list" } },
    ] as unknown as Message[];
    for (const message of messages) assert.equal(text(encoder, message), JSON.stringify(message));
  });

  test("the writer's messages reach a reader intact, in order", async () => {
    const stream = new PassThrough();
    const writer = new StreamFrameWriter(stream);
    const reader = new StreamMessageReader(stream);
    const received: Message[] = [];
    const all = new Promise<void>((resolve) =>
      reader.listen((message) => {
        received.push(message);
        if (received.length === 3) resolve();
      }),
    );
    const kept = Array.from({ length: MIN_CACHED_LIST_LENGTH }, (_, i) => diagnostic(i, `caf\u00e9 \u{1F600} ${i}`));
    const sent = [publish(kept, 1), { jsonrpc: "2.0", id: 1, result: null } as Message, publish([...kept, diagnostic(900)], 2)];
    for (const message of sent) await writer.write(message);
    await all;
    assert.deepEqual(received, JSON.parse(JSON.stringify(sent)));
    reader.dispose();
    writer.dispose();
  });

  test("a failed write rejects and is reported to the connection", async () => {
    const broken = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error("pipe closed")) });
    broken.on("error", () => undefined);
    const writer = new StreamFrameWriter(broken);
    const reported: string[] = [];
    writer.onError(([error]) => reported.push(error.message));
    await assert.rejects(writer.write(publish([], 1)), /pipe closed/);
    assert.ok(reported.includes("pipe closed"));
    writer.dispose();
  });
});
