/**
 * The young generations of the language server's threads. Each of its entry points (`main.ts` for
 * the connection thread, `workerMain.ts` for the lint workers and workspace check threads) imports
 * `startingYoungGenerations.ts` first, which keeps every young generation at its starting size
 * before their modules load.
 *
 * V8 doubles a thread's young generation whenever a scavenge finds much of it still alive, up to
 * 32 MB, and keeps the memory committed for good. Opening hundreds of documents at once is such a
 * burst: the connection thread's grew from 2 to 7.4 MB, of which 1 to 2 MB were in use. The growth
 * factor is one flag for the whole process, read at each growth, and every new isolate (each worker
 * thread as it starts) sets it back to V8's default: so each thread sets it again as it starts, and
 * what a thread set holds for all of them until the next one starts. This replaces a cap on the
 * quick worker's young generation (4 MB), which left the connection thread's to grow.
 *
 * `lsp_rss 500`, alternated three times: 101–102 → 96–97 MB. Keystrokes were no slower (1,000-line
 * p95 10.5–11.3 → 7.8–9.7 ms, alternated; the 20,000-line ones the same). The CLI keeps V8's growth.
 */
import { setFlagsFromString } from "node:v8";
import type { Worker } from "node:worker_threads";

/** Every young generation of the process stays at its size from now on, until the next thread starts. */
export function keepYoungGenerationsAtStartingSize(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
}

/**
 * Starts threads whose young generation starts, and so stays, at `semiSpaceMb` per semi-space
 * (twice that in all): for threads that lint thousands of files in a row, as the CLI does, whose
 * lints keep more alive between two scavenges than a small young generation holds (the workspace
 * check took about 10 % longer at the starting size). The size is a flag a new isolate reads as it
 * is made, in the new thread: it is set until every thread started with it is running, and a lint
 * worker started meanwhile (a restart) gets the same size.
 */
export class SizedYoungGenerationStarter {
  private starting = 0;

  constructor(private readonly semiSpaceMb: number) {}

  start(create: () => Worker): Worker {
    if (this.starting++ === 0) setFlagsFromString(`--min-semi-space-size=${this.semiSpaceMb}`);
    let started = false;
    const running = () => {
      if (started) return;
      started = true;
      if (--this.starting === 0) setFlagsFromString("--min-semi-space-size=0");
    };
    let worker: Worker;
    try {
      worker = create();
    } catch (error) {
      // No thread will start: the size must not stay set for the next isolate.
      running();
      throw error;
    }
    worker.once("online", running);
    worker.once("exit", running);
    return worker;
  }
}
