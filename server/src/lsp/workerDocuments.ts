/**
 * The lint worker's open documents, and which of them keep a syntax tree between requests. A tree
 * costs far more memory than its text (tens of kilobytes for a 60-line DAG), and it only pays for a
 * document being edited, where each change re-parses incrementally from it. So only the few
 * documents changed most recently, and within the last IDLE_TREE_MS, keep theirs, and the document
 * opened last until another is opened; any other document is settled back to its text after each
 * use and parsed again, in full, when next needed. The document opened last counts as edited when
 * it is long enough for that to pay (KEPT_FROM_OPENING_CHARACTERS): its first keystroke would
 * otherwise parse the old text and the new one in full before its lint (14 ms of a 1,000-line
 * DAG's 22), and a document is mostly opened to be read or edited right away. One document, not
 * the few edited ones, and none of a few dozen lines, whose parses cost a millisecond: a tree kept
 * after a lint keeps every node object the lint made (500 opened DAGs of 60 lines held 3 MB more
 * when the last four kept theirs). A large document (LARGE_DOCUMENT_CHARACTERS) counts as edited
 * from its opening until it is idle, whatever is opened after it: its re-parse in full would cost
 * hundreds of milliseconds.
 * Every open document keeps its last lint's findings (`IncrementalLinter`), so that a lint after a
 * change inside one function re-checks that function; the lint's tree goes with the document's.
 * The same findings answer the document's code actions, with the options they were found with, to
 * make the fixes' edits of those a code action asks about (kept until the next lint); the next
 * lint's findings are sent to the connection thread as a change to them.
 */
import { ContentChange, FindingFixes, FoundDiagnostic, IncrementalLinter, LintOptions, PythonDocument } from "../engine";
import type { SentDiagnostics } from "./diagnosticUpdates";
import { LARGE_DOCUMENT_CHARACTERS } from "./workerLanes";

/** A document's last findings, the version they were found in, and the number of their list among those sent for it. */
export interface LastLint extends SentDiagnostics {
  version: number;
  /** The options of the lint; none when it did not run (the file is excluded). */
  options?: LintOptions;
  /** The fixes, with their edits, made so far for code actions on these findings. */
  fixes: Map<FoundDiagnostic, FindingFixes | undefined>;
}

/** Documents edited in turn (a few editors side by side) that all keep their trees. */
export const MAX_EDITED_TREES = 4;

/** About 500 lines: a document this long opened last keeps its tree (two full parses of it cost some 5 ms). */
export const KEPT_FROM_OPENING_CHARACTERS = 20_000;

/** A document not changed for this long is no longer being edited. */
export const IDLE_TREE_MS = 60_000;

export class WorkerDocuments {
  private readonly byUri = new Map<string, PythonDocument>();
  private readonly linters = new Map<string, IncrementalLinter>();
  private readonly lastLints = new Map<string, LastLint>();
  /** The documents being edited, with the time of their last change, least recent first. */
  private readonly edited = new Map<string, number>();
  /** The document opened last, when it keeps its tree only until another is opened (long enough, not large, not changed since). */
  private openedLast: string | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;

  /** `treeReleased` is told of every tree a document lets go, to collect them (treeCollector.ts). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly treeReleased: () => void = () => {},
  ) {}

  get(uri: string): PythonDocument | undefined {
    return this.byUri.get(uri);
  }

  has(uri: string): boolean {
    return this.byUri.has(uri);
  }

  open(uri: string, text: string, version: number): void {
    this.byUri.set(uri, new PythonDocument(uri, text, version));
    this.edited.delete(uri);
    this.linters.delete(uri);
    this.lastLints.delete(uri);
    const before = this.openedLast;
    const large = text.length >= LARGE_DOCUMENT_CHARACTERS;
    const kept = large || text.length >= KEPT_FROM_OPENING_CHARACTERS;
    this.openedLast = kept && !large ? uri : undefined;
    if (before !== undefined && before !== uri && this.edited.delete(before)) this.withoutTree(before);
    if (kept) this.markEdited(uri);
  }

  /** The linter that keeps the document's last lint (with its tree only while the document is being edited). */
  linterFor(uri: string): IncrementalLinter | undefined {
    if (!this.byUri.has(uri)) return undefined;
    let linter = this.linters.get(uri);
    if (!linter) this.linters.set(uri, (linter = new IncrementalLinter()));
    return linter;
  }

  /** Applies the changes; throws when they cannot be (the document is then dropped and must be opened again). */
  change(uri: string, changes: ContentChange[], version: number): void {
    const document = this.byUri.get(uri);
    if (!document) return;
    try {
      document.update(changes, version);
    } catch (error) {
      this.close(uri);
      throw error;
    }
    if (this.openedLast === uri) this.openedLast = undefined;
    this.markEdited(uri);
  }

  private markEdited(uri: string): void {
    this.edited.delete(uri);
    this.edited.set(uri, this.now());
    for (const [earliest] of this.edited) {
      if (this.edited.size <= MAX_EDITED_TREES) break;
      this.edited.delete(earliest);
      this.withoutTree(earliest);
    }
    this.scheduleSweep();
  }

  close(uri: string): void {
    if (this.openedLast === uri) this.openedLast = undefined;
    this.byUri.delete(uri);
    this.edited.delete(uri);
    this.linters.delete(uri);
    this.lastLints.delete(uri);
  }

  /** Remembers what a lint of the document at `version` with `options` found, sent to the connection thread as list number `id`. */
  linted(uri: string, version: number, id: number, findings: readonly FoundDiagnostic[], options?: LintOptions): void {
    if (this.byUri.has(uri)) this.lastLints.set(uri, { version, id, findings, options, fixes: new Map() });
  }

  /** The document's last lint, as sent to the connection thread. */
  lastLint(uri: string): LastLint | undefined {
    return this.lastLints.get(uri);
  }

  /** Whether the document keeps its tree between requests. */
  isBeingEdited(uri: string): boolean {
    const changed = this.edited.get(uri);
    return changed !== undefined && this.now() - changed < IDLE_TREE_MS;
  }

  /** After a request used the document: unless it is being edited, lets its tree go (and answers true). */
  settle(uri: string): boolean {
    return !this.isBeingEdited(uri) && this.withoutTree(uri);
  }

  /** Lets the trees of documents no longer being edited go. */
  sweep(): void {
    for (const uri of [...this.edited.keys()]) {
      if (this.isBeingEdited(uri)) continue;
      this.edited.delete(uri);
      this.withoutTree(uri);
    }
    if (this.edited.size > 0) this.scheduleSweep();
  }

  dispose(): void {
    clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** PythonDocument parses lazily: a fresh one over the same text holds no tree until asked for one. */
  private withoutTree(uri: string): boolean {
    const document = this.byUri.get(uri);
    if (!document) return false;
    this.byUri.set(uri, new PythonDocument(uri, document.getText(), document.version));
    this.linters.get(uri)?.releaseTree();
    if (document.holdsTree) this.treeReleased();
    return true;
  }

  private scheduleSweep(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = undefined;
      this.sweep();
    }, IDLE_TREE_MS);
    this.sweepTimer.unref();
  }
}
