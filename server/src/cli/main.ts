/**
 * Entry point of `airflow-state-lint` (bundled to dist/cli.js). Usage and exit codes: see args.ts.
 * The same bundle runs in the worker threads of a parallel run (checkWorker.ts).
 */
import { isMainThread, workerData } from "node:worker_threads";
import { PROGRAM } from "./args";
import { isCheckWorker, serveChecks } from "./checkWorker";
import { run } from "./run";

/** Forces the number of checking threads (1: the main thread alone), so tests can compare both ways on small trees. */
const THREADS_VARIABLE = "AIRFLOW_STATE_LINT_THREADS";

if (!isMainThread && isCheckWorker(workerData)) {
  serveChecks();
} else {
  main();
}

function main(): void {
  // `airflow-state-lint ... | head` closes the pipe early; that is not an error worth a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });

  run(process.argv.slice(2), {
    cwd: process.cwd(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdin,
    bundle: { script: __filename, forcedThreads: forcedThreads(process.env[THREADS_VARIABLE]) },
  }).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      process.stderr.write(`${PROGRAM}: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 2;
    },
  );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

function forcedThreads(value: string | undefined): number | undefined {
  const count = value === undefined ? NaN : Number(value);
  return Number.isInteger(count) && count >= 1 ? count : undefined;
}
