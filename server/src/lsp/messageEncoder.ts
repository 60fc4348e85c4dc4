/**
 * The JSON of the messages the server writes over stdio. LSP's publishDiagnostics carries a
 * document's whole list on every keystroke (about 4 MB for 8,500 findings), although an edit
 * leaves almost every finding as it was: the connection thread keeps the LSP objects of the
 * findings an update did not touch (diagnosticUpdates.ts). So each diagnostic object is
 * serialised once, when it is first published, and a list is written by copying the bytes of its
 * diagnostics' JSON one after the other; every other message is `JSON.stringify`'d as vscode-jsonrpc does it.
 *
 * This relies on a published diagnostic object never being changed afterwards: a changed finding
 * is a new object (`DiagnosticLists` makes moved ones anew, `toLspDiagnostic` new ones).
 */
import { Diagnostic as LspDiagnostic, PublishDiagnosticsNotification, PublishDiagnosticsParams, StreamMessageWriter } from "vscode-languageserver/node";
import type { Message, NotificationMessage } from "vscode-languageserver/node";

/**
 * Lists shorter than this are serialised whole each time: their JSON costs well under a
 * millisecond, less than keeping it would cost in memory across hundreds of open documents.
 */
export const MIN_CACHED_LIST_LENGTH = 100;

/** A vscode-jsonrpc `ContentTypeEncoder` for UTF-8. */
export class MessageEncoder {
  readonly name = "application/json";
  /** The UTF-8 JSON of each diagnostic published so far, for as long as a list holds it. */
  private readonly serialised = new WeakMap<LspDiagnostic, Uint8Array>();

  encode(message: Message): Promise<Uint8Array> {
    return Promise.resolve(this.bytes(message));
  }

  /** The message as UTF-8 JSON text: what `JSON.stringify(message)` parses back to. */
  bytes(message: Message): Uint8Array {
    if (!isPublishDiagnostics(message) || message.params.diagnostics.length < MIN_CACHED_LIST_LENGTH) return Buffer.from(JSON.stringify(message), "utf8");
    const { diagnostics, ...rest } = message.params;
    const others = JSON.stringify(rest);
    // `params` is the message's last member, so the JSON of the message without it ends in `"params":0}`.
    const open = `${JSON.stringify({ ...message, params: 0 }).slice(0, -2)}${others === "{}" ? "{" : `${others.slice(0, -1)},`}"diagnostics":[`;
    const parts: Uint8Array[] = [Buffer.from(open, "utf8")];
    for (let i = 0; i < diagnostics.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(this.diagnosticBytes(diagnostics[i]));
    }
    parts.push(CLOSE);
    let length = 0;
    for (const part of parts) length += part.length;
    const bytes = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    return bytes;
  }

  private diagnosticBytes(diagnostic: LspDiagnostic): Uint8Array {
    if (typeof diagnostic !== "object" || diagnostic === null) return Buffer.from(JSON.stringify(diagnostic) ?? "null", "utf8");
    let bytes = this.serialised.get(diagnostic);
    if (bytes === undefined) this.serialised.set(diagnostic, (bytes = Buffer.from(JSON.stringify(diagnostic), "utf8")));
    return bytes;
  }
}

const COMMA = Buffer.from(",", "utf8");
/** Closes the list, the params and the message. */
const CLOSE = Buffer.from("]}}", "utf8");

/** A writer of LSP messages to `stream` that serialises each published diagnostic once. */
export function diagnosticsCachingWriter(stream: NodeJS.WritableStream): StreamMessageWriter {
  // The encoder writes UTF-8 whatever it is asked for, so the writer must announce that charset.
  return new StreamMessageWriter(stream, { charset: "utf-8", contentTypeEncoder: new MessageEncoder() });
}

function isPublishDiagnostics(message: Message): message is NotificationMessage & { params: PublishDiagnosticsParams } {
  const notification = message as NotificationMessage;
  if (notification.method !== PublishDiagnosticsNotification.method) return false;
  const params = notification.params as Partial<PublishDiagnosticsParams> | undefined;
  return typeof params === "object" && params !== null && Array.isArray(params.diagnostics) && Object.keys(message).at(-1) === "params";
}
