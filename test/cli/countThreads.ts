/**
 * Preloaded into the CLI (`node --require`) by the thread tests: counts the worker threads the run
 * starts and writes the count to the file named by THREAD_COUNT_FILE when the process exits.
 */
import * as fs from "node:fs";
// The module object itself, not a namespace copy of it: its `Worker` is replaced below.
const threads: typeof import("node:worker_threads") = require("node:worker_threads");

const countFile = process.env.THREAD_COUNT_FILE;
if (countFile && threads.isMainThread) {
  let started = 0;
  const Original = threads.Worker;
  class CountedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      started++;
    }
  }
  // The bundle reads `Worker` from the module object when it starts a thread, so replacing it here is seen.
  threads.Worker = CountedWorker;
  process.on("exit", () => fs.writeFileSync(countFile, String(started)));
}
