/**
 * Checks many files on every core: worker threads (checkWorker.ts) each take batches of files
 * from a shared queue, so a thread that drew slow files simply takes fewer. Outcomes are put back
 * in the files' order, so the report is the same as a run on one thread.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import { FileOutcome } from "./check";
import { CHECK_WORKER, CheckWorkerData, FromWorker, ToWorker } from "./checkWorker";
import { CheckJob } from "./job";

/** Below this many files, starting threads (each loads the parser and the rules) costs more than it saves. */
const MIN_FILES_FOR_THREADS = 50;
/** Files per message: enough to keep a thread busy between two messages, few enough to share the tail of the queue. */
const BATCH_SIZE = 16;

/**
 * How many threads check the files; 1 means the main thread alone. `--fix` stays on one thread:
 * a fix writes a module back and updates the workspace index, so that files checked after it
 * that import it see its new text, which a thread with an index of its own would not.
 */
export function threadCount(files: number, job: CheckJob, forced: number | undefined): number {
  if (forced !== undefined) return job.fix ? 1 : Math.max(1, forced);
  if (job.fix || files <= MIN_FILES_FOR_THREADS) return 1;
  return Math.max(1, Math.min(os.availableParallelism(), Math.ceil(files / MIN_FILES_FOR_THREADS)));
}

export interface ThreadOptions {
  /** The CLI's bundle, which serves checks when started as a worker. */
  script: string;
  threads: number;
  concurrentFiles: number;
  /** Warnings of the threads (git problems), each said once. */
  warn: (message: string) => void;
}

export function checkInThreads(files: readonly string[], job: CheckJob, options: ThreadOptions): Promise<FileOutcome[]> {
  const outcomes = new Array<FileOutcome | undefined>(files.length);
  let next = 0;
  const warned = new Set<string>();
  const data: CheckWorkerData = { kind: CHECK_WORKER, job, concurrentFiles: options.concurrentFiles };

  const runThread = () =>
    new Promise<void>((resolve) => {
      const worker = new Worker(options.script, { workerData: data });
      let inFlight: { index: number; file: string }[] = [];
      const send = (message: ToWorker) => worker.postMessage(message);
      const sendNext = () => {
        inFlight = [];
        while (inFlight.length < BATCH_SIZE && next < files.length) inFlight.push({ index: next, file: files[next++] });
        send(inFlight.length > 0 ? { type: "check", batch: inFlight } : { type: "stop" });
      };
      worker.on("message", (message: FromWorker) => {
        if (message.type === "warning") {
          if (!warned.has(message.message)) options.warn(message.message);
          warned.add(message.message);
          return;
        }
        for (const { index, outcome } of message.outcomes) outcomes[index] = outcome;
        sendNext();
      });
      // A thread that fails reports its unfinished files; the other threads carry on with the queue.
      worker.on("error", (error) => {
        for (const { index, file } of inFlight) outcomes[index] ??= { file, diagnostics: [], fixed: 0, errors: [`internal error in a checking thread: ${error.message}`] };
        inFlight = [];
      });
      worker.on("exit", () => resolve());
      sendNext();
    });

  return Promise.all(Array.from({ length: options.threads }, runThread)).then(() =>
    // Files no thread got to (every thread failed early) are reported, not dropped.
    files.map((file, index) => outcomes[index] ?? { file, diagnostics: [], fixed: 0, errors: ["internal error: no checking thread was left to check the file"] }),
  );
}
