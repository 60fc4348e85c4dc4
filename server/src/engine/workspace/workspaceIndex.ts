/**
 * The classes of a workspace's Python modules, for rules that follow an operator class into the
 * module that defines it. Front ends feed it files (`update` / `remove`, or a `load` callback that
 * reads a file the first time it is asked for); it keeps one small summary per module and resolves
 * qualified names the way Python's import system would with Airflow's `sys.path`:
 * - the importing file's folder and its ancestors up to the workspace root (the DAG folder Airflow
 *   puts on `sys.path` is one of them, so `operators.SparkOp` finds a sibling `operators.py`);
 * - every workspace root and its `plugins/` folder (Airflow's plugins folder; `include/` is found
 *   from its parent, the project root);
 * - every folder that holds a DAG file;
 * - relative imports (`.operators.SparkOp`) from the importing file's package;
 * - re-exports through `__init__.py` or any module (`from .ops import SparkOp`), star imports
 *   included, up to a fixed number of hops so import cycles end.
 * Queries never throw: anything unexpected answers "unknown".
 */
import * as path from "node:path";
import { ExternalClass, WorkspaceClasses } from "../context";
import { PythonModel } from "../python/model";
import { foldersUpTo, isWithin, moduleFileCandidates, moduleNameUnder, relativeImportBase } from "./modulePaths";
import { ModuleSummary, summarizeModel, summarizeText } from "./summary";

/** Re-exports followed before giving up; a chain this long is a cycle or not worth following. */
const MAX_HOPS = 16;

/** Files longer than this are not indexed by the front ends: nobody writes an operator module that long by hand. */
export const MAX_INDEXED_CHARACTERS = 1_000_000;

export interface WorkspaceIndexOptions {
  /** The workspace's top folders (VS Code's workspace folders, the CLI's project root and the paths it was given). */
  roots?: readonly string[];
  /** Reads a file the index has not been given (undefined when it cannot be read); without it, only files given to `update` are known. */
  load?: (file: string) => string | undefined;
}

/** What one resolution consulted: every file it looked at or for, so a change to any of them can invalidate what was concluded. */
export type Consulted = Set<string>;

interface CachedResolution {
  result: ExternalClass | undefined;
  consulted: readonly string[];
}

/** Answers kept between two changes of the index; past this many, the cache starts over. */
const MAX_CACHED_RESOLUTIONS = 20_000;

export class WorkspaceIndex implements WorkspaceClasses {
  private readonly modules = new Map<string, ModuleSummary>();
  /** Files the loader was asked for and could not read. */
  private readonly unreadable = new Set<string>();
  private topRoots: string[] = [];
  /** Number of DAG files per folder. */
  private readonly dagFolders = new Map<string, number>();
  private readonly searchPathCache = new Map<string, string[]>();
  private globalRoots: string[] | undefined;
  private rootsVersion = 0;
  /** Bumped by every change a resolution could see; cached answers are for one version. */
  private contentVersion = 0;
  /**
   * Rules ask the same names over and over (every call to `datetime.datetime.now` in a file), and
   * each answer probes two files per search folder: answers are cached until the index changes.
   */
  private readonly cache = new Map<string, CachedResolution>();
  private cacheVersion = 0;
  private readonly load?: (file: string) => string | undefined;

  constructor(options: WorkspaceIndexOptions = {}) {
    this.load = options.load;
    this.setRoots(options.roots ?? []);
  }

  /** Number of modules known. */
  get size(): number {
    return this.modules.size;
  }

  /** Changes whenever the folders searched for modules change (roots set, a folder gains its first DAG file or loses its last). */
  get rootsGeneration(): number {
    return this.rootsVersion;
  }

  has(file: string): boolean {
    return this.modules.has(path.resolve(file));
  }

  setRoots(roots: readonly string[]): void {
    this.topRoots = [...new Set(roots.map((root) => path.resolve(root)))];
    this.rootsChanged();
  }

  /** Indexes `file` with this text; true when what the index knows of it changed. Never throws. */
  update(file: string, text: string): boolean {
    try {
      return this.store(path.resolve(file), summarizeText(text));
    } catch {
      return this.remove(file).length > 0;
    }
  }

  /** Like `update`, from a model already built (an open document). */
  updateFromModel(file: string, model: PythonModel): boolean {
    try {
      return this.store(path.resolve(file), summarizeModel(model));
    } catch {
      return this.remove(file).length > 0;
    }
  }

  /** Forgets a file, or every file below a folder; answers the files forgotten. */
  remove(fileOrFolder: string): string[] {
    const target = path.resolve(fileOrFolder);
    const removed: string[] = [];
    for (const file of this.modules.keys()) {
      if (file === target || file.startsWith(target + path.sep)) removed.push(file);
    }
    for (const file of removed) this.store(file, undefined);
    for (const file of this.unreadable) if (file === target || file.startsWith(target + path.sep)) this.unreadable.delete(file);
    return removed;
  }

  resolveClass(qualifiedName: string, fromPath: string | undefined): ExternalClass | undefined {
    return this.resolveRecording(qualifiedName, fromPath, undefined);
  }

  /** Bumped by every change a resolution could see (`WorkspaceClasses.version`). */
  get version(): number {
    return this.contentVersion;
  }

  /** A view that adds to `consulted` every file each resolution looks at or for. */
  recording(consulted: Consulted): WorkspaceClasses {
    const index = this;
    return {
      resolveClass: (qualifiedName, fromPath) => this.resolveRecording(qualifiedName, fromPath, consulted),
      get version() {
        return index.version;
      },
    };
  }

  private resolveRecording(qualifiedName: string, fromPath: string | undefined, consulted: Consulted | undefined): ExternalClass | undefined {
    try {
      const from = fromPath ? path.resolve(fromPath) : undefined;
      if (this.cacheVersion !== this.contentVersion || this.cache.size >= MAX_CACHED_RESOLUTIONS) {
        this.cache.clear();
        this.cacheVersion = this.contentVersion;
      }
      const key = `${from ?? ""}\0${qualifiedName}`;
      let entry = this.cache.get(key);
      if (!entry) {
        const seen: Consulted = new Set();
        const version = this.contentVersion;
        entry = { result: new Resolution(this, seen).resolve(qualifiedName, from, 0), consulted: [...seen] };
        // A file loaded on the way changed the index: the answer stands, but belongs to no single version.
        if (version === this.contentVersion) this.cache.set(key, entry);
      }
      if (consulted) for (const file of entry.consulted) consulted.add(file);
      return entry.result;
    } catch {
      return undefined;
    }
  }

  // ---- used by Resolution ----

  /** The summary of `file`, loading it on first use when a loader was given. */
  summaryOf(file: string, consulted: Consulted | undefined): ModuleSummary | undefined {
    consulted?.add(file);
    const known = this.modules.get(file);
    if (known || !this.load || this.unreadable.has(file)) return known;
    let text: string | undefined;
    try {
      text = this.load(file);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      this.unreadable.add(file);
      return undefined;
    }
    this.update(file, text);
    return this.modules.get(file);
  }

  /** Whether `file` is indexed, without loading it. */
  isKnown(file: string, consulted: Consulted | undefined): boolean {
    consulted?.add(file);
    return this.modules.has(file);
  }

  /** The folders an absolute import in `from` is searched in, in order. */
  searchPath(from: string | undefined): string[] {
    const key = from ?? "";
    let folders = this.searchPathCache.get(key);
    if (!folders) {
      // Up to the outermost root that holds the file: Airflow's DAG folder is one of these folders.
      const outermost = this.topRoots.filter((root) => from && isWithin(root, from)).sort((a, b) => a.length - b.length)[0];
      const own = from ? foldersUpTo(path.dirname(from), outermost) : [];
      folders = [...new Set([...own, ...this.rootsForAll()])];
      this.searchPathCache.set(key, folders);
    }
    return folders;
  }

  /** The dotted module name of `file`: the longest one any search folder gives it. */
  moduleName(file: string): string {
    let best: string | undefined;
    for (const root of this.rootsForAll()) {
      const name = moduleNameUnder(root, file);
      if (name && (!best || name.split(".").length > best.split(".").length)) best = name;
    }
    return best ?? path.basename(file, ".py");
  }

  private rootsForAll(): string[] {
    if (!this.globalRoots) {
      const plugins = this.topRoots.map((root) => path.join(root, "plugins"));
      const dagFolders = [...this.dagFolders.keys()].sort();
      this.globalRoots = [...new Set([...this.topRoots, ...plugins, ...dagFolders])];
    }
    return this.globalRoots;
  }

  private store(file: string, summary: ModuleSummary | undefined): boolean {
    const previous = this.modules.get(file);
    if (summary) {
      this.modules.set(file, summary);
      this.unreadable.delete(file);
    } else this.modules.delete(file);
    const wasDag = previous?.isDagFile ?? false;
    const isDag = summary?.isDagFile ?? false;
    if (wasDag !== isDag) this.countDagFile(path.dirname(file), isDag ? 1 : -1);
    const changed = previous?.fingerprint !== summary?.fingerprint;
    if (changed) this.contentVersion++;
    return changed;
  }

  private countDagFile(folder: string, delta: number): void {
    const count = (this.dagFolders.get(folder) ?? 0) + delta;
    if (count > 0) this.dagFolders.set(folder, count);
    else this.dagFolders.delete(folder);
    // Only a folder's first DAG file or its last one changes where modules are searched.
    if (count === 0 || (count === 1 && delta > 0)) this.rootsChanged();
  }

  private rootsChanged(): void {
    this.searchPathCache.clear();
    this.globalRoots = undefined;
    this.rootsVersion++;
    this.contentVersion++;
  }
}

/** One `resolveClass` call: follows imports from module to module, remembering where it has been. */
class Resolution {
  private readonly visited = new Set<string>();

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly consulted: Consulted | undefined,
  ) {}

  resolve(qualifiedName: string, from: string | undefined, hops: number): ExternalClass | undefined {
    const key = `${from ?? ""}\0${qualifiedName}`;
    if (hops > MAX_HOPS || this.visited.has(key)) return undefined;
    this.visited.add(key);
    const dots = /^\.*/.exec(qualifiedName)![0].length;
    const parts = qualifiedName.slice(dots).split(".").filter((part) => part !== "");
    if (dots > 0) {
      if (!from || parts.length === 0) return undefined;
      return this.inModules([relativeImportBase(from, dots)], parts, hops, true);
    }
    // A bare name is a class of the importing module itself, or one it star-imports. The importing
    // file is not loaded for it: rules ask this of every call to a builtin, and a front end that
    // wants star imports followed indexes the files that have them.
    if (parts.length === 1) return from && (hops > 0 || this.index.isKnown(from, this.consulted)) ? this.member(from, parts, hops) : undefined;
    return this.inModules(this.index.searchPath(from), parts, hops, false);
  }

  /**
   * `parts` as a module followed by a name in it, trying the longest module first (`a.b.C` is the
   * class `C` of `a.b`, or the name `b.C` of the package `a`). As on `sys.path`, the first folder
   * that has the module decides. A relative import may also name its own package (`from . import X`).
   */
  private inModules(folders: readonly string[], parts: readonly string[], hops: number, relative: boolean): ExternalClass | undefined {
    for (let split = parts.length - 1; split >= (relative ? 0 : 1); split--) {
      const moduleParts = parts.slice(0, split);
      for (const folder of folders) {
        const file = moduleFileCandidates(folder, moduleParts).find((candidate) => this.index.summaryOf(candidate, this.consulted));
        if (file) return this.member(file, parts.slice(split), hops);
      }
    }
    return undefined;
  }

  /** The class `names` (a name, or a name then attributes) stands for in the module `file`. */
  private member(file: string, names: readonly string[], hops: number): ExternalClass | undefined {
    const summary = this.index.summaryOf(file, this.consulted);
    if (!summary) return undefined;
    const [name, ...rest] = names;
    const cls = summary.classes.get(name);
    if (cls) {
      // Nested classes are not indexed.
      if (rest.length > 0) return undefined;
      return { qualifiedName: `${this.index.moduleName(file)}.${cls.name}`, path: file, baseNames: cls.baseNames, stringAttributes: cls.stringAttributes, methods: cls.methods };
    }
    const imported = summary.imports.get(name);
    if (imported) return this.resolve(joinName(imported, rest), file, hops + 1);
    for (const module of summary.starImports) {
      const found = this.resolve(joinName(module, names), file, hops + 1);
      if (found) return found;
    }
    return undefined;
  }
}

/** `module` + attribute names, keeping a relative prefix intact (`.` + `X` is `.X`). */
function joinName(prefix: string, names: readonly string[]): string {
  if (names.length === 0) return prefix;
  return prefix.endsWith(".") ? prefix + names.join(".") : `${prefix}.${names.join(".")}`;
}
