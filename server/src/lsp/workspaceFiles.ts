/**
 * Feeds the lint worker's workspace index from disk: after initialize, the workspace folders' `*.py`
 * files are read in the background (never the version control, dependency, virtual environment or
 * hidden folders, nor a symbolic link that leads out of the workspace folders; at most
 * MAX_INDEXED_FILES files of at most MAX_FILE_BYTES each, in at most MAX_WALKED_FOLDERS folders, and
 * what is left out is logged); afterwards, the client's file events and closed documents keep it current. Reading
 * is asynchronous and the worker indexes in slices, so diagnostics never wait for it.
 */
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { FileChangeType, FileEvent } from "vscode-languageserver";
import { isSkippedFolder, MAX_INDEXED_CHARACTERS } from "../engine";
import { isWithin } from "../engine/workspace/modulePaths";
import type { LintWorkerPool } from "./lintWorkerPool";
import { errorText, Logger } from "./logger";
import type { IndexedFile } from "./workerProtocol";
import { filePathOf } from "./workerWorkspace";

/** Enough for any Airflow project's own code; a workspace with more is mostly someone else's. */
export const MAX_INDEXED_FILES = 10_000;
/** Folders read at most: a tree of empty or file-less folders costs a directory read each. */
export const MAX_WALKED_FOLDERS = 20_000;
/** A UTF-8 file of MAX_INDEXED_CHARACTERS characters is at least this long. */
const MAX_FILE_BYTES = MAX_INDEXED_CHARACTERS;
/** Files, and characters, posted to the worker in one message at most (a message is copied whole). */
const BATCH_FILES = 64;
const BATCH_CHARACTERS = 2_000_000;
/** Names of skipped files listed in the log, before "and N more". */
const LISTED_SKIPS = 5;

interface ScanReport {
  indexed: number;
  tooLarge: string[];
  unreadable: string[];
  /** Folders not searched because the file limit was reached. */
  truncated: boolean;
  /** Folders not searched because the folder limit was reached. */
  foldersTruncated: boolean;
  /** Symbolic links to `*.py` files outside the workspace folders, not read. */
  leavingLinks: string[];
}

/** What one scan has walked so far, shared by the walks of all workspace folders. */
interface Walk {
  folders: number;
  readonly maxFolders: number;
  /** The workspace folders with their symbolic links resolved. */
  readonly realRoots: string[];
  report: ScanReport;
  cancelled(): boolean;
}

export class WorkspaceFiles {
  private folders: string[] = [];
  /** Bumped by every scan, so a scan replaced by a newer one stops. */
  private scanGeneration = 0;
  /** Paths an event or a close read while the scan ran: the scan's older read of them is dropped. */
  private readonly freshDuringScan = new Set<string>();
  /** File events and closes are applied in order, one at a time. */
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly worker: Pick<LintWorkerPool, "post">,
    private readonly isOpen: (uri: string) => boolean,
    private readonly log: Logger,
    private readonly maxWalkedFolders = MAX_WALKED_FOLDERS,
  ) {}

  /** The workspace folders (file URIs), sent to the worker as the roots of module names. */
  setFolders(uris: readonly string[]): void {
    this.folders = uris.map(filePathOf).filter((folder): folder is string => folder !== undefined);
    this.worker.post({ type: "workspaceRoots", roots: this.folders });
  }

  /** Reads every Python file of the workspace folders into the index, in the background. Resolves when done. */
  async scan(): Promise<void> {
    const generation = ++this.scanGeneration;
    this.freshDuringScan.clear();
    if (this.folders.length === 0) return;
    const started = Date.now();
    const report: ScanReport = { indexed: 0, tooLarge: [], unreadable: [], truncated: false, foldersTruncated: false, leavingLinks: [] };
    const walk: Walk = { folders: 0, maxFolders: this.maxWalkedFolders, realRoots: await realPaths(this.folders), report, cancelled: () => generation !== this.scanGeneration };
    let batch: IndexedFile[] = [];
    let batchCharacters = 0;
    const flush = () => {
      const files = batch.filter((file) => !this.freshDuringScan.has(file.path));
      batch = [];
      batchCharacters = 0;
      if (files.length > 0) this.worker.post({ type: "index", files });
    };
    try {
      for (const folder of this.folders) {
        for await (const file of pythonFiles(folder, walk)) {
          if (generation !== this.scanGeneration) return;
          if (report.indexed >= MAX_INDEXED_FILES) {
            report.truncated = true;
            break;
          }
          const read = await readIndexable(file);
          if ("text" in read) {
            batch.push({ path: file, text: read.text });
            batchCharacters += read.text.length;
            report.indexed++;
            if (batch.length >= BATCH_FILES || batchCharacters >= BATCH_CHARACTERS) flush();
          } else if (read.reason === "too large") report.tooLarge.push(file);
          else if (read.reason !== "missing") report.unreadable.push(file);
        }
        if (report.truncated || report.foldersTruncated) break;
      }
      flush();
    } catch (error) {
      this.log.error(`Indexing the workspace's Python files failed: ${errorText(error)}`);
      return;
    }
    if (generation !== this.scanGeneration) return;
    this.freshDuringScan.clear();
    this.logReport(report, Date.now() - started);
  }

  /**
   * workspace/didChangeWatchedFiles: the client watches `**\/*.py`, and the server asks for deletions
   * of anything (a deleted folder is reported alone, not the modules that were in it).
   */
  filesChanged(changes: readonly FileEvent[]): void {
    for (const change of changes) {
      const file = filePathOf(change.uri);
      if (!file || !this.isIndexed(file)) continue;
      if (change.type === FileChangeType.Deleted) this.enqueue(file, () => this.worker.post({ type: "unindex", paths: [file] }));
      // An open document's own text is indexed; its file is read again when it closes.
      else if (file.endsWith(".py") && !this.isOpen(change.uri)) this.enqueue(file, () => this.reindex(file));
    }
  }

  /** A closed document's text may differ from its file (closed without saving): index the file again. */
  documentClosed(uri: string): void {
    const file = filePathOf(uri);
    if (!file) return;
    if (this.isIndexed(file)) this.enqueue(file, () => this.reindex(file));
    else this.worker.post({ type: "unindex", paths: [file] });
  }

  private enqueue(file: string, work: () => void | Promise<void>): void {
    this.freshDuringScan.add(file);
    this.pending = this.pending.then(work).catch((error: unknown) => this.log.error(`Updating the workspace index for ${file} failed: ${errorText(error)}`));
  }

  private async reindex(file: string): Promise<void> {
    const read = (await leavesWorkspace(file, await realPaths(this.folders))) ? ({ reason: "missing" } as const) : await readIndexable(file);
    if ("text" in read) this.worker.post({ type: "index", files: [{ path: file, text: read.text }] });
    else this.worker.post({ type: "unindex", paths: [file] });
  }

  /** Inside a workspace folder and not inside a folder the scan skips. */
  private isIndexed(file: string): boolean {
    return this.folders.some((folder) => isWithin(folder, file) && !path.relative(folder, path.dirname(file)).split(path.sep).some((part) => part !== "" && isSkippedFolder(part)));
  }

  private logReport(report: ScanReport, elapsedMs: number): void {
    const lines = [`Indexed ${report.indexed} Python file${report.indexed === 1 ? "" : "s"} of the workspace in ${elapsedMs} ms, for operator classes imported from other modules.`];
    if (report.truncated) lines.push(`Stopped at ${MAX_INDEXED_FILES} files: classes of the files not read are not followed.`);
    if (report.foldersTruncated) lines.push(`Stopped after ${this.maxWalkedFolders} folders: classes of the files in folders not read are not followed.`);
    if (report.leavingLinks.length > 0) lines.push(`Did not follow ${report.leavingLinks.length} symbolic link(s) out of the workspace: ${listed(report.leavingLinks)}.`);
    if (report.tooLarge.length > 0) lines.push(`Skipped ${report.tooLarge.length} file(s) over ${MAX_FILE_BYTES} bytes: ${listed(report.tooLarge)}.`);
    if (report.unreadable.length > 0) lines.push(`Could not read ${report.unreadable.length} file(s): ${listed(report.unreadable)}.`);
    this.log.info(lines.join(" "));
  }
}

/**
 * The `*.py` files of the workspace folders, with the folder each belongs to, walked as the index's
 * scan walks them: no links that leave the workspace, at most `maxFolders` folders in all.
 */
export async function* workspacePythonFiles(folders: readonly string[], cancelled: () => boolean, maxFolders = MAX_WALKED_FOLDERS): AsyncGenerator<{ file: string; folder: string }> {
  const report: ScanReport = { indexed: 0, tooLarge: [], unreadable: [], truncated: false, foldersTruncated: false, leavingLinks: [] };
  const walk: Walk = { folders: 0, maxFolders, realRoots: await realPaths(folders), report, cancelled };
  for (const folder of folders) for await (const file of pythonFiles(folder, walk)) yield { file, folder };
}

/**
 * The `*.py` files below `folder`, depth first in name order, without following symbolic links to
 * folders, nor to files outside the workspace folders (a workspace must not make the server read
 * what lies outside it), and reading at most `walk.maxFolders` folders in all.
 */
async function* pythonFiles(folder: string, walk: Walk): AsyncGenerator<string> {
  if (walk.folders >= walk.maxFolders) {
    walk.report.foldersTruncated = true;
    return;
  }
  walk.folders++;
  let entries;
  try {
    entries = await fs.readdir(folder, { withFileTypes: true });
  } catch {
    return;
  }
  // A virtual environment under any name: its packages are not the project's modules.
  if (entries.some((entry) => entry.name === "pyvenv.cfg" && entry.isFile())) return;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (walk.cancelled() || walk.report.foldersTruncated) return;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!isSkippedFolder(entry.name) && entry.name !== "site-packages") yield* pythonFiles(full, walk);
    } else if (entry.isFile() && entry.name.endsWith(".py")) {
      yield full;
    } else if (entry.isSymbolicLink() && entry.name.endsWith(".py")) {
      if (await leavesWorkspace(full, walk.realRoots)) walk.report.leavingLinks.push(full);
      else yield full;
    }
  }
}

/** The paths with their symbolic links resolved; a path that cannot be resolved is kept as it is. */
async function realPaths(paths: readonly string[]): Promise<string[]> {
  return Promise.all(paths.map((p) => fs.realpath(p).catch(() => p)));
}

/** Whether `file` is, or is reached through, a symbolic link to something outside every workspace folder. */
async function leavesWorkspace(file: string, realRoots: readonly string[]): Promise<boolean> {
  let real: string;
  try {
    real = await fs.realpath(file);
  } catch {
    return false; // Dangling or unreadable: reading it fails on its own.
  }
  return !realRoots.some((root) => isWithin(root, real));
}

type Readable = { text: string } | { reason: "too large" | "missing" | "unreadable" };

async function readIndexable(file: string): Promise<Readable> {
  try {
    const stats = await fs.stat(file);
    if (!stats.isFile()) return { reason: "missing" };
    if (stats.size > MAX_FILE_BYTES) return { reason: "too large" };
    // Editors do not count a byte order mark; the parser would see it as a stray character.
    return { text: (await fs.readFile(file, "utf8")).replace(/^\uFEFF/, "") };
  } catch (error) {
    return { reason: (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "unreadable" };
  }
}

function listed(files: readonly string[]): string {
  const shown = files.slice(0, LISTED_SKIPS).join(", ");
  return files.length > LISTED_SKIPS ? `${shown} and ${files.length - LISTED_SKIPS} more` : shown;
}
