/**
 * Reads files' committed text, the baseline that AS301 compares `external_id_key` against.
 * Never throws: no git, a file outside a repository, an untracked file, an unknown revision, a git
 * process that dies or does not answer all mean "no baseline", and the rule stays silent.
 */
import { ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import * as path from "node:path";

/** Committed versions larger than this are not read: no DAG file is that long, and reading one would cost more than it tells. */
export const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

const DEFAULT_TIMEOUT_MS = 5000;

function git(args: string[], cwd: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, timeout: timeoutMs, maxBuffer: MAX_BASELINE_BYTES, windowsHide: true }, (error, stdout) => {
      resolve(error ? undefined : stdout);
    });
  });
}

/** git reads a revision that starts with a dash as one of its own options; the CLI refuses such a `--baseline` too. */
export function isUsableRevision(revision: string): boolean {
  return revision.trim() !== "" && !revision.startsWith("-");
}

/** Runs one git command in `cwd`: its standard output, or undefined when it fails. Replaceable so tests can count the processes. */
export type GitRunner = (args: string[], cwd: string, timeoutMs: number) => Promise<string | undefined>;

/** The git top level of `directory`, with symlinks resolved as git reports it, or undefined outside a work tree. */
async function topLevelOf(directory: string, timeoutMs: number, run: GitRunner = git): Promise<string | undefined> {
  const top = await run(["rev-parse", "--show-toplevel"], directory, timeoutMs);
  return top?.trim() || undefined;
}

/** `path` relative to `top` in git's spelling (forward slashes). */
function gitPath(top: string, absolute: string): string {
  return path.relative(top, absolute).split(path.sep).join("/");
}

/**
 * The text of `filePath` at `revision` (default `HEAD`) through two one-off git processes, or
 * undefined when there is none. For a single read; `GitBaselines` serves many files.
 */
export async function committedText(filePath: string, revision = "HEAD", timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string | undefined> {
  if (!isUsableRevision(revision)) return undefined;
  // git reports the top level with symlinks resolved, so the file's path must be too.
  const absolute = await fs.realpath(filePath).catch(() => undefined);
  if (!absolute) return undefined;
  const directory = path.dirname(absolute);
  const top = await topLevelOf(directory, timeoutMs);
  if (!top) return undefined;
  return showAt(top, gitPath(top, absolute), revision, directory, timeoutMs);
}

function showAt(top: string, relative: string, revision: string, cwd: string, timeoutMs: number): Promise<string | undefined> {
  // `--end-of-options` (git 2.24) makes sure the revision is never read as an option, even if a caller
  // skipped `isUsableRevision`; `--` ends the revisions, so a path is never taken for one.
  return git(["show", "--end-of-options", `${revision}:${relative}`, "--"], cwd, timeoutMs);
}

/** The top level of a folder with no `.git` in it or in any folder above it: none. */
const OUTSIDE_ANY_REPOSITORY: Promise<string | undefined> = Promise.resolve(undefined);

/** Starts `git cat-file --batch` in a repository; replaceable so tests can count the processes. */
export type BatchSpawner = (top: string) => ChildProcessWithoutNullStreams;

const spawnCatFile: BatchSpawner = (top) => spawn("git", ["cat-file", "--batch"], { cwd: top, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });

export interface GitBaselinesOptions {
  /** How long one answer may take before its process is given up (default 5 s). */
  timeoutMs?: number;
  spawnBatch?: BatchSpawner;
  /** Runs the one-off commands (`git rev-parse --show-toplevel`). */
  runGit?: GitRunner;
  /** Told, once per repository, why its git process stopped answering. */
  onProblem?: (message: string) => void;
}

/**
 * Committed texts for many files through one long-lived `git cat-file --batch` per repository,
 * instead of two git processes per file. Owned by its caller, who disposes it: that ends the
 * processes. Idle processes never keep node's event loop alive, so a caller that forgets to
 * dispose still exits.
 */
export class GitBaselines {
  /** Folder -> its repository's top level, asked of git once per repository (see `knownTopLevel`). */
  private readonly topLevels = new Map<string, Promise<string | undefined>>();
  /** Top level -> the process serving it. */
  private readonly readers = new Map<string, BlobReader>();
  private readonly timeoutMs: number;
  private disposed = false;

  constructor(private readonly options: GitBaselinesOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The text of `filePath` at `revision` (default `HEAD`), or undefined when there is none. */
  async committedText(filePath: string, revision = "HEAD"): Promise<string | undefined> {
    if (this.disposed || !isUsableRevision(revision)) return undefined;
    const absolute = await fs.realpath(filePath).catch(() => undefined);
    if (!absolute) return undefined;
    const directory = path.dirname(absolute);
    const top = await this.topLevel(directory);
    if (!top || this.disposed) return undefined;
    const relative = gitPath(top, absolute);
    const object = `${revision}:${relative}`;
    // The batch protocol is one request per line, and git drops a carriage return before the newline.
    if (/[\r\n]/.test(object)) return showAt(top, relative, revision, directory, this.timeoutMs);
    return this.reader(top).read(object);
  }

  /** Ends every git process; later reads answer "no baseline". */
  dispose(): void {
    this.disposed = true;
    for (const reader of this.readers.values()) reader.dispose();
    this.readers.clear();
  }

  private topLevel(directory: string): Promise<string | undefined> {
    let top = this.topLevels.get(directory);
    if (!top) {
      const answer = this.knownTopLevel(directory) ?? this.askTopLevel(directory);
      this.topLevels.set(directory, answer);
      // Only a repository is remembered: a folder that is not in one yet (or whose git failed) may be after a `git init`.
      void answer.then((found) => {
        if (!found && this.topLevels.get(directory) === answer) this.topLevels.delete(directory);
      });
      top = answer;
    }
    return top;
  }

  /** Asks git; the folders between `directory` and its top level hold no `.git` (git would have stopped there), so they share the answer. */
  private askTopLevel(directory: string): Promise<string | undefined> {
    const asked = topLevelOf(directory, this.timeoutMs, this.options.runGit);
    void asked.then((top) => {
      if (!top || !directory.startsWith(top + path.sep)) return;
      for (let current = path.dirname(directory); ; current = path.dirname(current)) {
        if (!this.topLevels.has(current)) this.topLevels.set(current, asked);
        if (current === top) break;
      }
    });
    return asked;
  }

  /**
   * The answer for `directory` without running git, when it is below a folder already asked about
   * and no folder on the way holds a `.git` (a nested repository, a submodule): git looks up for
   * `.git` in the same way, so it would give the same answer. One git process per repository then
   * answers for all its folders. When no folder up to the root holds a `.git`, git would find no
   * work tree either (unless `GIT_DIR` names one): the folder is outside any repository, and asking
   * git for each of its files would start a process per file for that answer.
   */
  private knownTopLevel(directory: string): Promise<string | undefined> | undefined {
    for (let current = directory; !existsSync(path.join(current, ".git")); ) {
      const parent = path.dirname(current);
      if (parent === current) return process.env.GIT_DIR ? undefined : OUTSIDE_ANY_REPOSITORY;
      const known = this.topLevels.get(parent);
      if (known) return known;
      current = parent;
    }
    return undefined;
  }

  private reader(top: string): BlobReader {
    let reader = this.readers.get(top);
    if (!reader) {
      reader = new BlobReader(top, this.options.spawnBatch ?? spawnCatFile, this.timeoutMs, this.options.onProblem);
      this.readers.set(top, reader);
    }
    return reader;
  }
}

/** The body being received for the request at the head of the queue. */
interface Body {
  /** Bytes still to come, the newline git ends each object with included. */
  remaining: number;
  size: number;
  /** Undefined when the object is not wanted (not a blob, or too large): its bytes are skipped. */
  chunks: Buffer[] | undefined;
}

/** How much of git's complaint to keep for the one message that says why its process stopped. */
const MAX_STDERR_CHARACTERS = 500;

/**
 * One `git cat-file --batch` process: requests are written as they come and answered in order
 * (git answers each line before reading the next), so they are pipelined. A process that dies,
 * says something unexpected or does not answer in time is killed, its pending requests answer
 * "no baseline", and the next request starts a new one.
 */
class BlobReader {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly waiting: ((text: string | undefined) => void)[] = [];
  /** Bytes of a header line received so far. */
  private header = Buffer.alloc(0);
  private body: Body | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stderr = "";
  private problemReported = false;
  private disposed = false;

  constructor(
    private readonly top: string,
    private readonly spawnBatch: BatchSpawner,
    private readonly timeoutMs: number,
    private readonly onProblem: ((message: string) => void) | undefined,
  ) {}

  read(object: string): Promise<string | undefined> {
    if (this.disposed) return Promise.resolve(undefined);
    const child = this.child ?? this.start();
    if (!child) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length === 1) {
        this.holdEventLoop(true);
        this.armTimer();
      }
      child.stdin.write(`${object}\n`);
    });
  }

  dispose(): void {
    this.disposed = true;
    this.stop(undefined);
  }

  private start(): ChildProcessWithoutNullStreams | undefined {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = this.spawnBatch(this.top);
    } catch (error) {
      this.report(`could not start git cat-file: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    this.child = child;
    this.header = Buffer.alloc(0);
    this.body = undefined;
    this.stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      if (this.child === child) this.receive(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (this.stderr.length < MAX_STDERR_CHARACTERS) this.stderr += chunk.toString("utf8");
    });
    // A write to a process that just died fails with EPIPE; its exit is handled below.
    child.stdin.on("error", () => undefined);
    child.on("error", (error) => {
      if (this.child === child) this.stop(`git cat-file failed: ${error.message}`);
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      const why = signal ? `was killed by ${signal}` : `exited with status ${code}`;
      this.stop(`git cat-file ${why}${this.stderr.trim() ? `: ${this.stderr.trim().slice(0, MAX_STDERR_CHARACTERS)}` : ""}`);
    });
    this.holdEventLoop(false);
    return child;
  }

  /** Parses `<oid> <type> <size>\n<bytes>\n`, `<object> missing\n` and `<object> ambiguous\n`, however git splits them into chunks. */
  private receive(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && this.child) {
      if (this.body) {
        const take = Math.min(this.body.remaining, chunk.length - offset);
        this.body.chunks?.push(chunk.subarray(offset, offset + take));
        this.body.remaining -= take;
        offset += take;
        if (this.body.remaining === 0) {
          const { chunks, size } = this.body;
          this.body = undefined;
          // Decoded only once every byte is there: a character may straddle two chunks.
          this.answer(chunks ? Buffer.concat(chunks).subarray(0, size).toString("utf8") : undefined);
        }
        continue;
      }
      const newline = chunk.indexOf(0x0a, offset);
      if (newline === -1) {
        this.header = Buffer.concat([this.header, chunk.subarray(offset)]);
        return;
      }
      const line = Buffer.concat([this.header, chunk.subarray(offset, newline)]).toString("utf8");
      this.header = Buffer.alloc(0);
      offset = newline + 1;
      this.parseHeader(line);
    }
  }

  private parseHeader(line: string): void {
    if (this.waiting.length === 0) {
      this.stop(`git cat-file said more than it was asked: "${line.slice(0, 80)}"`);
      return;
    }
    const found = /^[0-9a-f]{40,64} (\S+) (\d+)$/.exec(line);
    if (found) {
      const size = Number(found[2]);
      const wanted = found[1] === "blob" && size <= MAX_BASELINE_BYTES;
      this.body = { remaining: size + 1, size, chunks: wanted ? [] : undefined };
      return;
    }
    // The object is echoed as it was asked, spaces and all: only the last word is git's answer.
    if (line.endsWith(" missing") || line.endsWith(" ambiguous")) {
      this.answer(undefined);
      return;
    }
    this.stop(`git cat-file answered something unexpected: "${line.slice(0, 80)}"`);
  }

  private answer(text: string | undefined): void {
    this.waiting.shift()?.(text);
    this.clearTimer();
    if (this.waiting.length > 0) this.armTimer();
    else this.holdEventLoop(false);
  }

  /** Ends the process; every pending request answers "no baseline". `why` is reported once, unless the end was asked for. */
  private stop(why: string | undefined): void {
    const child = this.child;
    this.child = undefined;
    this.body = undefined;
    this.clearTimer();
    if (child) {
      child.stdin.end();
      child.kill();
    }
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
    if (why && !this.disposed) this.report(why);
  }

  private report(why: string): void {
    if (this.problemReported) return;
    this.problemReported = true;
    this.onProblem?.(`${why}; AS301 has no baseline for the files of ${this.top} it could not read.`);
  }

  private armTimer(): void {
    this.timer = setTimeout(() => this.stop(`git cat-file did not answer within ${this.timeoutMs} ms`), this.timeoutMs);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The process keeps node running only while an answer is awaited, so an idle one never delays exit. */
  private holdEventLoop(hold: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as { ref?(): void; unref?(): void }[]) {
      if (hold) handle.ref?.();
      else handle.unref?.();
    }
  }
}
