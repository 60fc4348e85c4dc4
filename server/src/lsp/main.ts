/**
 * Entry point of the language server (bundled to dist/server.js). The same file runs as the server
 * proper over --stdio / --node-ipc, as its lint worker threads, and as its workspace check threads.
 */
import { isMainThread, workerData } from "node:worker_threads";
import { runLintWorker } from "./lintWorker";
import { startServer } from "./server";
import { isWorkspaceCheckThread } from "./workspaceCheckMessages";
import { runWorkspaceCheckWorker } from "./workspaceCheckWorker";

if (isMainThread) startServer(__filename);
else if (isWorkspaceCheckThread(workerData)) runWorkspaceCheckWorker();
else runLintWorker();
