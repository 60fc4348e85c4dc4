/**
 * The open Python documents as the connection thread sees them: version and text, kept with the
 * same incremental changes the worker applies to its syntax trees. The text here is what a new
 * worker is given after a crash and what the size limit is checked against; linting never reads it.
 */
import { TextDocument } from "vscode-languageserver-textdocument";
import type { DidChangeTextDocumentParams, TextDocumentItem } from "vscode-languageserver";
import { LARGE_DOCUMENT_CHARACTERS } from "./workerLanes";

export class OpenDocument {
  constructor(private content: TextDocument) {}

  get uri(): string {
    return this.content.uri;
  }

  get version(): number {
    return this.content.version;
  }

  get text(): string {
    return this.content.getText();
  }

  apply(params: DidChangeTextDocumentParams): void {
    this.content = TextDocument.update(this.content, params.contentChanges, params.textDocument.version);
  }
}

export class OpenDocuments {
  private readonly byUri = new Map<string, OpenDocument>();

  /** Undefined for documents that are not Python: the server leaves them alone. */
  open(item: TextDocumentItem): OpenDocument | undefined {
    if (item.languageId !== "python") return undefined;
    const content = TextDocument.create(item.uri, item.languageId, item.version, item.text);
    // Its line index is built now rather than by the first change, which needs it to place the
    // change: about 4 ms of the first keystroke. Not a large document's: at its opening that would
    // hold up the keystrokes of the other documents (10 ms for a 50,000-line DAG), at its own first
    // change it only delays that change.
    if (item.text.length < LARGE_DOCUMENT_CHARACTERS) void content.lineCount;
    const document = new OpenDocument(content);
    this.byUri.set(item.uri, document);
    return document;
  }

  get(uri: string): OpenDocument | undefined {
    return this.byUri.get(uri);
  }

  close(uri: string): boolean {
    return this.byUri.delete(uri);
  }

  all(): OpenDocument[] {
    return [...this.byUri.values()];
  }
}
