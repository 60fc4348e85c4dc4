/**
 * Checks many files on every core: worker threads (checkWorker.ts) each take batches of files
 * from a shared queue, so a thread that drew slow files simply takes fewer. The main thread asks
 * the cache about each file as the search finds it; only the files it cannot answer are queued,
 * and the threads start only once there are enough of those to pay for starting them, while the
 * search goes on. Outcomes are put back in the files' order, so the report is the same as a run
 * on one thread.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import { checkFile, CheckSettings, crashedOutcome, FileOutcome, outcomeWithoutLint } from "./check";
import { CHECK_WORKER, CheckWorkerData, FromWorker, ToWorker } from "./checkWorker";
import { mapConcurrently } from "./files";
import { CheckJob } from "./job";

/** Below this many files to lint, starting threads (each loads the parser and the rules) costs more than it saves. */
const MIN_FILES_FOR_THREADS = 50;
/** Files per message: enough to keep a thread busy between two messages, few enough to share the tail of the queue. */
const BATCH_SIZE = 16;

/**
 * How many threads may check the files at most; 1 means the main thread alone. `--fix` stays on
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
 * cache cannot answer are queued; threads start once there are more than MIN_FILES_FOR_THREADS of
 * them (or at once when their count is forced), one more for every MIN_FILES_FOR_THREADS queued,
 * up to one per core. If too few are queued by the end, the main thread lints them.
 */
export class StreamingCheck {
  private readonly files: string[] = [];
  private readonly outcomes: FileOutcome[] = [];
  private readonly toLint: number[] = [];
  private pool: ThreadPool | undefined;
  /** Files waiting for the cache, and how many lookups are under way. */
  private readonly lookups: number[] = [];
  private lookingUp = 0;
  private lookedUp: (() => void) | undefined;

  constructor(
    private readonly job: CheckJob,
    private readonly settings: CheckSettings,
    private readonly options: ThreadOptions,
  ) {}

  add(file: string): void {
    const index = this.files.push(file) - 1;
    if (!this.settings.cache) {
      this.queue(index);
      return;
    }
    this.lookups.push(index);
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
    while (this.lookingUp < this.options.concurrentFiles && this.lookups.length > 0) {
      const index = this.lookups.shift()!;
      this.lookingUp++;
      void outcomeWithoutLint(this.files[index], this.settings)
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
      this.pool = new ThreadPool(this.job, this.options, (done, outcome) => (this.outcomes[done] = outcome));
      for (const queued of this.toLint) this.pool.submit(queued, this.files[queued]);
    }
    this.pool?.grow(this.options.forced ? this.options.threads : Math.ceil(this.toLint.length / MIN_FILES_FOR_THREADS));
  }
}

/** Threads that check the files submitted to them, in batches, until `finish` says no more will come. */
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
    private readonly done: (index: number, outcome: FileOutcome) => void,
  ) {
    this.data = { kind: CHECK_WORKER, job, concurrentFiles: options.concurrentFiles };
  }

  /** Starts threads until `count` run (never more than the run allows, never after `finish`). */
  grow(count: number): void {
    while (!this.closed && this.exited.length < Math.min(count, this.options.threads)) this.exited.push(this.runThread(this.data));
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

  private runThread(data: CheckWorkerData): Promise<void> {
    return new Promise((resolve) => {
      const worker = new Worker(this.options.script, { workerData: data });
      let inFlight: { index: number; file: string }[] = [];
      const send = (message: ToWorker) => worker.postMessage(message);
      const sendNext = () => {
        // Once every file is queued, smaller batches as the queue runs out, so the threads finish together.
        const size = this.closed ? Math.max(1, Math.min(BATCH_SIZE, Math.ceil(this.queue.length / (2 * this.exited.length)))) : BATCH_SIZE;
        inFlight = this.queue.splice(0, size);
        if (inFlight.length > 0) send({ type: "check", batch: inFlight });
        else if (this.closed) send({ type: "stop" });
        else this.idle.push(sendNext);
      };
      worker.on("message", (message: FromWorker) => {
        if (message.type === "warning") {
          if (!this.warned.has(message.message)) this.options.warn(message.message);
          this.warned.add(message.message);
          return;
        }
        for (const { index, outcome } of message.outcomes) {
          this.unfinished.delete(index);
          this.done(index, outcome);
        }
        sendNext();
      });
      // A thread that fails reports the files it held; the other threads carry on with the queue.
      worker.on("error", (error) => {
        for (const { index, file } of inFlight) {
          this.unfinished.delete(index);
          this.done(index, { file, diagnostics: [], fixed: 0, errors: [`internal error in a checking thread: ${error.message}`] });
        }
        inFlight = [];
      });
      worker.on("exit", () => resolve());
      sendNext();
    });
  }
}
