/**
 * An open Python file: its text and its syntax tree, kept in step edit by edit.
 * Each content change is mirrored with `tree.edit` onto a base tree that nothing reads, and the file
 * is re-parsed from it so tree-sitter reuses every subtree the edit did not touch. Readers get a
 * tree of their own, parsed from the base: node-tree-sitter's `edit` updates every node a reader
 * ever held (a lint holds thousands), which cost more than the re-parse, while re-parsing an
 * unedited tree reuses its root at once (about 1/500 of a full parse). A document made to be read
 * once (`forReading`: a file the CLI checks) keeps no base tree; its text is parsed once.
 */
import { TextDocument } from "vscode-languageserver-textdocument";
import { parsePython, Point, Tree } from "./parser";
import { withLineFeeds } from "./lineBreaks";
import { Position, Range } from "../types";

export interface ContentChange {
  /** Absent: the change replaces the whole text. */
  range?: Range;
  text: string;
}

/** A cheap gate: a file that never names Airflow or a store cannot misuse one, so it is not parsed. */
const RELEVANT = /airflow|state_store|ResumableJobMixin|external_id_key/;
const CARRIAGE_RETURN = 13;

export class PythonDocument {
  private text: TextDocument;
  /** The tree edits are applied to and re-parsed from; never handed out, so it holds no nodes to update. */
  private baseTree: Tree | undefined;
  /** The tree readers get; dropped at the next edit. */
  private syntaxTree: Tree | undefined;
  private parsedVersion = -1;
  /** Whether edits are expected, so that the base tree is worth keeping. */
  private keepsBaseTree = true;

  constructor(
    readonly uri: string,
    text: string,
    version = 0,
  ) {
    this.text = TextDocument.create(uri, "python", version, text);
  }

  /** A document that is read and not edited: its tree is the only parse. Edited anyway, it is parsed in full again. */
  static forReading(uri: string, text: string): PythonDocument {
    const document = new PythonDocument(uri, text);
    document.keepsBaseTree = false;
    return document;
  }

  get version(): number {
    return this.text.version;
  }

  getText(): string {
    return this.text.getText();
  }

  /** The text the engine analyses and builds fixes from: `getText()` with each lone `\r` read as `\n` (`lineBreaks.ts`). */
  analysedText(): string {
    return withLineFeeds(this.text.getText());
  }

  get lineCount(): number {
    return this.text.lineCount;
  }

  positionAt(offset: number): Position {
    return this.text.positionAt(offset);
  }

  offsetAt(position: Position): number {
    return this.text.offsetAt(position);
  }

  lineText(line: number): string {
    return this.text.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$|\r$/, "");
  }

  /** Whether the document holds a syntax tree (it was parsed since it was made or last replaced its whole text). */
  get holdsTree(): boolean {
    return this.syntaxTree !== undefined || this.baseTree !== undefined;
  }

  /** Whether the file could use Airflow's state stores at all. */
  isRelevant(): boolean {
    return isRelevantText(this.text.getText());
  }

  /** The syntax tree of the current text, parsed incrementally from the previous one when there is one. */
  get tree(): Tree {
    if (!this.syntaxTree || this.parsedVersion !== this.text.version) {
      const text = this.text.getText();
      if (this.keepsBaseTree) {
        this.baseTree = parsePython(text, this.baseTree);
        this.syntaxTree = parsePython(text, this.baseTree);
      } else {
        this.syntaxTree = parsePython(text);
      }
      this.parsedVersion = this.text.version;
    }
    return this.syntaxTree;
  }

  /** Applies changes in order, as LSP's incremental sync sends them. */
  update(changes: ContentChange[], version: number): void {
    for (const change of changes) {
      if (!change.range) {
        this.baseTree = this.syntaxTree = undefined;
        this.text = TextDocument.update(this.text, [{ text: change.text }], version);
        continue;
      }
      const editStart = this.text.offsetAt(change.range.start);
      const oldEndIndex = this.text.offsetAt(change.range.end);
      // A `\r` right before the edit is parsed as a line feed or not depending on what follows it,
      // which the edit may change: the tree is told that it changed too.
      const startIndex = editStart > 0 && this.text.getText().charCodeAt(editStart - 1) === CARRIAGE_RETURN ? editStart - 1 : editStart;
      const startPosition = this.text.positionAt(startIndex);
      const oldEndPosition = this.text.positionAt(oldEndIndex);
      this.text = TextDocument.update(this.text, [{ range: change.range, text: change.text }], version);
      const newEndIndex = editStart + change.text.length;
      this.syntaxTree = undefined;
      if (this.baseTree) {
        this.baseTree.edit({
          startIndex,
          oldEndIndex,
          newEndIndex,
          startPosition: toPoint(startPosition),
          oldEndPosition: toPoint(oldEndPosition),
          newEndPosition: toPoint(this.text.positionAt(newEndIndex)),
        });
      }
    }
    // An unchanged version number after an edit would make `tree` return the stale parse.
    if (this.text.version === this.parsedVersion) this.parsedVersion = -1;
  }
}

/** `PythonDocument.isRelevant` of a text, for a caller that may not need the document at all (the CLI, when its cache answers). */
export function isRelevantText(text: string): boolean {
  return RELEVANT.test(text);
}

function toPoint(position: Position): Point {
  return { row: position.line, column: position.character };
}
