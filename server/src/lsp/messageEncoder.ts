/**
 * The messages the server writes over stdio. LSP's publishDiagnostics carries a document's whole
 * list on every keystroke (about 4 MB for 8,500 findings), although an edit leaves almost every
 * finding as it was: the connection thread keeps the LSP objects of the findings an update did not
 * touch (diagnosticUpdates.ts). So each diagnostic object of a long list is serialised once, when
 * it is first published, and a list is written by copying the bytes of its diagnostics' JSON one
 * after the other; every other message is `JSON.stringify`'d as vscode-jsonrpc does it. Each
 * message goes to the stream in one write, header and content together, where vscode-jsonrpc's
 * writer makes two (and waits for the first): the client is woken once per message.
 *
 * This relies on a published diagnostic object never being changed afterwards: a changed finding
 * is a new object (`DiagnosticLists` makes moved ones anew, `toLspDiagnostic` new ones).
 */
import { AbstractMessageWriter, Diagnostic as LspDiagnostic, MessageWriter, PublishDiagnosticsNotification, PublishDiagnosticsParams } from "vscode-languageserver/node";
import type { Message, NotificationMessage } from "vscode-languageserver/node";

/**
 * Lists shorter than this are serialised whole each time: their JSON costs well under a
 * millisecond, less than keeping it would cost in memory across hundreds of open documents.
 */
export const MIN_CACHED_LIST_LENGTH = 100;

export class MessageEncoder {
  /** The UTF-8 JSON of each diagnostic of a long list published so far, for as long as a list holds it. */
  private readonly serialised = new WeakMap<LspDiagnostic, Uint8Array>();

  /** The message as it goes on the stream: its Content-Length header, then its UTF-8 JSON, which parses to what `JSON.stringify(message)` does. */
  frame(message: Message): Buffer {
    const parts = this.jsonParts(message);
    let length = 0;
    for (const part of parts) length += part.length;
    const header = `Content-Length: ${length}\r\n\r\n`;
    const frame = Buffer.allocUnsafe(header.length + length);
    let offset = frame.write(header, 0, "latin1");
    for (const part of parts) {
      frame.set(part, offset);
      offset += part.length;
    }
    return frame;
  }

  /** The message's UTF-8 JSON, in parts to be written one after the other. */
  private jsonParts(message: Message): Uint8Array[] {
    if (!isPublishDiagnostics(message) || message.params.diagnostics.length < MIN_CACHED_LIST_LENGTH) return [Buffer.from(JSON.stringify(message), "utf8")];
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
    return parts;
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

/** Writes LSP messages to a stream (the server's stdout), each in one write, in the order given. */
export class StreamFrameWriter extends AbstractMessageWriter implements MessageWriter {
  private readonly encoder = new MessageEncoder();
  private errorCount = 0;

  constructor(private readonly stream: NodeJS.WritableStream) {
    super();
    stream.on("error", (error: Error) => this.fireError(error));
    stream.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    let frame: Buffer;
    try {
      frame = this.encoder.frame(message);
    } catch (error) {
      this.fireError(error);
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.stream.write(frame, (error?: Error | null) => {
        if (!error) return resolve();
        this.fireError(error, message, ++this.errorCount);
        reject(error);
      });
    });
  }

  end(): void {
    this.stream.end();
  }
}

function isPublishDiagnostics(message: Message): message is NotificationMessage & { params: PublishDiagnosticsParams } {
  const notification = message as NotificationMessage;
  if (notification.method !== PublishDiagnosticsNotification.method) return false;
  const params = notification.params as Partial<PublishDiagnosticsParams> | undefined;
  return typeof params === "object" && params !== null && Array.isArray(params.diagnostics) && Object.keys(message).at(-1) === "params";
}
