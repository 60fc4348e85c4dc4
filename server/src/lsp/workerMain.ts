/**
 * Entry point of the language server's worker threads (bundled to dist/workerMain.js): its lint
 * workers and its workspace check threads. It is a bundle of its own, apart from the connection
 * thread's (dist/server.js): each thread then loads only its own code, and V8 keeps a copy of
 * whatever it loads in every thread (the engine in the connection thread, the protocol library in
 * each worker).
 */
// First, before the engine loads (youngGenerations.ts).
import "./startingYoungGenerations";
import { workerData } from "node:worker_threads";
import { runLintWorker } from "./lintWorker";
import { isWorkspaceCheckThread } from "./workspaceCheckMessages";
import { runWorkspaceCheckWorker } from "./workspaceCheckWorker";

if (isWorkspaceCheckThread(workerData)) runWorkspaceCheckWorker();
else runLintWorker();
