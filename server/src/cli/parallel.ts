/**
 * Checks many files on every core: the main thread and worker threads (checkWorker.ts) each take
 * batches of files from a shared queue, so a thread that drew slow files simply takes fewer. The
 * main thread asks the cache about each file as the search finds it; only the files it cannot
 * answer are queued, and the workers start only once there are enough of those to pay for
 * starting them, while the search goes on. Outcomes are put back in the files' order, so the
 * report is the same as a run on one thread.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import { checkFile, CheckSettings, crashedOutcome, FileOutcome, outcomeWithoutLint } from "./check";
import { CHECK_WORKER, CheckWorkerData, FromWorker, ToWorker } from "./checkWorker";
import { mapConcurrently } from "./files";
import { CheckJob } from "./job";
import { FileConfiguration } from "../engine/project";

/** Below this many files to lint, starting threads (each loads the parser and the rules) costs more than it saves. */
const MIN_FILES_FOR_THREADS = 50;
/** Files per message: enough to keep a thread busy between two messages, few enough to share the tail of the queue. */
const BATCH_SIZE = 16;
/**
 * Batches a worker holds at once: while it checks one, the next waits in its port, so it does not
 * sit idle until the main thread, busy with files of its own, gets round to answering.
 */
const BATCHES_IN_FLIGHT = 2;
/** Files the main thread checks between two looks at its workers' messages: each waits that long at most for its next batch. */
const MAIN_THREAD_BATCH_SIZE = 4;
/**
 * Cache lookups under way at once. A lookup does not lint; all it can wait for is git (AS301's
 * baseline text is part of the key), which answers one request after another: with many waiting,
 * the main thread reads and looks up the other files meanwhile instead of sitting idle.
 */
const CONCURRENT_LOOKUPS = 64;

/**
 * How many threads may check the files at most, the main thread included; 1 means the main thread alone. `--fix` stays on
 * one thread: a fix writes a module back and updates the workspace index, so that files checked
 * after it that import it see its new text, which a thread with an index of its own would not.
 */
export function maxThreads(job: CheckJob, forced: number | undefined): number {
  if (job.fixes === "fix") return 1;
  return forced !== undefined ? Math.max(1, forced) : os.availableParallelism();
}

export interface ThreadOptions {
  /** The CLI's bundle, which serves checks when started as a worker. */
  script: string;
  /** The most threads to start (all of them at once when the count is forced). */
  threads: number;
  /** Whether the count was forced: the threads then start whatever the number of files. */
  forced: boolean;
  concurrentFiles: number;
  /** Warnings of the threads (git problems), each said once. */
  warn: (message: string) => void;
}

/**
 * Checks files as the search finds them (`add`), so that the cache answers, and the threads start
 * and lint, while the rest of the tree is still being searched and its exclusions read. Files the
 * cache cannot answer are queued; once there are more than MIN_FILES_FOR_THREADS of them (or at
 * once when the thread count is forced) the main thread starts checking them and a worker starts,
 * then one more for every MIN_FILES_FOR_THREADS queued, up to one thread per core. If too few are
 * queued by the end, the main thread lints them alone.
 */
export class StreamingCheck {
  private readonly files: string[] = [];
  private readonly outcomes: FileOutcome[] = [];
  private readonly toLint: number[] = [];
  private pool: ThreadPool | undefined;
  /** Files waiting for the cache (with their configuration, when the search read it), and how many lookups are under way. */
  private readonly lookups: { index: number; configuration?: FileConfiguration }[] = [];
  private lookingUp = 0;
  private lookedUp: (() => void) | undefined;

  constructor(
    private readonly job: CheckJob,
    private readonly settings: CheckSettings,
    private readonly options: ThreadOptions,
  ) {}

  /** `configuration`: the file's, read with the run's overrides, when the caller has it. */
  add(file: string, configuration?: FileConfiguration): void {
    const index = this.files.push(file) - 1;
    if (!this.settings.cache) {
      this.queue(index);
      return;
    }
    this.lookups.push({ index, configuration });
    this.lookUpNext();
  }

  /** The outcomes of every file added, in the order they were added. */
  async finish(): Promise<FileOutcome[]> {
    if (this.lookingUp > 0 || this.lookups.length > 0) await new Promise<void>((resolve) => (this.lookedUp = resolve));
    if (this.pool) {
      await this.pool.finish();
    } else {
      await mapConcurrently(this.toLint, this.options.concurrentFiles, async (index) => {
        this.outcomes[index] = await checkFile(this.files[index], this.settings);
      });
    }
    return this.outcomes;
  }

  private lookUpNext(): void {
    while (this.lookingUp < CONCURRENT_LOOKUPS && this.lookups.length > 0) {
      const { index, configuration } = this.lookups.shift()!;
      this.lookingUp++;
      void outcomeWithoutLint(this.files[index], this.settings, configuration)
        .then(
          (known) => {
            if (known) this.outcomes[index] = known;
            else this.queue(index);
          },
          (error: unknown) => {
            this.outcomes[index] = crashedOutcome(this.files[index], error);
          },
        )
        .finally(() => {
          this.lookingUp--;
          this.lookUpNext();
          if (this.lookingUp === 0 && this.lookups.length === 0) this.lookedUp?.();
        });
    }
  }

  private queue(index: number): void {
    this.toLint.push(index);
    if (this.pool) {
      this.pool.submit(index, this.files[index]);
    } else if (this.options.forced || this.toLint.length > MIN_FILES_FOR_THREADS) {
      this.pool = new ThreadPool(
        this.job,
        this.options,
        (file) => checkFile(file, this.settings),
        (done, outcome) => (this.outcomes[done] = outcome),
      );
      for (const queued of this.toLint) this.pool.submit(queued, this.files[queued]);
    }
    this.pool?.grow(this.options.forced ? this.options.threads : Math.ceil(this.toLint.length / MIN_FILES_FOR_THREADS));
  }
}

/**
 * Threads that check the files submitted to them, in batches, until `finish` says no more will
 * come. The main thread is one of them: between two of its own batches it hands the workers theirs,
 * so a run on N cores starts N - 1 workers, and the main thread lints from the start instead of
 * waiting for its workers to load the engine.
 */
class ThreadPool {
  private readonly queue: { index: number; file: string }[] = [];
  /** Threads waiting for files. */
  private readonly idle: (() => void)[] = [];
  private closed = false;
  private readonly exited: Promise<void>[] = [];
  private readonly unfinished = new Map<number, string>();
  private readonly warned = new Set<string>();
  private readonly data: CheckWorkerData;

  constructor(
    job: CheckJob,
    private readonly options: ThreadOptions,
    private readonly checkHere: (file: string) => Promise<FileOutcome>,
    private readonly done: (index: number, outcome: FileOutcome) => void,
  ) {
    this.data = { kind: CHECK_WORKER, job, concurrentFiles: options.concurrentFiles };
    this.exited.push(this.checkOnMainThread());
  }

  /** Starts worker threads until `count` threads check files, the main thread included (never more than the run allows, never after `finish`). */
  grow(count: number): void {
    while (!this.closed && this.exited.length < Math.min(count, this.options.threads)) this.exited.push(this.runWorker(this.data));
  }

  submit(index: number, file: string): void {
    this.queue.push({ index, file });
    this.unfinished.set(index, file);
    this.idle.shift()?.();
  }

  /** Waits for every submitted file; a file no thread could finish is reported as an internal error, not dropped. */
  async finish(): Promise<void> {
    this.closed = true;
    for (const wake of this.idle.splice(0)) wake();
    await Promise.all(this.exited);
    for (const [index, file] of this.unfinished) this.done(index, { file, diagnostics: [], fixed: 0, errors: ["internal error: no checking thread was left to check the file"] });
  }

  private finished(index: number, outcome: FileOutcome): void {
    this.unfinished.delete(index);
    this.done(index, outcome);
  }

  /** The next files for one thread: `size` while files are still coming, then smaller, so the threads finish together. */
  private take(size: number): { index: number; file: string }[] {
    const share = this.closed ? Math.ceil(this.queue.length / (2 * this.exited.length)) : size;
    return this.queue.splice(0, Math.max(1, Math.min(size, share)));
  }

  private async checkOnMainThread(): Promise<void> {
    for (;;) {
      const batch = this.take(MAIN_THREAD_BATCH_SIZE);
      if (batch.length === 0) {
        if (this.closed) return;
        await new Promise<void>((wake) => this.idle.push(wake));
        continue;
      }
      for (const { index, file } of batch) this.finished(index, await this.checkHere(file).catch((error: unknown) => crashedOutcome(file, error)));
      // The workers' answers and the search's folder listings wait for the main thread: let them in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private runWorker(data: CheckWorkerData): Promise<void> {
    return new Promise((resolve) => {
      const worker = new Worker(this.options.script, { workerData: data });
      /** The files sent and not answered yet, in up to BATCHES_IN_FLIGHT batches. */
      const inFlight = new Map<number, string>();
      let batches = 0;
      let waiting = false;
      let stopped = false;
      const sendNext = () => {
        waiting = false;
        if (stopped) return;
        while (batches < BATCHES_IN_FLIGHT && this.queue.length > 0) {
          const batch = this.take(BATCH_SIZE);
          for (const { index, file } of batch) inFlight.set(index, file);
          batches++;
          worker.postMessage({ type: "check", batch } satisfies ToWorker);
        }
        if (this.closed && batches === 0) {
          stopped = true;
          worker.postMessage({ type: "stop" } satisfies ToWorker);
          // Every file it was sent is answered: the report need not wait for the thread to wind down.
          resolve();
        } else if (!this.closed && batches < BATCHES_IN_FLIGHT && !waiting) {
          waiting = true;
          this.idle.push(sendNext);
        }
      };
      worker.on("message", (message: FromWorker) => {
        if (message.type === "warning") {
          if (!this.warned.has(message.message)) this.options.warn(message.message);
          this.warned.add(message.message);
          return;
        }
        for (const { index, outcome } of message.outcomes) {
          inFlight.delete(index);
          this.finished(index, outcome);
        }
        batches--;
        sendNext();
      });
      // A thread that fails reports the files it held; the other threads carry on with the queue.
      worker.on("error", (error) => {
        stopped = true;
        for (const [index, file] of inFlight) this.finished(index, { file, diagnostics: [], fixed: 0, errors: [`internal error in a checking thread: ${error.message}`] });
        inFlight.clear();
      });
      worker.on("exit", () => {
        stopped = true;
        resolve();
      });
      sendNext();
    });
  }
}
