/**
 * The CLI's content cache, as ruff keeps one: a file's findings are stored under a key made of
 * everything they depend on — the engine build, the file's rule settings (from its configuration and
 * the command line), its path and text, the
 * Airflow pin found for it and its git baseline — plus the workspace modules its lint consulted,
 * each checked by content before an entry is used. A second run over unchanged files reads the
 * entries instead of linting.
 *
 * Reading and hashing every file is most of such a run, so an entry also keeps the file's stamp
 * (size, modification and change times, inode) as `stat` gave it just before the file was read,
 * as git's index does: a file with the same stamp is answered without reading it. Only a file whose
 * key needs nothing but its text gets a stamp (no git baseline, no star import), and only when it
 * had not changed for RACY_WINDOW_MS before the run began: a file changed within a timestamp's
 * granularity of being read could change again with its stamp unchanged.
 *
 * `.airflow_state_lint_cache/` in the working folder holds one file per engine build, with one entry
 * per linted file, as ruff keeps one file per package rather than one per source file: creating
 * thousands of small files costs a file system far more than writing one (on ext4, a cold run
 * over 4,000 files spent more time creating entry files than linting them). The run reads it once,
 * when the first file is looked up, and writes it once at the end, to a temporary file renamed into
 * place, so runs at the same time never see half a cache. Before writing, a run merges in what
 * another run wrote meanwhile; when two finish at the same moment, one's new entries may be lost,
 * which costs a lint next time and never a wrong finding. An entry that makes no sense is a miss;
 * an entry no run has used for MAX_UNUSED_DAYS is dropped, and so is another build's cache no run
 * has written for as long; a cache that cannot be read or written is reported once and the run
 * goes on without it.
 */
import { createHash } from "node:crypto";
import { promises as fs, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { packageVersion } from "../docs/location";
import { LintOptions } from "../engine";
import { AirflowPin } from "../engine/project";
import type { FileOutcome, ReportedDiagnostic } from "./check";
import { describeError } from "./files";

export const CACHE_FOLDER = ".airflow_state_lint_cache";

/** 2: findings carry the hash of their line (fingerprints), rule settings are per file. 3: one file per engine build. 4: entries keep the file's stamp. */
const FORMAT_VERSION = 4;

/** FAT counts modification times in 2-second steps, the coarsest of common file systems. */
export const RACY_WINDOW_MS = 2_000;

/** An entry no run has used for this long is dropped, so files long deleted or changed do not keep theirs. */
export const MAX_UNUSED_DAYS = 30;

const MS_PER_DAY = 86_400_000;

const GITIGNORE = ".gitignore";
const CACHEDIR_TAG_FILE = "CACHEDIR.TAG";

/** The Cache Directory Tagging Specification's signature: backup and archiving tools skip the folder. */
const CACHEDIR_TAG = `Signature: 8a477f597d28d172789f06886806bc55
# This file is a cache directory tag created by airflow-state-lint.
# For information about cache directory tags, see https://bford.info/cachedir/
`;

/** What a cache is opened with; plain data, so a worker thread can open the same cache. */
export interface CacheLocation {
  folder: string;
  /** Changes with every build of the engine: the package version and a hash of the bundle. */
  engine: string;
}

/** The parser packages stay outside the bundle; their versions decide the syntax trees. */
const PARSER_PACKAGES = ["tree-sitter", "tree-sitter-python"];

/** The engine's identity: its version, a hash of the bundled CLI (which holds the whole engine) and the parsers' versions. */
export function engineIdentity(bundle: string): string {
  const hash = createHash("sha256").update(readFileSync(bundle));
  for (const name of PARSER_PACKAGES) hash.update(`\0${name}@${parserVersion(name)}`);
  return `${packageVersion()}-${hash.digest("hex").slice(0, 16)}`;
}

function parserVersion(name: string): string {
  try {
    return String((require(`${name}/package.json`) as { version?: unknown }).version);
  } catch {
    return "unknown";
  }
}

/** What a file's findings depend on besides the workspace modules it consults. */
export interface FileInputs {
  file: string;
  /** The rule selection and severities that apply to the file. */
  lint: Pick<LintOptions, "severities" | "select" | "ignore">;
  text: string;
  pin: AirflowPin | undefined;
  baselineText: string | undefined;
  /** The file's stamp before it was read, when its key needs nothing but its text (see the top of this file). */
  stamp?: FileStamp;
}

/** What `stat` says of a file: while it stays the same, so does the file's text. Plain data. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** A file's inputs known before it is read, with its stamp: enough to find an entry linted from the same text. */
export type UnreadFile = Pick<FileInputs, "file" | "lint" | "pin"> & { stamp: FileStamp };

/** Plain data, so it crosses threads. */
export interface CacheKey {
  /** The file and its rule settings: the entry a lint with these inputs replaces. */
  slot: string;
  /** Everything the findings depend on besides the workspace modules. */
  key: string;
  /** A hash of the inputs other than the path, the text and the baseline: what an entry found by the file's stamp must match besides its slot. */
  unread: string;
  /** The stamp the entry keeps, when the file may be looked up by it next time. */
  stamp?: FileStamp;
}

/** What the thread that linted a file hands the cache, besides the findings: plain data, so it crosses threads. */
export interface CacheRecord {
  key: CacheKey;
  /** Every workspace file the lint looked at or for, with the hash of its text then (null: it did not exist). */
  dependencies: [string, string | null][];
}

interface Entry {
  key: string;
  dependencies: [string, string | null][];
  /** The module roots the workspace was searched from; they matter only when `dependencies` is not empty. */
  workspace: string;
  diagnostics: ReportedDiagnostic[];
  /** The day (since the epoch) a run last used or wrote the entry. */
  used: number;
  /** `CacheKey.unread` and `CacheKey.stamp`, when the file may be looked up by its stamp. */
  unread?: string;
  stamp?: FileStamp;
}

/** The cache file: the entries by slot (file and rule settings), each for the latest inputs linted. */
interface CacheFile {
  format: number;
  entries: Record<string, Entry>;
}

/**
 * One run's view of the cache. Every thread computes keys and the records of what it linted; the
 * main thread alone looks entries up, takes the records, and saves.
 */
export class LintCache {
  private readonly file: string;
  /** Hashes of workspace files read during this run: each is read once however many entries name it. */
  private readonly fileHashes = new Map<string, string | null>();
  /** The inputs other than path, text and baseline (as JSON) -> the hashes `unreadKeyOf` makes of them. */
  private readonly inputHashes = new Map<string, { settings: string; unread: string }>();
  private entries: Map<string, Entry> | undefined;
  /** Entries this run wrote or used on a later day than they record: the file is saved only if there are any. */
  private readonly changed = new Set<string>();
  private problemReported = false;
  private readonly now: number;
  private readonly today: number;

  constructor(
    private readonly location: CacheLocation,
    /** The module roots of the run's workspace index, as one string. */
    private readonly workspace: string,
    private readonly onProblem: (message: string) => void,
    now: number = Date.now(),
  ) {
    this.file = path.join(location.folder, `${location.engine}.json`);
    this.now = now;
    this.today = Math.floor(now / MS_PER_DAY);
  }

  /** The key of a lint's inputs, and the slot its entry takes: one per file and rule settings, so a changed file replaces its entry and runs with other settings keep theirs. */
  keyFor(inputs: FileInputs): CacheKey {
    const { slot, unread } = this.unreadKeyOf(inputs);
    const key = createHash("sha256")
      .update(JSON.stringify([unread, inputs.file, inputs.baselineText ?? null]))
      .update("\0")
      .update(inputs.text)
      .digest("hex");
    const stamp = inputs.stamp && this.settled(inputs.stamp) ? inputs.stamp : undefined;
    return { slot, key, unread, ...(stamp ? { stamp } : {}) };
  }

  /**
   * The findings stored under `key`, when its entry is sound and every workspace file it consulted
   * is as it was. The first lookup reads the cache file, synchronously: one read of the whole cache
   * costs less than a promise per file on a warm run.
   */
  lookup({ slot, key, unread, stamp }: CacheKey): ReportedDiagnostic[] | undefined {
    const entry = this.loaded().get(slot);
    const found = entry && entry.key === key ? this.answer(slot, entry) : undefined;
    // Found by its text, and settled since it was linted: the next run need not read it.
    if (found && stamp && !sameStamp(entry!.stamp, stamp)) {
      entry!.unread = unread;
      entry!.stamp = stamp;
      this.changed.add(slot);
    }
    return found;
  }

  /** The findings of a file not read yet, when its entry was linted from a file with the same stamp and the same other inputs. */
  lookupUnread(file: UnreadFile): ReportedDiagnostic[] | undefined {
    const { slot, unread } = this.unreadKeyOf(file);
    const entry = this.loaded().get(slot);
    if (!entry || entry.unread !== unread || !sameStamp(entry.stamp, file.stamp)) return undefined;
    return this.answer(slot, entry);
  }

  /** An entry's findings, when it is sound and every workspace file it consulted is as it was. */
  private answer(slot: string, entry: Entry): ReportedDiagnostic[] | undefined {
    if (!isSound(entry)) return undefined;
    if (entry.dependencies.length > 0) {
      if (entry.workspace !== this.workspace) return undefined;
      for (const [dependency, hash] of entry.dependencies) if (this.hashOf(dependency) !== hash) return undefined;
    }
    if (entry.used !== this.today) {
      entry.used = this.today;
      this.changed.add(slot);
    }
    return entry.diagnostics;
  }

  /**
   * The slot, and the hash of the inputs other than the file's path (the slot has it), text and
   * baseline. Files under one configuration share settings and pin, so each hash is made once.
   */
  private unreadKeyOf({ file, lint, pin }: Pick<FileInputs, "file" | "lint" | "pin">): { slot: string; unread: string } {
    const severities = Object.entries(lint.severities ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const settings = JSON.stringify({ severities, select: lint.select ?? null, ignore: lint.ignore ?? null });
    const inputs = JSON.stringify([FORMAT_VERSION, this.location.engine, settings, pin ?? null]);
    let hashes = this.inputHashes.get(inputs);
    if (!hashes) {
      hashes = { settings: createHash("sha256").update(settings).digest("hex").slice(0, 16), unread: createHash("sha256").update(inputs).digest("hex") };
      this.inputHashes.set(inputs, hashes);
    }
    return { slot: `${file}\0${hashes.settings}`, unread: hashes.unread };
  }

  /** Whether the file had stopped changing RACY_WINDOW_MS before this run began, so that a later change shows in its stamp. */
  private settled(stamp: FileStamp): boolean {
    return Math.max(stamp.mtimeMs, stamp.ctimeMs) < this.now - RACY_WINDOW_MS;
  }

  /** What the cache needs of a lint that consulted `consulted` in the workspace, besides its findings. */
  recordOf(key: CacheKey, consulted: ReadonlySet<string>): CacheRecord {
    const dependencies: [string, string | null][] = [];
    for (const file of [...consulted].sort()) dependencies.push([file, this.hashOf(file)]);
    return { key, dependencies };
  }

  /** Keeps the findings of the files this run linted (the outcomes that carry a record) and saves the cache. Never throws. */
  async saveOutcomes(outcomes: readonly FileOutcome[]): Promise<void> {
    for (const outcome of outcomes) if (outcome.cacheRecord) this.add(outcome.cacheRecord, outcome.diagnostics);
    await this.save();
  }

  /** Keeps the findings of a file this run linted, for `save`. */
  add(record: CacheRecord, diagnostics: readonly ReportedDiagnostic[]): void {
    const { slot, key, unread, stamp } = record.key;
    this.loaded().set(slot, { key, dependencies: record.dependencies, workspace: this.workspace, diagnostics: [...diagnostics], used: this.today, ...(stamp ? { unread, stamp } : {}) });
    this.changed.add(slot);
  }

  /**
   * Writes the cache file when this run changed an entry, merged with what another run wrote since
   * it was read, without entries unused for MAX_UNUSED_DAYS. Never throws.
   */
  async save(): Promise<void> {
    if (this.changed.size === 0) return;
    try {
      const merged = new Map<string, Entry>();
      for (const [slot, entry] of readEntries(this.file) ?? []) if (this.inUse(entry)) merged.set(slot, entry);
      for (const [slot, entry] of this.loaded()) {
        if (this.changed.has(slot) || (!merged.has(slot) && this.inUse(entry))) merged.set(slot, entry);
      }
      const contents: CacheFile = { format: FORMAT_VERSION, entries: Object.fromEntries(merged) };
      await fs.mkdir(this.location.folder, { recursive: true });
      await writeIfAbsent(path.join(this.location.folder, GITIGNORE), "# Created by airflow-state-lint.\n*\n");
      await writeIfAbsent(path.join(this.location.folder, CACHEDIR_TAG_FILE), CACHEDIR_TAG);
      // A name no other writer uses, in the same folder so the rename cannot cross file systems.
      const temporary = `${this.file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
      await fs.writeFile(temporary, JSON.stringify(contents));
      await fs.rename(temporary, this.file).catch(async (error: unknown) => {
        await fs.rm(temporary, { force: true });
        // Windows refuses to replace a file another run has open: that run wrote the cache.
        if (!(await fs.stat(this.file).catch(() => undefined))) throw error;
      });
      this.changed.clear();
      await this.removeUnusedBuilds();
    } catch (error) {
      this.problem(`could not write the cache in ${this.location.folder}, so this run was not cached: ${describeError(error)}`);
    }
  }

  /** Other builds' caches (and the folders older builds kept) that no run has written for MAX_UNUSED_DAYS: an upgrade leaves its predecessor's behind. */
  private async removeUnusedBuilds(): Promise<void> {
    const ours = path.basename(this.file);
    const oldest = this.now - MAX_UNUSED_DAYS * MS_PER_DAY;
    for (const name of await fs.readdir(this.location.folder).catch(() => [])) {
      if (name === ours || name === GITIGNORE || name === CACHEDIR_TAG_FILE) continue;
      const target = path.join(this.location.folder, name);
      const stat = await fs.stat(target).catch(() => undefined);
      if (stat && stat.mtimeMs < oldest) await fs.rm(target, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Whether a run used the entry within MAX_UNUSED_DAYS (an entry read with no sensible day is not). */
  private inUse(entry: Entry): boolean {
    return this.today - entry.used <= MAX_UNUSED_DAYS;
  }

  private loaded(): Map<string, Entry> {
    if (!this.entries) {
      try {
        this.entries = readEntries(this.file) ?? new Map();
      } catch (error) {
        this.problem(`could not read the cache in ${this.location.folder}, so every file was checked: ${describeError(error)}`);
        this.entries = new Map();
      }
    }
    return this.entries;
  }

  private problem(message: string): void {
    if (this.problemReported) return;
    this.problemReported = true;
    this.onProblem(message);
  }

  private hashOf(file: string): string | null {
    let hash = this.fileHashes.get(file);
    if (hash === undefined) {
      try {
        hash = createHash("sha256").update(readFileSync(file)).digest("hex");
      } catch {
        hash = null;
      }
      this.fileHashes.set(file, hash);
    }
    return hash;
  }
}

/**
 * The entries of the cache file; undefined when there is none yet. A file that is not a cache of
 * this format (half a file from a crash, another build's layout) holds no entry. Throws only when
 * the file exists and cannot be read.
 */
function readEntries(file: string): Map<string, Entry> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    // No cache yet; ENOTDIR: something that is not a folder stands where the cache would go, which the write reports.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
  let contents: CacheFile;
  try {
    contents = JSON.parse(text) as CacheFile;
  } catch {
    return new Map();
  }
  if (typeof contents !== "object" || contents === null || contents.format !== FORMAT_VERSION || typeof contents.entries !== "object" || contents.entries === null) return new Map();
  return new Map(Object.entries(contents.entries).filter(([, entry]) => typeof entry === "object" && entry !== null));
}

async function writeIfAbsent(file: string, text: string): Promise<void> {
  await fs.writeFile(file, text, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
}

/** Whether `stamp` (read from the cache file, so of any shape) is `current`. */
function sameStamp(stamp: FileStamp | undefined, current: FileStamp): boolean {
  return (
    typeof stamp === "object" &&
    stamp !== null &&
    stamp.size === current.size &&
    stamp.mtimeMs === current.mtimeMs &&
    stamp.ctimeMs === current.ctimeMs &&
    stamp.ino === current.ino
  );
}

/** The stamp of a regular file, taken before it is read; undefined when `stat` fails or it is not a file. */
export function fileStamp(file: string): FileStamp | undefined {
  try {
    const stat = statSync(file);
    return stat.isFile() ? { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an entry read from the file has the shape this build writes: anything else is a miss. */
function isSound(entry: Entry): boolean {
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.key === "string" &&
    typeof entry.workspace === "string" &&
    typeof entry.used === "number" &&
    Array.isArray(entry.dependencies) &&
    entry.dependencies.every((d) => Array.isArray(d) && typeof d[0] === "string" && (typeof d[1] === "string" || d[1] === null)) &&
    Array.isArray(entry.diagnostics) &&
    entry.diagnostics.every(isReportedDiagnostic)
  );
}

function isReportedDiagnostic(value: unknown): value is ReportedDiagnostic {
  const d = value as ReportedDiagnostic;
  const position = (p: unknown) => typeof (p as { line?: unknown })?.line === "number" && typeof (p as { character?: unknown }).character === "number";
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.code === "string" &&
    typeof d.name === "string" &&
    ["error", "warning", "info", "hint"].includes(d.severity) &&
    typeof d.message === "string" &&
    typeof d.lineHash === "string" &&
    position(d.range?.start) &&
    position(d.range?.end) &&
    (d.fix === undefined || (typeof d.fix?.title === "string" && typeof d.fix.safe === "boolean")) &&
    (d.related === undefined || (typeof d.related?.message === "string" && Array.isArray(d.related.ranges) && d.related.ranges.every((r) => position(r?.start) && position(r?.end))))
  );
}
