/**
 * The CLI's content cache (.airflow_state_lint_cache/): an entry answers only for the same file,
 * settings, pin, baseline and workspace modules. A run that used an entry is told apart from one
 * that linted by rewriting the entries' messages ("poisoning" them): a run that prints the
 * rewritten message read the cache.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { LintCache, MAX_UNUSED_DAYS, RACY_WINDOW_MS } from "../../server/src/cli/cache";
import { git, resumableOperator } from "../support/git";
import { CLI, makeTree, removeTrees, runCli, writeTree } from "./harness";

after(removeTrees);

const CACHE = ".airflow_state_lint_cache";
const POISON = "FROM THE CACHE";

const NONE_DAG = `from airflow.sdk import task


@task
def forget_cursor(task_state_store=None):
    task_state_store.set("cursor", None)
`;

const OPERATORS = resumableOperator("SparkOp", "spark_job_id");

const ETL_DAG = `from airflow.sdk import DAG
from include.operators import SparkOp

with DAG("etl"):
    SparkOp(task_id="x", retries=0)
`;

/** The files of the cache folder's engine builds (and any temporary file left), not the folder's .gitignore and tag. */
function cacheFiles(root: string): string[] {
  const folder = path.join(root, CACHE);
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(".json") || name.endsWith(".tmp"))
    .map((name) => path.join(folder, name));
}

interface CacheContents {
  format: number;
  entries: Record<string, { key: string; used: number; stamp?: unknown; diagnostics: { message: string; code?: unknown }[] }>;
}

/** The one cache file a run of this build wrote. */
function cacheFile(root: string): string {
  const files = cacheFiles(root);
  assert.equal(files.length, 1, `cache files: ${files.join(", ")}`);
  return files[0];
}

function rewriteCache(root: string, change: (contents: CacheContents) => void): void {
  const file = cacheFile(root);
  const contents = JSON.parse(fs.readFileSync(file, "utf8")) as CacheContents;
  change(contents);
  fs.writeFileSync(file, JSON.stringify(contents));
}

/** The cached entry of `name` (a path in `root`), linted with the default settings (the cache's one entry for the file). */
function entryOf(contents: CacheContents, root: string, name: string): CacheContents["entries"][string] {
  const file = path.join(root, name);
  const slots = Object.keys(contents.entries).filter((slot) => slot.split("\0")[0] === file);
  assert.equal(slots.length, 1, `entries for ${name}: ${slots.length} among ${Object.keys(contents.entries).join(", ")}`);
  return contents.entries[slots[0]];
}

/** Rewrites the message of every cached finding, so a run that reads an entry shows it. Answers how many entries it rewrote. */
function poison(root: string): number {
  let count = 0;
  rewriteCache(root, (contents) => {
    for (const entry of Object.values(contents.entries)) {
      for (const diagnostic of entry.diagnostics) diagnostic.message = POISON;
      count++;
    }
  });
  return count;
}

/** `code:line message` of each JSON finding of a run that must succeed without a word on stderr. */
function findings(args: string[], cwd: string): string[] {
  const run = runCli(["--format", "json", ...args], cwd);
  assert.equal(run.stderr, "");
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}`);
  return (JSON.parse(run.stdout) as { code: string; path: string; line: number; message: string }[]).map((f) => `${f.code}@${f.path}:${f.line} ${f.message === POISON ? POISON : "linted"}`);
}

describe("CLI: the content cache", () => {
  test("a second run over unchanged files reads the entries; a changed file is linted again", () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG });
    assert.deepEqual(findings([], root), ["AS102@a.py:6 linted", "AS102@b.py:6 linted"]);
    assert.equal(poison(root), 2);
    assert.deepEqual(findings([], root), [`AS102@a.py:6 ${POISON}`, `AS102@b.py:6 ${POISON}`]);
    writeTree(root, { "a.py": NONE_DAG + "\n# edited\n" });
    assert.deepEqual(findings([], root), ["AS102@a.py:6 linted", `AS102@b.py:6 ${POISON}`]);
  });

  test("entries written by checking threads are read by the next run", () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG, "c.py": NONE_DAG });
    const threads = { env: { AIRFLOW_STATE_LINT_THREADS: "2" } };
    const cold = runCli(["--format", "json"], root, threads);
    assert.equal(cold.stderr, "");
    assert.equal(poison(root), 3);
    const warm = runCli(["--format", "json"], root, threads);
    assert.deepEqual((JSON.parse(warm.stdout) as { message: string }[]).map((f) => f.message), [POISON, POISON, POISON]);
    assert.equal(warm.status, cold.status);
  });

  test("the folder is ignored by git and tagged as a cache", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    git(root, "init", "-q");
    findings([], root);
    assert.equal(fs.readFileSync(path.join(root, CACHE, ".gitignore"), "utf8").split("\n").filter((line) => !line.startsWith("#")).join(""), "*");
    assert.match(fs.readFileSync(path.join(root, CACHE, "CACHEDIR.TAG"), "utf8"), /^Signature: 8a477f597d28d172789f06886806bc55/);
    assert.equal(git(root, "status", "--porcelain", "--untracked-files=all"), "?? a.py");
  });

  test("other rule settings miss", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    findings([], root);
    poison(root);
    assert.deepEqual(findings(["--rule-severity", "AS102=warning"], root), ["AS102@a.py:6 linted"]);
    assert.deepEqual(findings(["--select", "AS1"], root), ["AS102@a.py:6 linted"]);
    assert.deepEqual(findings(["--ignore", "AS102"], root), []);
    assert.deepEqual(findings([], root), [`AS102@a.py:6 ${POISON}`]);
  });

  test("a new Airflow pin for the project misses", () => {
    const root = makeTree({ ".git/HEAD": "ref: refs/heads/main\n", "dags/a.py": NONE_DAG });
    assert.deepEqual(findings([], root), ["AS102@dags/a.py:6 linted"]);
    poison(root);
    writeTree(root, { "requirements.txt": "apache-airflow==2.10.5\n" });
    assert.deepEqual(findings([], root), ["AS501@dags/a.py:6 linted", "AS102@dags/a.py:6 linted"]);
  });

  test("a new committed version (AS301's baseline) misses", () => {
    const root = makeTree({ "dags/spark.py": resumableOperator("SparkJob", "spark_run_id") });
    git(root, "init", "-q");
    git(root, "add", ".");
    git(root, "commit", "-q", "-m", "first key");
    writeTree(root, { "dags/spark.py": resumableOperator("SparkJob", "spark_job_id") });
    const as301 = (args: string[] = []) => findings(["--select", "AS301", ...args], root);
    assert.deepEqual(as301(), ["AS301@dags/spark.py:5 linted"]);
    poison(root);
    assert.deepEqual(as301(), [`AS301@dags/spark.py:5 ${POISON}`]);
    git(root, "commit", "-q", "-am", "deployed key");
    assert.deepEqual(as301(), []);
  });

  test("a change to an imported module, to a module it imports, or a module appearing where one was looked for misses", () => {
    const root = makeTree({
      "include/base.py": OPERATORS,
      "include/operators.py": "from include.base import SparkOp\n",
      "dags/etl.py": ETL_DAG,
      "dags/elsewhere.py": ETL_DAG.replace("from include.operators", "from vendor.operators"),
    });
    const as305 = () => findings(["--select", "AS305", "dags"], root);
    assert.deepEqual(as305(), ["AS305@dags/etl.py:5 linted"]);
    poison(root);
    assert.deepEqual(as305(), [`AS305@dags/etl.py:5 ${POISON}`]);
    // The mixin goes from the module two imports away.
    writeTree(root, { "include/base.py": OPERATORS.replace("class SparkOp(ResumableJobMixin, BaseOperator):", "class SparkOp(BaseOperator):") });
    assert.deepEqual(as305(), []);
    writeTree(root, { "vendor/operators.py": OPERATORS });
    assert.deepEqual(as305(), ["AS305@dags/elsewhere.py:5 linted"]);
  });

  test("a file unchanged since before the run is answered by its stamp; a rewrite, or a file with a baseline, is read and linted", async () => {
    const root = makeTree({ "settled.py": NONE_DAG, "rewritten.py": NONE_DAG, "dags/spark.py": resumableOperator("SparkJob", "spark_run_id") });
    git(root, "init", "-q");
    git(root, "add", ".");
    git(root, "commit", "-q", "-m", "first key");
    writeTree(root, { "dags/spark.py": resumableOperator("SparkJob", "spark_job_id") });
    // A whole second, so that the rewrite below can put the very same modification time back.
    const rewritten = path.join(root, "rewritten.py");
    const modified = Math.floor(Date.now() / 1000) - 60;
    fs.utimesSync(rewritten, modified, modified);
    // Files changed within RACY_WINDOW_MS of a run get no stamp: wait it out once.
    await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 200));
    const run = () => findings(["--select", "AS102,AS301"], root);
    assert.deepEqual(run(), ["AS301@dags/spark.py:5 linted", "AS102@rewritten.py:6 linted", "AS102@settled.py:6 linted"]);
    const written = JSON.parse(fs.readFileSync(cacheFile(root), "utf8")) as CacheContents;
    assert.ok(entryOf(written, root, "settled.py").stamp, "a settled file's entry keeps its stamp");
    assert.equal(entryOf(written, root, "dags/spark.py").stamp, undefined, "a commit can change the baseline: no stamp");
    // With every key rewritten, only a lookup by stamp can still answer.
    poison(root);
    rewriteCache(root, (contents) => {
      for (const entry of Object.values(contents.entries)) entry.key = "another key";
    });
    // Same size, same inode, and the modification time put back: the change time still tells.
    const before = fs.statSync(rewritten);
    fs.writeFileSync(rewritten, NONE_DAG.replace("cursor", "CURSOR"));
    fs.utimesSync(rewritten, modified, modified);
    const after = fs.statSync(rewritten);
    assert.deepEqual([after.size, after.mtimeMs, after.ino], [before.size, before.mtimeMs, before.ino]);
    assert.deepEqual(run(), ["AS301@dags/spark.py:5 linted", "AS102@rewritten.py:6 linted", `AS102@settled.py:6 ${POISON}`]);
  });

  test("a file changed just before it was linted gets its stamp from the first run that finds it by its text once it has settled", async () => {
    const root = makeTree({ "a.py": NONE_DAG });
    assert.deepEqual(findings([], root), ["AS102@a.py:6 linted"]);
    assert.equal(entryOf(JSON.parse(fs.readFileSync(cacheFile(root), "utf8")) as CacheContents, root, "a.py").stamp, undefined);
    await new Promise((resolve) => setTimeout(resolve, RACY_WINDOW_MS + 200));
    poison(root);
    assert.deepEqual(findings([], root), [`AS102@a.py:6 ${POISON}`]);
    rewriteCache(root, (contents) => {
      const entry = entryOf(contents, root, "a.py");
      assert.ok(entry.stamp, "the run that found the entry by its text gave it the file's stamp");
      entry.key = "another key";
    });
    assert.deepEqual(findings([], root), [`AS102@a.py:6 ${POISON}`]);
  });

  test("a file changed shortly before the run begins is keyed by its text alone", () => {
    const now = Date.now();
    const cache = new LintCache({ folder: path.join(makeTree({}), CACHE), engine: "test" }, "[]", () => undefined, now);
    const inputs = { file: "/dags/a.py", lint: {}, text: NONE_DAG, pin: undefined, baselineText: undefined };
    const stamp = (changed: number) => ({ size: NONE_DAG.length, mtimeMs: changed, ctimeMs: changed, ino: 1 });
    assert.deepEqual(cache.keyFor({ ...inputs, stamp: stamp(now - RACY_WINDOW_MS - 1) }).stamp, stamp(now - RACY_WINDOW_MS - 1));
    assert.equal(cache.keyFor({ ...inputs, stamp: stamp(now - RACY_WINDOW_MS + 1) }).stamp, undefined);
    assert.equal(cache.keyFor({ ...inputs, stamp: { ...stamp(now - 60_000), ctimeMs: now } }).stamp, undefined);
  });

  test("a cache file that is not JSON is ignored and replaced", () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG });
    findings([], root);
    fs.writeFileSync(cacheFile(root), "{ not json");
    assert.deepEqual(findings([], root), ["AS102@a.py:6 linted", "AS102@b.py:6 linted"]);
    assert.equal(poison(root), 2);
    assert.deepEqual(findings([], root), [`AS102@a.py:6 ${POISON}`, `AS102@b.py:6 ${POISON}`]);
  });

  test("an entry that makes no sense is a miss, and the others still answer", () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG, "c.py": NONE_DAG });
    findings([], root);
    poison(root);
    rewriteCache(root, (contents) => {
      entryOf(contents, root, "a.py").key = "another key";
      entryOf(contents, root, "b.py").diagnostics = [{ message: POISON, code: 7 }];
    });
    assert.deepEqual(findings([], root), ["AS102@a.py:6 linted", "AS102@b.py:6 linted", `AS102@c.py:6 ${POISON}`]);
  });

  test("a run over some files keeps the entries of the others", () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG });
    findings([], root);
    poison(root);
    writeTree(root, { "a.py": NONE_DAG + "\n# edited\n" });
    assert.deepEqual(findings(["a.py"], root), ["AS102@a.py:6 linted"]);
    assert.deepEqual(findings([], root), ["AS102@a.py:6 linted", `AS102@b.py:6 ${POISON}`]);
  });

  test("a run that only reads entries leaves the cache file as it was", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    findings([], root);
    const file = cacheFile(root);
    const before = fs.readFileSync(file, "utf8");
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(file, past, past);
    findings([], root);
    assert.equal(fs.readFileSync(file, "utf8"), before);
    assert.ok(Math.abs(fs.statSync(file).mtimeMs - past.getTime()) < 1, "the cache file was written again");
  });

  test(`an entry no run used for ${MAX_UNUSED_DAYS} days is dropped when the cache is next written`, () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG, "gone.py": NONE_DAG });
    findings([], root);
    const today = entryOf(JSON.parse(fs.readFileSync(cacheFile(root), "utf8")) as CacheContents, root, "a.py").used;
    rewriteCache(root, (contents) => {
      entryOf(contents, root, "b.py").used = today - MAX_UNUSED_DAYS;
      entryOf(contents, root, "gone.py").used = today - MAX_UNUSED_DAYS - 1;
    });
    fs.rmSync(path.join(root, "gone.py"));
    writeTree(root, { "a.py": NONE_DAG + "\n# edited\n" });
    findings(["a.py"], root);
    const contents = JSON.parse(fs.readFileSync(cacheFile(root), "utf8")) as CacheContents;
    assert.equal(Object.keys(contents.entries).length, 2);
    entryOf(contents, root, "a.py");
    entryOf(contents, root, "b.py");
  });

  test(`another build's cache, or an older build's folder, not written for ${MAX_UNUSED_DAYS} days is removed`, () => {
    const root = makeTree({ "a.py": NONE_DAG });
    findings([], root);
    const folder = path.join(root, CACHE);
    const recent = path.join(folder, "0.0.9-recentbuild.json");
    const stale = path.join(folder, "0.0.8-stalebuild.json");
    const staleFolder = path.join(folder, "0.0.7-oldlayout");
    fs.writeFileSync(recent, "{}");
    fs.writeFileSync(stale, "{}");
    fs.mkdirSync(staleFolder);
    fs.writeFileSync(path.join(staleFolder, "entry.json"), "{}");
    const longAgo = new Date(Date.now() - (MAX_UNUSED_DAYS + 1) * 86_400_000);
    for (const file of [stale, staleFolder]) fs.utimesSync(file, longAgo, longAgo);
    writeTree(root, { "a.py": NONE_DAG + "\n# edited\n" });
    findings([], root);
    assert.deepEqual(fs.readdirSync(folder).sort(), [".gitignore", "CACHEDIR.TAG", path.basename(recent), path.basename(cacheFiles(root).find((file) => file !== recent)!)].sort());
  });

  test("a cache that cannot be written is said once, and the run is the same", () => {
    const root = makeTree({ "a.py": NONE_DAG, "b.py": NONE_DAG, [CACHE]: "a file where the cache folder would go\n" });
    const run = runCli(["--format", "json"], root);
    const uncached = runCli(["--format", "json", "--no-cache"], root);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, uncached.stdout);
    const warnings = run.stderr.split("\n").filter((line) => line !== "");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^airflow-state-lint: warning: could not write the cache in .*, so this run was not cached/);
  });

  test("--no-cache neither reads nor writes the cache", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    assert.deepEqual(findings(["--no-cache"], root), ["AS102@a.py:6 linted"]);
    assert.equal(fs.existsSync(path.join(root, CACHE)), false);
    findings([], root);
    poison(root);
    assert.deepEqual(findings(["--no-cache"], root), ["AS102@a.py:6 linted"]);
  });

  test("--fix and --format review lint every file", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    findings([], root);
    poison(root);
    assert.doesNotMatch(runCli(["--format", "review"], root).stdout, new RegExp(POISON));
    const fixed = runCli(["--fix", "--format", "json"], root);
    assert.doesNotMatch(fixed.stdout, new RegExp(POISON));
  });

  test("runs at the same time each give the full result, and leave no temporary file", async () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 40; i++) tree[`dags/f${i}.py`] = `${NONE_DAG}\n# file ${i}\n`;
    const root = makeTree(tree);
    const expected = runCli(["--format", "json", "--no-cache"], root).stdout;
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
            const child = spawn(process.execPath, [CLI, "--format", "json"], { cwd: root });
            let stdout = "";
            let stderr = "";
            child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
            child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
            child.on("error", reject);
            child.on("close", (status) => resolve({ status, stdout, stderr }));
          }),
      ),
    );
    for (const run of runs) assert.deepEqual(run, { status: 1, stdout: expected, stderr: "" });
    const files = cacheFiles(root);
    assert.equal(files.filter((file) => file.endsWith(".tmp")).length, 0);
    assert.equal(Object.keys((JSON.parse(fs.readFileSync(cacheFile(root), "utf8")) as CacheContents).entries).length, 40);
    assert.equal(runCli(["--format", "json"], root).stdout, expected);
  });
});
