/**
 * How the project readers reach the file system. Injected so that the engine stays free of I/O
 * policy: the CLI reads the disk, the language server can read through its own caches, and tests
 * use a map.
 */
import * as fs from "node:fs";

export interface ProjectFiles {
  /** The file's text, or undefined when it does not exist or cannot be read. */
  readFile(path: string): string | undefined;
  /** The names of a folder's entries (files and folders), or undefined when it is not a readable folder. */
  listDir(path: string): string[] | undefined;
}

/** Pin files are small; anything larger is not one and is not read. */
const MAX_BYTES = 1 << 20;

/** `ProjectFiles` over the local disk, synchronous. */
export const diskProjectFiles: ProjectFiles = {
  readFile(path) {
    try {
      if (fs.statSync(path).size > MAX_BYTES) return undefined;
      return fs.readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  },
  listDir(path) {
    try {
      return fs.readdirSync(path);
    } catch {
      return undefined;
    }
  },
};
