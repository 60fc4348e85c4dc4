/**
 * Entry point of the language server (bundled to dist/server.js). The same file runs twice: as the
 * server proper over --stdio / --node-ipc, and as its lint worker thread.
 */
import { isMainThread } from "node:worker_threads";
import { runLintWorker } from "./lintWorker";
import { startServer } from "./server";

if (isMainThread) startServer(__filename);
else runLintWorker();
