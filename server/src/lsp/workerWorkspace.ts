/**
 * The lint worker's workspace index (the classes of the workspace's modules, for rules that follow
 * an operator into another file) and what keeps it current:
 * - files read from disk by the connection thread are queued and summarised in slices of a few
 *   milliseconds, so lint requests arriving meanwhile are answered between two slices;
 * - open documents are summarised from their own syntax tree a moment after they change, and their
 *   text takes precedence over the file on disk until they are closed; while every lint since the
 *   last summary re-checked only an edited function's body, the summary stands (what it holds, the
 *   module's classes, imports and star imports, lies outside function bodies), and building the
 *   whole file's model again, which costs more than the lint on a large file, is skipped; otherwise
 *   the summary is made from the model the last lint of that version built, when it built one;
 * - every lint records the files its resolutions looked at or for; when one of them changes (or the
 *   folders modules are searched in do), the documents that consulted it are reported, to be linted
 *   again.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Consulted, LintMode, MAX_INDEXED_CHARACTERS, WorkspaceClasses, WorkspaceIndex } from "../engine";
import { looksLikeDagFile } from "../engine/workspace/summary";
import { PythonModel } from "../engine/python/model";
import type { WorkerDocuments } from "./workerDocuments";
import type { IndexedFile } from "./workerProtocol";

/** Work done per turn of the event loop before letting waiting messages through. */
const SLICE_MS = 15;

/** Pause after an open document's last change before its summary is refreshed. */
const OPEN_DOCUMENT_DELAY_MS = 200;

/** How often, at most, documents are reported while files are still being indexed (when idle, at once). */
const BUSY_REPORT_INTERVAL_MS = 1000;

type Work = { kind: "update"; file: IndexedFile } | { kind: "remove"; path: string };

export class WorkerWorkspace {
  private readonly index = new WorkspaceIndex();
  private readonly queue: Work[] = [];
  private sliceScheduled = false;
  /** Open documents with a file path, by path; their text is what the index holds for that path. */
  private readonly openPaths = new Map<string, string>();
  private readonly dirtyOpen = new Set<string>();
  private openTimer: NodeJS.Timeout | undefined;
  /** What each open document's last lint consulted. */
  private readonly consultedBy = new Map<string, Consulted>();
  /** What each document's lint before its last consulted: kept again when the last lint ran no rule (`linted`). */
  private readonly consultedBefore = new Map<string, Consulted>();
  private readonly changedPaths = new Set<string>();
  private rootsGeneration = this.index.rootsGeneration;
  private readonly pendingReport = new Set<string>();
  private reportTimer: NodeJS.Timeout | undefined;
  /**
   * Open documents whose summary still describes the version linted last: it was made from a
   * version then linted, and each lint since re-checked one function's body or followed an edit of
   * a comment line. `dagFile` is the one part of a summary read from the whole text.
   */
  private readonly standingSummaries = new Map<string, { version: number; dagFile: boolean }>();
  /** The model the last lint of a document waiting for its summary built: the summary is made from it instead of a model of its own. */
  private readonly lintModels = new Map<string, { version: number; model: PythonModel }>();

  constructor(
    private readonly documents: Pick<WorkerDocuments, "get" | "has" | "isBeingEdited" | "lastLint">,
    private readonly report: (uris: string[]) => void,
    private readonly logError: (message: string) => void,
  ) {}

  setRoots(roots: string[]): void {
    this.index.setRoots(roots);
    this.reportAffected();
  }

  enqueue(files: IndexedFile[]): void {
    for (const file of files) this.queue.push({ kind: "update", file: { path: path.resolve(file.path), text: file.text } });
    this.scheduleSlice();
  }

  remove(paths: string[]): void {
    for (const removed of paths) this.queue.push({ kind: "remove", path: path.resolve(removed) });
    this.scheduleSlice();
  }

  opened(uri: string): void {
    this.standingSummaries.delete(uri);
    this.lintModels.delete(uri);
    const file = filePathOf(uri);
    if (file) this.openPaths.set(file, uri);
    this.changed(uri);
  }

  changed(uri: string): void {
    this.dirtyOpen.add(uri);
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(() => this.refreshOpenDocuments(), OPEN_DOCUMENT_DELAY_MS);
  }

  /** The document's file is read from disk again by the connection thread (or removed) after this. */
  closed(uri: string): void {
    const file = filePathOf(uri);
    if (file && this.openPaths.get(file) === uri) this.openPaths.delete(file);
    this.dirtyOpen.delete(uri);
    this.consultedBy.delete(uri);
    this.consultedBefore.delete(uri);
    this.standingSummaries.delete(uri);
    this.lintModels.delete(uri);
  }

  /**
   * After a lint of the document at `version`, made as `mode` says (undefined: not by its
   * IncrementalLinter), which built `model` of the whole file when a rule asked for one. Told
   * before the documents remember the lint, so that their last lint is still the one before it.
   */
  linted(uri: string, version: number, mode: LintMode | undefined, model?: PythonModel): void {
    // After a comment's edit the findings may all be kept and no rule run, so that nothing was
    // consulted: the findings still rest on what the lint before consulted.
    const before = this.consultedBefore.get(uri);
    this.consultedBefore.delete(uri);
    if (mode === "edited comment" && before && this.consultedBy.get(uri)?.size === 0) this.consultedBy.set(uri, before);
    const standing = this.standingSummaries.get(uri);
    if (standing && standing.version === this.documents.lastLint(uri)?.version && mode !== undefined && mode !== "from scratch") standing.version = version;
    else this.standingSummaries.delete(uri);
    if (model && this.dirtyOpen.has(uri) && this.standingSummaries.get(uri)?.version !== version) this.lintModels.set(uri, { version, model });
    else this.lintModels.delete(uri);
  }

  /** The index as a lint of `uri` sees it, recording what it consults for the next change. */
  forLint(uri: string): WorkspaceClasses {
    const consulted: Consulted = new Set();
    const before = this.consultedBy.get(uri);
    if (before) this.consultedBefore.set(uri, before);
    this.consultedBy.set(uri, consulted);
    return this.index.recording(consulted);
  }

  /** The index for a request whose consultations need not be remembered (fix-all). */
  get classes(): WorkspaceClasses {
    return this.index;
  }

  private scheduleSlice(): void {
    if (this.sliceScheduled) return;
    this.sliceScheduled = true;
    setImmediate(() => {
      this.sliceScheduled = false;
      this.runSlice();
    });
  }

  private runSlice(): void {
    const started = Date.now();
    while (this.queue.length > 0 && Date.now() - started < SLICE_MS) {
      const work = this.queue.shift()!;
      try {
        if (work.kind === "update") {
          // An open document's text is the truth for its path, whatever the disk holds.
          if (this.openPaths.has(work.file.path) || work.file.text.length > MAX_INDEXED_CHARACTERS) continue;
          if (this.index.update(work.file.path, work.file.text)) this.changedPaths.add(work.file.path);
        } else {
          if (this.openPaths.has(work.path)) continue;
          for (const removed of this.index.remove(work.path)) this.changedPaths.add(removed);
          // A folder: the documents that looked for modules below it.
          this.changedPaths.add(work.path);
        }
      } catch (error) {
        this.logError(`Could not index ${work.kind === "update" ? work.file.path : work.path}: ${String(error)}`);
      }
    }
    if (this.queue.length > 0) this.scheduleSlice();
    this.reportAffected();
  }

  /**
   * Summarises an open document now if it changed since its last summary, while the caller still
   * holds its tree: a document that is not being edited lets its tree go after each request, and
   * waiting for the timer would parse it again.
   */
  refreshNow(uri: string): void {
    if (!this.dirtyOpen.delete(uri)) return;
    this.refresh(uri);
    this.reportAffected();
  }

  /** Documents not being edited are left to `refreshNow` at their lint, which holds their tree anyway. */
  private refreshOpenDocuments(): void {
    this.openTimer = undefined;
    for (const uri of this.dirtyOpen) {
      if (!this.documents.isBeingEdited(uri)) continue;
      this.refresh(uri);
      this.dirtyOpen.delete(uri);
    }
    this.reportAffected();
  }

  private refresh(uri: string): void {
    const document = this.documents.get(uri);
    const file = filePathOf(uri);
    if (!document || !file || this.openPaths.get(file) !== uri) return;
    const text = document.getText();
    if (text.length > MAX_INDEXED_CHARACTERS) return;
    const dagFile = looksLikeDagFile(text);
    const standing = this.standingSummaries.get(uri);
    const linted = this.lintModels.get(uri);
    this.lintModels.delete(uri);
    if (standing?.version === document.version && standing.dagFile === dagFile) return;
    this.standingSummaries.delete(uri);
    try {
      const model = linted?.version === document.version ? linted.model : new PythonModel(document.tree, text);
      if (this.index.updateFromModel(file, model)) this.changedPaths.add(file);
      if (this.documents.lastLint(uri)?.version === document.version) this.standingSummaries.set(uri, { version: document.version, dagFile });
    } catch (error) {
      this.logError(`Could not index the open document ${uri}: ${String(error)}`);
    }
  }

  /** Reports the open documents whose last lint consulted a changed file, at once when idle, at most once a second while indexing. */
  private reportAffected(): void {
    const rootsMoved = this.index.rootsGeneration !== this.rootsGeneration;
    this.rootsGeneration = this.index.rootsGeneration;
    if (rootsMoved || this.changedPaths.size > 0) {
      for (const [uri, consulted] of this.consultedBy) {
        if (consulted.size === 0) continue;
        if (rootsMoved || [...this.changedPaths].some((changed) => consulted.has(changed) || isBelowAny(changed, consulted))) this.pendingReport.add(uri);
      }
      this.changedPaths.clear();
    }
    if (this.pendingReport.size === 0) return;
    if (this.queue.length === 0) this.flushReport();
    else if (!this.reportTimer) this.reportTimer = setTimeout(() => this.flushReport(), BUSY_REPORT_INTERVAL_MS);
  }

  private flushReport(): void {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    const uris = [...this.pendingReport].filter((uri) => this.documents.has(uri));
    this.pendingReport.clear();
    if (uris.length > 0) this.report(uris);
  }
}

/** A removed folder invalidates the files looked for below it. */
function isBelowAny(folder: string, files: Consulted): boolean {
  if (folder.endsWith(".py")) return false;
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
  for (const file of files) if (file.startsWith(prefix)) return true;
  return false;
}

/** The absolute path of a file: URI; undefined for other schemes. */
export function filePathOf(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return path.resolve(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}
