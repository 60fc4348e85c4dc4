/**
 * Python's mapping between module names and files, as the import system applies it to a folder on
 * `sys.path`: `a.b.c` is `a/b/c.py` or the package `a/b/c/__init__.py` (folders without
 * `__init__.py` are namespace packages, so any folder counts).
 */
import * as path from "node:path";

const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;

/** The two files that can hold module `parts` under `root`; an empty `parts` is the package `root` itself. */
export function moduleFileCandidates(root: string, parts: readonly string[]): string[] {
  // Plain concatenation: `root` is already normalised and identifiers hold no separator, and this runs for every folder searched.
  const folder = root.endsWith(path.sep) ? root : root + path.sep;
  if (parts.length === 0) return [`${folder}__init__.py`];
  if (!parts.every((part) => IDENTIFIER.test(part))) return [];
  const base = folder + parts.join(path.sep);
  return [`${base}.py`, `${base}${path.sep}__init__.py`];
}

/** The dotted name of `file` when `root` is on `sys.path`; undefined when it is not under `root` or a segment is not an identifier. */
export function moduleNameUnder(root: string, file: string): string | undefined {
  const relative = path.relative(root, file);
  if (!relative || relative.startsWith("..") || path.isAbsolute(relative) || !relative.endsWith(".py")) return undefined;
  const parts = relative.slice(0, -".py".length).split(path.sep);
  if (parts[parts.length - 1] === "__init__") parts.pop();
  if (parts.length === 0 || !parts.every((part) => IDENTIFIER.test(part))) return undefined;
  return parts.join(".");
}

/** The folder a relative import with `dots` leading dots starts from: the importing module's package, then its parents. */
export function relativeImportBase(fromFile: string, dots: number): string {
  let base = path.dirname(fromFile);
  for (let level = 1; level < dots; level++) base = path.dirname(base);
  return base;
}

/** Whether `file` is `folder` or lies below it. */
export function isWithin(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** `folder` and its ancestors up to and including `top`; only `folder` when `top` does not contain it. */
export function foldersUpTo(folder: string, top: string | undefined): string[] {
  if (!top || !isWithin(top, folder)) return [folder];
  const folders = [folder];
  for (let current = folder; current !== top; ) {
    const parent = path.dirname(current);
    if (parent === current) break;
    folders.push(parent);
    current = parent;
  }
  return folders;
}
