/**
 * The worker-thread side of a parallel run (parallel.ts is the other): the thread builds its own
 * settings from the job it is started with, checks each batch of files it is sent, concurrently
 * as the main thread would, and answers with their outcomes.
 */
import { parentPort, workerData } from "node:worker_threads";
import { GitBaselines } from "../engine/project/git";
import { checkFile, crashedOutcome, FileOutcome } from "./check";
import { mapConcurrently } from "./files";
import { CheckJob, checkSettings } from "./job";

/** Marks the `workerData` of a check thread, which runs the CLI's own bundle. */
export const CHECK_WORKER = "airflow-state-lint/check";

export interface CheckWorkerData {
  kind: typeof CHECK_WORKER;
  job: CheckJob;
  concurrentFiles: number;
}

/** Main thread → worker. */
export type ToWorker = { type: "check"; batch: { index: number; file: string }[] } | { type: "stop" };

/** Worker → main thread. */
export type FromWorker = { type: "checked"; outcomes: { index: number; outcome: FileOutcome }[] } | { type: "warning"; message: string };

export function isCheckWorker(data: unknown): data is CheckWorkerData {
  return (data as CheckWorkerData | undefined)?.kind === CHECK_WORKER;
}

export function serveChecks(): void {
  const port = parentPort;
  if (!port || !isCheckWorker(workerData)) return;
  const { job, concurrentFiles } = workerData;
  const post = (message: FromWorker) => port.postMessage(message);
  const warn = (message: string) => post({ type: "warning", message });
  const baselines = new GitBaselines({ onProblem: warn });
  const settings = checkSettings(job, baselines, warn);
  port.on("message", (message: ToWorker) => {
    if (message.type === "stop") {
      baselines.dispose();
      port.close();
      return;
    }
    // Each batch starts on a turn of the event loop of its own: the port hands over every message
    // waiting in one go, and the next batch is always waiting (BATCHES_IN_FLIGHT), so the finalizers
    // that free the trees of checked files (files.ts) would otherwise wait for the last batch.
    setImmediate(() => {
      void mapConcurrently(message.batch, concurrentFiles, async ({ index, file }) => ({ index, outcome: await checkFile(file, settings).catch((error: unknown) => crashedOutcome(file, error)) })).then(
        (outcomes) => post({ type: "checked", outcomes }),
      );
    });
  });
}
