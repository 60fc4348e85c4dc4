/**
 * Entry point of the language server (bundled to dist/server.js), run over --stdio or --node-ipc:
 * the connection thread. Its lint workers and workspace check threads run dist/workerMain.js
 * (`workerMain.ts`), a bundle of their own, so that this thread loads no rule and they load no
 * protocol library.
 */
// First, before the server's modules load (youngGenerations.ts).
import "./startingYoungGenerations";
import * as path from "node:path";
import { startServer } from "./server";

startServer(path.join(__dirname, "workerMain.js"));
