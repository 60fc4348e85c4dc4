/**
 * The messages the server writes over stdio. LSP's publishDiagnostics carries a document's whole
 * list on every keystroke (about 4 MB for 8,500 findings), although an edit leaves almost every
 * finding as it was: the connection thread keeps the LSP objects of the findings an update did not
 * touch (diagnosticUpdates.ts). So the encoder keeps, for each document with a long list, the JSON
 * of the list it wrote last, and writes the next list by copying the runs of diagnostics the two
 * lists share from it (typically two: before and after the edit) and serialising only the others.
 * Copying each diagnostic's bytes on its own cost more than the lint of a keystroke (about 4 ms
 * for 8,500). Every other message is `JSON.stringify`'d as vscode-jsonrpc does it. Each message
 * goes to the stream in one write, header and content together, where vscode-jsonrpc's writer
 * makes two (and waits for the first): the client is woken once per message.
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

/** A list as it was last written for a document: its diagnostics, and where each one's JSON is in `json`. */
interface WrittenList {
  diagnostics: readonly LspDiagnostic[];
  /** The frame written, which holds every diagnostic's JSON. */
  json: Uint8Array;
  starts: Uint32Array;
  ends: Uint32Array;
}

/** `count` diagnostics in a row of the list written last, from its `first`. */
interface KeptRun {
  kept: WrittenList;
  first: number;
  count: number;
}

/** Part of a list's JSON: a run of the list written last, or one diagnostic serialised now. */
type Piece = KeptRun | { bytes: Uint8Array };

export class MessageEncoder {
  /** The long list written last for each document, by URI; a short list, as a closed document's empty one, lets it go. */
  private readonly written = new Map<string, WrittenList>();

  /** The message as it goes on the stream: its Content-Length header, then its UTF-8 JSON, which parses to what `JSON.stringify(message)` does. */
  frame(message: Message): Buffer {
    if (!isPublishDiagnostics(message)) return framed(message);
    const { uri, diagnostics } = message.params;
    if (diagnostics.length < MIN_CACHED_LIST_LENGTH || typeof uri !== "string") {
      if (typeof uri === "string") this.written.delete(uri);
      return framed(message);
    }
    const { diagnostics: _, ...rest } = message.params;
    const others = JSON.stringify(rest);
    // `params` is the message's last member, so the JSON of the message without it ends in `"params":0}`.
    const open = Buffer.from(`${JSON.stringify({ ...message, params: 0 }).slice(0, -2)}${others === "{}" ? "{" : `${others.slice(0, -1)},`}"diagnostics":[`, "utf8");
    const pieces = piecesOf(diagnostics, this.written.get(uri));
    // Runs of the last list bring the commas between their diagnostics along.
    let length = open.length + CLOSE.length + pieces.length - 1;
    for (const piece of pieces) length += bytesOf(piece).length;
    const header = `Content-Length: ${length}\r\n\r\n`;
    const frame = Buffer.allocUnsafe(header.length + length);
    let offset = frame.write(header, 0, "latin1");
    frame.set(open, offset);
    offset += open.length;
    const starts = new Uint32Array(diagnostics.length);
    const ends = new Uint32Array(diagnostics.length);
    let index = 0;
    for (const piece of pieces) {
      if (index > 0) frame[offset++] = COMMA;
      const bytes = bytesOf(piece);
      frame.set(bytes, offset);
      if ("kept" in piece) {
        const shift = offset - piece.kept.starts[piece.first];
        for (let k = 0; k < piece.count; k++) {
          starts[index + k] = piece.kept.starts[piece.first + k] + shift;
          ends[index + k] = piece.kept.ends[piece.first + k] + shift;
        }
        index += piece.count;
      } else {
        starts[index] = offset;
        ends[index] = offset + bytes.length;
        index++;
      }
      offset += bytes.length;
    }
    frame.set(CLOSE, offset);
    this.written.set(uri, { diagnostics, json: frame, starts, ends });
    return frame;
  }
}

/** Where the JSON of each diagnostic of `diagnostics` comes from: runs of those `last` wrote, one piece each, and the others serialised. */
function piecesOf(diagnostics: readonly LspDiagnostic[], last: WrittenList | undefined): Piece[] {
  const pieces: Piece[] = [];
  let run: KeptRun | undefined;
  for (let i = 0; i < diagnostics.length; i++) {
    const diagnostic = diagnostics[i];
    if (run && run.kept.diagnostics[run.first + run.count] === diagnostic) {
      run.count++;
      continue;
    }
    const at = last && positionIn(last, diagnostic, i, i + last.diagnostics.length - diagnostics.length);
    if (at !== undefined) {
      run = { kept: last!, first: at, count: 1 };
      pieces.push(run);
    } else {
      run = undefined;
      pieces.push({ bytes: Buffer.from(JSON.stringify(diagnostic) ?? "null", "utf8") });
    }
  }
  return pieces;
}

/** A piece's bytes: for kept diagnostics, the span of the last frame from the first one's start to the last one's end. */
function bytesOf(piece: Piece): Uint8Array {
  if (!("kept" in piece)) return piece.bytes;
  return piece.kept.json.subarray(piece.kept.starts[piece.first], piece.kept.ends[piece.first + piece.count - 1]);
}

/**
 * Where `diagnostic` is in the list `last` wrote, if it is where an edit leaves it: at the same
 * index (before the findings the edit changed) or as far from the end (after them). A list that
 * changed in several places writes anew the diagnostics between them: the same JSON, a little later.
 */
function positionIn(last: WrittenList, diagnostic: LspDiagnostic, sameIndex: number, fromTheEnd: number): number | undefined {
  if (last.diagnostics[sameIndex] === diagnostic) return sameIndex;
  if (last.diagnostics[fromTheEnd] === diagnostic) return fromTheEnd;
  return undefined;
}

/** The frame of a message serialised whole. */
function framed(message: Message): Buffer {
  const json = Buffer.from(JSON.stringify(message), "utf8");
  const header = `Content-Length: ${json.length}\r\n\r\n`;
  const frame = Buffer.allocUnsafe(header.length + json.length);
  frame.set(json, frame.write(header, 0, "latin1"));
  return frame;
}

/** Separates the diagnostics of a list. */
const COMMA = ",".charCodeAt(0);
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
