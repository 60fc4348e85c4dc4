/**
 * `npm run bench` (CLI part): `airflow-state-lint` over the generated corpus (corpus.ts), committed
 * in a temporary git repository with a few `external_id_key`s renamed since, against a bare
 * tree-sitter parse of the same files; both whole processes, run alternately, medians compared.
 * Issue 9's targets: CLI ≤ 1.3× the bare parse; on 2 cores, the CLI on every core ≥ 1.7× as fast
 * as on one thread; a second run over unchanged files, cache warm, ≤ 0.1× the first.
 *
 * Environment (for quick runs): BENCH_CORPUS_FILES (4000), BENCH_CORPUS_SEED, BENCH_CLI_RUNS (5
 * rounds at most), BENCH_CLI_BUDGET_S (stop starting rounds after this many seconds; 90), BENCH_CLI
 * (another build's cli.js to measure instead of dist/cli.js).
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromRoot } from "../support/paths";
import { DEFAULT_CORPUS, writeCorpus } from "./corpus";
import { atLeastRow, envNumber, formatMs, median, roundsWithinBudget, row, targetRow, timeProcess, timeProcessesAtOnce } from "./measure";

const CLI = process.env.BENCH_CLI ? path.resolve(process.env.BENCH_CLI) : fromRoot("dist", "cli.js");
const BARE_PARSE = path.join(__dirname, "bareParse.js");
const CACHE_FOLDER = ".airflow_state_lint_cache";
const RENAMED_KEYS = 5;

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, { cwd, stdio: "ignore" });
}

/** The corpus in a fresh git repository, committed, with a few mixin operators' keys renamed since. */
function committedCorpus(root: string): { files: number; characters: number; renamed: string[] } {
  const corpus = writeCorpus(root, { seed: envNumber("BENCH_CORPUS_SEED", DEFAULT_CORPUS.seed), files: envNumber("BENCH_CORPUS_FILES", DEFAULT_CORPUS.files) });
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Bench");
  git(root, "config", "user.email", "bench@example.com");
  git(root, "config", "commit.gpgsign", "false");
  git(root, "config", "core.hooksPath", "/dev/null");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "The DAG repository as deployed");
  const renamed: string[] = [];
  for (const file of corpus.filter((f) => f.kind === "resumable-operators")) {
    if (renamed.length === RENAMED_KEYS) break;
    const edited = file.text.replace(/external_id_key = "(\w+)"/, 'external_id_key = "$1_v2"');
    if (edited === file.text) continue;
    fs.writeFileSync(path.join(root, file.path), edited);
    renamed.push(file.path);
  }
  return { files: corpus.length, characters: corpus.reduce((sum, f) => sum + f.text.length, 0), renamed };
}

function cliSupports(option: string): boolean {
  const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
  return help.stdout.includes(option);
}

/** Times the CLI as a whole process in the corpus folder; its report goes to `output`, read only to check AS301. */
function lintCorpus(root: string, output: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  const fd = fs.openSync(output, "w");
  try {
    return timeProcess(process.execPath, [CLI, "--exit-zero", ...args, "."], { cwd: root, stdio: ["ignore", fd, "pipe"], env });
  } finally {
    fs.closeSync(fd);
  }
}

function main(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bench-corpus-")));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "bench-cli-out-"));
  try {
    const corpus = committedCorpus(root);
    const hasNoCache = cliSupports("--no-cache");
    const noCache = hasNoCache ? ["--no-cache"] : [];
    const output = path.join(scratch, "stdout.txt");
    const cli = (...args: string[]) => lintCorpus(root, output, args);
    const bare = (...args: string[]) => timeProcess(process.execPath, [BARE_PARSE, root, ...args], { stdio: "ignore" });

    const cores = os.availableParallelism();
    const samples = { parse: [] as number[], parseFreeingTrees: [] as number[], parsesAtOnce: [] as number[], cli: [] as number[], withoutAs301: [] as number[], oneThread: [] as number[] };
    const oneThread = { ...process.env, AIRFLOW_STATE_LINT_THREADS: "1" };
    let as301Findings = -1;
    const rounds = roundsWithinBudget(envNumber("BENCH_CLI_RUNS", 5), envNumber("BENCH_CLI_BUDGET_S", 90) * 1000, (round) => {
      // Alternated within each round, so a busy neighbour on the machine slows all three alike.
      samples.parse.push(bare());
      samples.parseFreeingTrees.push(bare("--free-trees"));
      // As many parses as cores at once: what the machine itself gains from its cores on this work.
      if (cores > 1) samples.parsesAtOnce.push(timeProcessesAtOnce(cores, process.execPath, [BARE_PARSE, root, "--free-trees"]));
      samples.cli.push(cli(...noCache));
      if (round === 0) as301Findings = (fs.readFileSync(output, "utf8").match(/AS301/g) ?? []).length;
      samples.withoutAs301.push(cli(...noCache, "--ignore", "AS301"));
      samples.oneThread.push(lintCorpus(root, output, noCache, oneThread));
    });

    const parseMs = median(samples.parse);
    const cliMs = median(samples.cli);
    const withoutMs = median(samples.withoutAs301);
    console.log("");
    console.log(`CLI benchmark: ${corpus.files} files (${(corpus.characters / 1e6).toFixed(1)} M characters) committed in a git repository, ${corpus.renamed.length} external_id_keys renamed since`);
    console.log(`  median of ${rounds} alternating round(s) of whole processes${hasNoCache ? ", the CLI with --no-cache" : ""}`);
    console.log(row("bare tree-sitter parse of every *.py (bareParse.js, as the shared probe)", formatMs(parseMs)));
    console.log(row("the same parse, freeing the trees as it goes (--free-trees, as the CLI)", formatMs(median(samples.parseFreeingTrees))));
    const cliName = `node ${path.relative(fromRoot(), CLI)}`;
    console.log(row(`${cliName} --exit-zero${noCache.map((o) => ` ${o}`).join("")}`, formatMs(cliMs)));
    console.log(row(`${cliName} --exit-zero${noCache.map((o) => ` ${o}`).join("")} --ignore AS301`, formatMs(withoutMs)));
    console.log(row("AS301 findings reported (renamed keys and the classes deriving from them)", String(as301Findings)));
    console.log("Ratios (lower is better):");
    console.log(targetRow("CLI / bare parse", cliMs / parseMs, 1.3));
    console.log(row("CLI / bare parse freeing its trees (the probe keeps every tree, and pays for it)", (cliMs / median(samples.parseFreeingTrees)).toFixed(3)));
    console.log(row("CLI --ignore AS301 / bare parse", (withoutMs / parseMs).toFixed(3)));
    console.log(row("CLI / CLI --ignore AS301 (what AS301's baseline costs)", (cliMs / withoutMs).toFixed(3)));
    const speedUp = median(samples.oneThread) / cliMs;
    const speedUpLabel = `CLI on one thread / on every core (${cores} core${cores === 1 ? "" : "s"}; one thread: ${formatMs(median(samples.oneThread))})`;
    // The issue sets the target for 2 cores; elsewhere the speed-up is shown for what it is.
    console.log(cores === 2 ? atLeastRow(speedUpLabel, speedUp, 1.7) : row(speedUpLabel, speedUp.toFixed(3)));
    if (cores > 1) {
      // What the cores give the same native work in separate processes (shared caches, memory bandwidth, a
      // virtual machine's CPU budget): near this, the CLI's speed-up is the machine's, not its threads'.
      const ceiling = (cores * median(samples.parseFreeingTrees)) / median(samples.parsesAtOnce);
      console.log(row(`the machine's own speed-up: ${cores} bare parses one after another / ${cores} at once (${formatMs(median(samples.parsesAtOnce))})`, ceiling.toFixed(3)));
      console.log(row("CLI speed-up / the machine's own", (speedUp / ceiling).toFixed(3)));
    }
    if (as301Findings < corpus.renamed.length) console.log(`  warning: expected at least ${corpus.renamed.length} AS301 findings, got ${as301Findings}`);

    if (!hasNoCache) {
      console.log(row("second run, cache warm / first run", "not measurable yet") + "   (target ≤ 0.1: the CLI has no --no-cache option, so no cache)");
      return;
    }
    const cold: number[] = [];
    const warm: number[] = [];
    const uncached: number[] = [];
    const cacheHome = path.join(scratch, "cache-home");
    const cacheRounds = roundsWithinBudget(envNumber("BENCH_CLI_RUNS", 5), envNumber("BENCH_CLI_BUDGET_S", 90) * 500, () => {
      fs.rmSync(path.join(root, CACHE_FOLDER), { recursive: true, force: true });
      fs.rmSync(cacheHome, { recursive: true, force: true });
      const env = { ...process.env, XDG_CACHE_HOME: cacheHome };
      uncached.push(lintCorpus(root, output, noCache, env));
      cold.push(lintCorpus(root, output, [], env));
      warm.push(lintCorpus(root, output, [], env));
    });
    console.log(`  cache: median of ${cacheRounds} pair(s), the cache removed before each first run`);
    console.log(row("first run (cache cold)", formatMs(median(cold))));
    console.log(row("second run over unchanged files (cache warm)", formatMs(median(warm))));
    console.log(targetRow("second run, cache warm / first run", median(warm) / median(cold), 0.1));
    // What filling the cache costs the first run (CI runs start cold): writing it should be a small part of linting.
    console.log(row("first run, cache cold / a run with --no-cache", (median(cold) / median(uncached)).toFixed(3)));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main();
