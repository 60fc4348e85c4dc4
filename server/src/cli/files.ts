/**
 * Which files the CLI checks and how it reads and writes them: folders are searched for `*.py`,
 * files named on the command line are checked whatever their extension (as ruff does), and reading
 * turns every failure into a message instead of an exception.
 */
import { promises as fs, readFileSync } from "node:fs";
import * as path from "node:path";
// Folders never searched below a path given on the command line (one given explicitly is searched); the language server skips the same.
import { isSkippedFolder } from "../engine";

export function isPythonFile(name: string): boolean {
  return name.endsWith(".py");
}

/** Paths on the command line that do not exist (a usage error). */
export async function missingPaths(paths: readonly string[], cwd: string): Promise<string[]> {
  const missing: string[] = [];
  for (const given of paths) {
    // lstat: a dangling symlink named on the command line exists; reading it reports why it fails.
    if (!(await fs.lstat(path.resolve(cwd, given)).catch(() => undefined))) missing.push(given);
  }
  return missing;
}

export interface FileSearch {
  /** Absolute paths, each once, in a deterministic order. */
  files: string[];
  /** Folders that could not be listed. */
  problems: { path: string; message: string }[];
}

/**
 * Expands the command-line paths into the files to check. Symbolic links are followed, but each
 * real folder is searched once, so a link back to a parent cannot loop. The search is sequential
 * and sorted so that which of two links to the same folder wins never depends on timing.
 * `found` is told each file as it is found, in the order of `files`, so checks can start before
 * the search ends.
 */
export async function findPythonFiles(paths: readonly string[], cwd: string, found?: (file: string) => void): Promise<FileSearch> {
  const search: FileSearch = { files: [], problems: [] };
  const seenFiles = new Set<string>();
  const searchedFolders = new Set<string>();
  const addFile = (file: string) => {
    if (!seenFiles.has(file)) {
      seenFiles.add(file);
      search.files.push(file);
      found?.(file);
    }
  };

  async function searchFolder(folder: string): Promise<void> {
    const real = await fs.realpath(folder).catch(() => folder);
    if (searchedFolders.has(real)) return;
    searchedFolders.add(real);
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (error) {
      search.problems.push({ path: folder, message: `cannot list the folder: ${describeError(error)}` });
      return;
    }
    entries.sort((a, b) => compareStrings(a.name, b.name));
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await fs.stat(full).catch(() => undefined);
        isDirectory = target?.isDirectory() ?? false;
        // A broken link named *.py is kept: reading it reports the problem instead of hiding the file.
        isFile = target ? target.isFile() : true;
      }
      if (isDirectory) {
        if (!isSkippedFolder(entry.name)) await searchFolder(full);
      } else if (isFile && isPythonFile(entry.name)) {
        addFile(full);
      }
    }
  }

  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const stats = await fs.stat(absolute).catch(() => undefined);
    if (stats?.isDirectory()) await searchFolder(absolute);
    else addFile(absolute);
  }
  return search;
}

export type SourceFile = { text: string; byteOrderMark: boolean } | { error: string };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The file's text; a byte order mark is taken off (editors do not count it in columns) and remembered for writing back. */
export async function readSourceFile(file: string): Promise<SourceFile> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    return { error: `cannot read the file: ${describeError(error)}` };
  }
  return decodeSourceFile(bytes);
}

/** `readSourceFile` for callers that cannot wait (the workspace index reads imported modules while a rule asks). */
export function readSourceFileSync(file: string): SourceFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return { error: `cannot read the file: ${describeError(error)}` };
  }
  return decodeSourceFile(bytes);
}

function decodeSourceFile(bytes: Buffer): SourceFile {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return { error: "encoded in UTF-16; only UTF-8 Python files are checked" };
  // Python refuses source with NUL bytes too; such a file is binary, not a DAG.
  if (bytes.includes(0)) return { error: "not a text file (it contains NUL bytes); only UTF-8 Python files are checked" };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { error: "not valid UTF-8; only UTF-8 Python files are checked" };
  }
  const byteOrderMark = text.startsWith("\uFEFF");
  return { text: byteOrderMark ? text.slice(1) : text, byteOrderMark };
}

/** Writes fixed text in place (through symbolic links, keeping the file's mode), restoring a byte order mark. */
export async function writeSourceFile(file: string, text: string, byteOrderMark: boolean): Promise<string | undefined> {
  try {
    await fs.writeFile(file, byteOrderMark ? `\uFEFF${text}` : text, "utf8");
    return undefined;
  } catch (error) {
    return `cannot write the fixed file: ${describeError(error)}`;
  }
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  ENOENT: "no such file (a broken symbolic link?)",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a folder",
  ELOOP: "too many levels of symbolic links",
  EROFS: "read-only file system",
  EMFILE: "too many open files",
};

export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && ERROR_DESCRIPTIONS[code]) return ERROR_DESCRIPTIONS[code];
  return error instanceof Error ? error.message : String(error);
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Items done between two turns of the event loop. A check that waits for nothing (a file read
 * synchronously, no baseline to ask git for) settles at once, so a run of them never returned to
 * the event loop, and Node runs the finalizers of the handles V8 collected only there:
 * node-tree-sitter frees a tree's native memory in its handle's finalizer, so every tree parsed
 * stayed in memory to the end (4,000 DAG files on one thread: 690 MB, 2.4 s of it the kernel's
 * paging; with a turn every 25 files, 210 MB and 0.45 s).
 */
export const ITEMS_PER_EVENT_LOOP_TURN = 25;

/** Runs `work` over the items with at most `limit` in flight; results keep the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  /** The turn of the event loop every item waits for before it starts, once one is due: the loop turns only when no item is left to run. */
  let turn: Promise<void> | undefined;
  const worker = async () => {
    for (;;) {
      if (turn) await turn;
      if (next >= items.length) return;
      const index = next++;
      results[index] = await work(items[index]);
      if (++done % ITEMS_PER_EVENT_LOOP_TURN === 0) {
        turn ??= new Promise((resolve) =>
          setImmediate(() => {
            turn = undefined;
            resolve();
          }),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
