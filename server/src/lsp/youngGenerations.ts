/**
 * Keeps every young generation of the language server's threads at its starting size, imported
 * first by each of its entry points (`main.ts` for the connection thread, `workerMain.ts` for the
 * lint workers and workspace check threads), before their modules load.
 *
 * V8 doubles a thread's young generation whenever a scavenge finds much of it still alive, up to
 * 32 MB, and keeps the memory committed for good. Opening hundreds of documents at once is such a
 * burst: the connection thread's grew from 2 to 7.4 MB, of which 1 to 2 MB were in use. The growth
 * factor is one flag for the whole process, read at each growth, and Node sets V8's flags again
 * whenever a worker thread starts: so each thread sets it as it starts, and what a thread set
 * holds for all of them until the next one starts. This replaces a cap on the quick worker's
 * young generation (4 MB), which left the connection thread's to grow.
 *
 * `lsp_rss 500`, alternated three times: 101–102 → 96–97 MB. Keystrokes were no slower (1,000-line
 * p95 10.5–11.3 → 7.8–9.7 ms, alternated; the 20,000-line ones the same); the workspace check
 * threads, which read thousands of files in a row, took about 5 % longer. The CLI keeps V8's growth.
 */
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--semi-space-growth-factor=1");
