/**
 * Checks many files on every core: worker threads (checkWorker.ts) each take batches of files
 * from a shared queue, so a thread that drew slow files simply takes fewer. The main thread first
 * asks the cache about each file; only the files it cannot answer are queued, and the threads
 * start only once there are enough of those to pay for starting them. Outcomes are put back in
 * the files' order, so the report is the same as a run on one thread.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import { checkFile, CheckSettings, FileOutcome, outcomeWithoutLint } from "./check";
import { CHECK_WORKER, CheckWorkerData, FromWorker, ToWorker } from "./checkWorker";
import { mapConcurrently } from "./files";
import { CheckJob } from "./job";

/** Below this many files to lint, starting threads (each loads the parser and the rules) costs more than it saves. */
const MIN_FILES_FOR_THREADS = 50;
/** Files per message: enough to keep a thread busy between two messages, few enough to share the tail of the queue. */
const BATCH_SIZE = 16;

/**
 * How many threads may check the files; 1 means the main thread alone. `--fix` stays on one
 * thread: a fix writes a module back and updates the workspace index, so that files checked
 * after it that import it see its new text, which a thread with an index of its own would not.
 */
export function threadCount(files: number, job: CheckJob, forced: number | undefined): number {
  if (forced !== undefined) return job.fixes === "fix" ? 1 : Math.max(1, forced);
  if (job.fixes === "fix" || files <= MIN_FILES_FOR_THREADS) return 1;
  return Math.max(1, Math.min(os.availableParallelism(), Math.ceil(files / MIN_FILES_FOR_THREADS)));
}

export interface ThreadOptions {
  /** The CLI's bundle, which serves checks when started as a worker. */
  script: string;
  threads: number;
  /** Whether the count was forced: the threads then start whatever the number of files. */
  forced: boolean;
  concurrentFiles: number;
  /** Warnings of the threads (git problems), each said once. */
  warn: (message: string) => void;
}

/** Checks `files` with the main thread's `settings` for the cache and on threads for the rest. */
export async function checkOnThreads(files: readonly string[], job: CheckJob, settings: CheckSettings, options: ThreadOptions): Promise<FileOutcome[]> {
  const outcomes = new Array<FileOutcome>(files.length);
  const toLint: number[] = [];
  let pool: ThreadPool | undefined;
  const queue = (index: number) => {
    toLint.push(index);
    if (pool) pool.submit(index, files[index]);
    else if (options.forced || toLint.length > MIN_FILES_FOR_THREADS) {
      pool = new ThreadPool(job, options, (index, outcome) => (outcomes[index] = outcome));
      for (const queued of toLint) pool.submit(queued, files[queued]);
    }
  };
  const indices = files.map((_, index) => index);
  if (settings.cache) {
    await mapConcurrently(indices, options.concurrentFiles, async (index) => {
      const known = await outcomeWithoutLint(files[index], settings);
      if (known) outcomes[index] = known;
      else queue(index);
    });
  } else {
    for (const index of indices) queue(index);
  }
  if (pool) {
    await pool.finish();
  } else {
    await mapConcurrently(toLint, options.concurrentFiles, async (index) => {
      outcomes[index] = await checkFile(files[index], settings);
    });
  }
  return outcomes;
}

/** Threads that check the files submitted to them, in batches, until `finish` says no more will come. */
class ThreadPool {
  private readonly queue: { index: number; file: string }[] = [];
  /** Threads waiting for files. */
  private readonly idle: (() => void)[] = [];
  private closed = false;
  private readonly exited: Promise<void>[];
  private readonly unfinished = new Map<number, string>();
  private readonly warned = new Set<string>();

  constructor(
    job: CheckJob,
    private readonly options: ThreadOptions,
    private readonly done: (index: number, outcome: FileOutcome) => void,
  ) {
    const data: CheckWorkerData = { kind: CHECK_WORKER, job, concurrentFiles: options.concurrentFiles };
    this.exited = Array.from({ length: options.threads }, () => this.runThread(data));
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
        inFlight = this.queue.splice(0, BATCH_SIZE);
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
