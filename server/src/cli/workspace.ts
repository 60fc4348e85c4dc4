/**
 * The workspace index of a CLI run: the modules the checked files import are read from disk the
 * first time a rule asks for one of their classes, so only what is imported is parsed. Module names
 * start at the project root (the nearest folder up from the current one, or from a path given, that
 * holds `.git`; else that folder itself) and at each path given; a checked file's own folder and
 * its ancestors up to the root are searched too (the index does that for every file).
 */
import { existsSync, statSync } from "node:fs";
import * as path from "node:path";
import { MAX_INDEXED_CHARACTERS, WorkspaceIndex } from "../engine";
import { readSourceFileSync } from "./files";

export function cliWorkspace(cwd: string, paths: readonly string[]): WorkspaceIndex {
  const roots: string[] = [];
  for (const given of [".", ...paths]) {
    const absolute = path.resolve(cwd, given);
    const folder = statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ? absolute : path.dirname(absolute);
    roots.push(projectRoot(folder) ?? folder, folder);
  }
  return new WorkspaceIndex({ roots, load: loadModule });
}

/** Star imports make a file's bare names depend on other modules: such a file is indexed before it is checked, which the index cannot do on its own. */
export function hasStarImport(text: string): boolean {
  // The first test looks for a literal, which is fast; the second, from every line's start, is not, and only files that pass the first need it.
  return /import[ \t]*\*/.test(text) && /^[ \t]*from[ \t]+\S+[ \t]+import[ \t]*\*/m.test(text);
}

/** A module of the workspace as the index reads it from disk: absent, unreadable or too large, none. */
export function loadModule(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const source = readSourceFileSync(file);
  return "text" in source && source.text.length <= MAX_INDEXED_CHARACTERS ? source.text : undefined;
}

/** The nearest folder from `folder` up that holds `.git` (a folder, or a file in a worktree). */
function projectRoot(folder: string): string | undefined {
  for (let current = folder; ; ) {
    if (existsSync(path.join(current, ".git"))) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
