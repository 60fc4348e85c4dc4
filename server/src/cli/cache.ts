/**
 * The CLI's content cache, as ruff keeps one: a file's findings are stored under a key made of
 * everything they depend on — the engine build, the file's rule settings (from its configuration and
 * the command line), its path and text, the
 * Airflow pin found for it and its git baseline — plus the workspace modules its lint consulted,
 * each checked by content before an entry is used. A second run over unchanged files reads the
 * entries instead of linting.
 *
 * `.airflow_state_lint_cache/` in the working folder holds one folder per engine build and one
 * JSON file per entry. Entries are written to a temporary file and renamed into place, so runs at
 * the same time never see half an entry; an entry that cannot be read or makes no sense is a
 * miss; a cache that cannot be written is reported once and the run goes on without it.
 */
import { createHash } from "node:crypto";
import { promises as fs, readFileSync } from "node:fs";
import * as path from "node:path";
import { threadId } from "node:worker_threads";
import { packageVersion } from "../docs/location";
import { LintOptions } from "../engine";
import { AirflowPin } from "../engine/project";
import { ReportedDiagnostic } from "./check";
import { describeError } from "./files";

export const CACHE_FOLDER = ".airflow_state_lint_cache";

/** 2: findings carry the hash of their line (fingerprints), rule settings are per file. */
const FORMAT_VERSION = 2;

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
}

interface Entry {
  format: number;
  key: string;
  /** The module roots the workspace was searched from; they matter only when `dependencies` is not empty. */
  workspace: string;
  /** Every workspace file the lint looked at or for, with the hash of its text then (null: it did not exist). */
  dependencies: [string, string | null][];
  diagnostics: ReportedDiagnostic[];
}

export class LintCache {
  private readonly folder: string;
  /** Hashes of workspace files read during this run: each is read once however many entries name it. */
  private readonly fileHashes = new Map<string, string | null>();
  private prepared: Promise<void> | undefined;
  private writeProblemReported = false;

  constructor(
    private readonly location: CacheLocation,
    /** The module roots of the run's workspace index, as one string. */
    private readonly workspace: string,
    private readonly onProblem: (message: string) => void,
  ) {
    this.folder = path.join(location.folder, location.engine);
  }

  keyFor(inputs: FileInputs): string {
    const { lint } = inputs;
    const severities = Object.entries(lint.severities ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const settings = { severities, select: lint.select ?? null, ignore: lint.ignore ?? null };
    return createHash("sha256")
      .update(JSON.stringify([FORMAT_VERSION, this.location.engine, settings, inputs.file, inputs.pin ?? null, inputs.baselineText ?? null]))
      .update("\0")
      .update(inputs.text)
      .digest("hex");
  }

  /**
   * The findings stored under `key`, when its entry is sound and every workspace file it consulted
   * is as it was. Reads synchronously: entries are small, and a promise per read costs more than
   * the read on a warm run.
   */
  lookup(key: string): ReportedDiagnostic[] | undefined {
    let entry: Entry;
    try {
      entry = JSON.parse(readFileSync(this.entryPath(key), "utf8")) as Entry;
    } catch {
      return undefined;
    }
    if (!isSound(entry, key)) return undefined;
    if (entry.dependencies.length > 0) {
      if (entry.workspace !== this.workspace) return undefined;
      for (const [file, hash] of entry.dependencies) if (this.hashOf(file) !== hash) return undefined;
    }
    return entry.diagnostics;
  }

  /** Stores the findings of a file whose lint consulted `consulted` in the workspace. Never throws. */
  async store(key: string, diagnostics: readonly ReportedDiagnostic[], consulted: ReadonlySet<string>): Promise<void> {
    try {
      const dependencies: [string, string | null][] = [];
      for (const file of [...consulted].sort()) dependencies.push([file, this.hashOf(file)]);
      const entry: Entry = { format: FORMAT_VERSION, key, workspace: this.workspace, dependencies, diagnostics: [...diagnostics] };
      await this.prepare();
      const target = this.entryPath(key);
      // A name no other writer uses, in the same folder so the rename cannot cross file systems.
      const temporary = `${target}.${process.pid}-${threadId}-${Math.random().toString(36).slice(2)}.tmp`;
      await fs.writeFile(temporary, JSON.stringify(entry));
      await fs.rename(temporary, target).catch(async (error: unknown) => {
        await fs.rm(temporary, { force: true });
        // Windows refuses to replace a file another run has open: that run wrote the same entry.
        if (!(await fs.stat(target).catch(() => undefined))) throw error;
      });
    } catch (error) {
      if (this.writeProblemReported) return;
      this.writeProblemReported = true;
      this.onProblem(`could not write the cache in ${this.location.folder}, so this run was not cached: ${describeError(error)}`);
    }
  }

  private entryPath(key: string): string {
    return path.join(this.folder, `${key}.json`);
  }

  /** Creates the folders, and the files that keep git and backups out of them, once per run. */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await fs.mkdir(this.folder, { recursive: true });
      await writeIfAbsent(path.join(this.location.folder, ".gitignore"), "# Created by airflow-state-lint.\n*\n");
      await writeIfAbsent(path.join(this.location.folder, "CACHEDIR.TAG"), CACHEDIR_TAG);
    })();
    return this.prepared;
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

async function writeIfAbsent(file: string, text: string): Promise<void> {
  await fs.writeFile(file, text, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
}

/** Whether a parsed entry has the shape this build writes, for this key: anything else is a miss. */
function isSound(entry: Entry, key: string): boolean {
  return (
    typeof entry === "object" &&
    entry !== null &&
    entry.format === FORMAT_VERSION &&
    entry.key === key &&
    typeof entry.workspace === "string" &&
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
