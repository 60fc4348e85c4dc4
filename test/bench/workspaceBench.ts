/**
 * `npm run bench` (whole-workspace part): the generated corpus (corpus.ts, 4,000 files) as the one
 * workspace folder of the built language server in `diagnosticMode: "workspace"`, against the CLI
 * on the same files in the same run:
 * - the time from `initialized` until every file the CLI reports has its diagnostics published
 *   (the same number of findings), over the CLI's wall-clock time; issue 12's target is ≤ 2×;
 * - keystroke → diagnostics of an open 200-line DAG while the workspace is checked (a Check Whole
 *   Workspace run once the start-up check is done, so the index scan at start-up is not counted),
 *   over the same keystrokes with nothing else running.
 *
 * Environment (for quick runs): BENCH_CORPUS_FILES (4000), BENCH_CORPUS_SEED, BENCH_LSP_WAIT_S
 * (600: the longest wait for the workspace to be published).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { CheckWorkspaceResult } from "../../server/src/lsp/workspaceCheckProtocol";
import { fromRoot } from "../support/paths";
import { storeDenseDag } from "./benchFiles";
import { DEFAULT_CORPUS, writeCorpus } from "./corpus";
import { BenchLspClient } from "./lspClient";
import { elapsedMs, envNumber, formatMs, percentile, row, targetRow } from "./measure";

const CLI = fromRoot("dist", "cli.js");
const FILES = envNumber("BENCH_CORPUS_FILES", DEFAULT_CORPUS.files);
const SEED = envNumber("BENCH_CORPUS_SEED", DEFAULT_CORPUS.seed);
const WAIT_MS = envNumber("BENCH_LSP_WAIT_S", 600) * 1000;
const SMALL_LINES = 200;
const KEYSTROKE_WAIT_MS = 30_000;

interface CliFindings {
  ms: number;
  files: number;
  findings: number;
}

function runCli(dir: string): CliFindings {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [CLI, "--no-cache", "--exit-zero", "--format", "json", "."], { cwd: dir, encoding: "utf8", maxBuffer: 1 << 30 });
  const ms = elapsedMs(start);
  if (result.status !== 0) throw new Error(`the CLI exited with ${result.status}: ${result.stderr.slice(0, 2000)}`);
  const findings = JSON.parse(result.stdout) as { path: string }[];
  return { ms, files: new Set(findings.map((f) => f.path)).size, findings: findings.length };
}

/** Resolves when the published diagnostics of files other than `except` add up to `expected` findings; false after WAIT_MS. */
function publishedAll(client: BenchLspClient, expected: CliFindings, except: string): Promise<boolean> {
  return new Promise((resolve) => {
    const done = () => {
      let files = 0;
      let findings = 0;
      for (const [uri, count] of client.findings) {
        if (uri === except || count === 0) continue;
        files++;
        findings += count;
      }
      return files === expected.files && findings === expected.findings;
    };
    const timer = setTimeout(() => {
      client.onPublish = undefined;
      resolve(false);
    }, WAIT_MS);
    client.onPublish = () => {
      if (!done()) return;
      clearTimeout(timer);
      client.onPublish = undefined;
      resolve(true);
    };
  });
}

/** Types in the open DAG, each keystroke after the previous one's diagnostics, while `busy()` holds (at least `minimum` keystrokes, at most `maximum`). */
async function type(client: BenchLspClient, uri: string, version: number, busy: () => boolean, minimum: number, maximum: number): Promise<{ samples: number[]; version: number }> {
  const samples: number[] = [];
  const line = SMALL_LINES / 2;
  while (samples.length < maximum && (samples.length < minimum || busy())) {
    version++;
    const arrived = client.diagnostics(uri, version, KEYSTROKE_WAIT_MS);
    const sent = process.hrtime.bigint();
    client.change(uri, version, [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: version % 2 ? "#" : " " }]);
    await arrived;
    samples.push(elapsedMs(sent));
  }
  return { samples, version };
}

async function main(): Promise<void> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-workspace-")));
  try {
    writeCorpus(dir, { seed: SEED, files: FILES });
    const cli = runCli(dir);
    console.log("");
    console.log(`Whole workspace: ${FILES} generated files (${cli.findings} findings in ${cli.files} files), diagnosticMode "workspace" against the CLI`);
    console.log(row("CLI (--no-cache, every core), wall clock", formatMs(cli.ms)));

    const smallUri = pathToFileURL(path.join(dir, "open", "small_dag.py")).href;
    const small = storeDenseDag(SMALL_LINES);
    const started = process.hrtime.bigint();
    // showSyntaxErrors: the CLI reports files that do not parse (AS001), which the editor leaves to Python's language server by default.
    const client = await BenchLspClient.start({ workspaceFolder: dir, settings: { diagnosticMode: "workspace", showSyntaxErrors: true } });
    try {
      const all = publishedAll(client, cli, smallUri);
      const published = await all;
      const publishedMs = elapsedMs(started);
      console.log(row(`language server, start to every finding published${published ? "" : ` (not all within ${WAIT_MS / 1000} s)`}`, formatMs(publishedMs)));
      console.log(targetRow("whole workspace published / CLI", publishedMs / cli.ms, 2));

      // The open document alone, then during a Check Whole Workspace of the same files.
      const opened = client.diagnostics(smallUri, 1, KEYSTROKE_WAIT_MS);
      client.open(smallUri, small);
      await opened;
      const alone = await type(client, smallUri, 1, () => false, 30, 30);
      let checking = true;
      const checkStart = process.hrtime.bigint();
      const check = client.request<CheckWorkspaceResult>("airflowStateStore/checkWorkspace", {}).finally(() => (checking = false));
      const during = await type(client, smallUri, alone.version, () => checking, 10, Number.POSITIVE_INFINITY);
      const result = await check;
      const checkMs = elapsedMs(checkStart);
      console.log(row(`Check Whole Workspace again (${result.checked} files from disk, ${result.findings} findings)`, formatMs(checkMs)));
      console.log(targetRow("Check Whole Workspace / CLI", checkMs / cli.ms, 2));
      console.log(row(`${SMALL_LINES}-line open DAG alone: p50 / p95 (${alone.samples.length} keystrokes)`, `${formatMs(percentile(alone.samples, 0.5))} / ${formatMs(percentile(alone.samples, 0.95))}`));
      console.log(row(`the same while the workspace is checked: p50 / p95 (${during.samples.length} keystrokes)`, `${formatMs(percentile(during.samples, 0.5))} / ${formatMs(percentile(during.samples, 0.95))}`));
      console.log(row("open DAG's keystroke p50 while checking / alone", (percentile(during.samples, 0.5) / percentile(alone.samples, 0.5)).toFixed(2)));
      console.log(row("open DAG's keystroke p95 while checking / alone", (percentile(during.samples, 0.95) / percentile(alone.samples, 0.95)).toFixed(2)));
    } finally {
      await client.stop();
    }
    console.log("");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
