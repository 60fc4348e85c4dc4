/**
 * A run on several worker threads reports exactly what a run on the main thread alone does: the
 * same findings, failures, order, formats and exit status. AIRFLOW_STATE_LINT_THREADS forces the
 * thread count, the main thread included; a preloaded counter (countThreads.ts) shows how many
 * worker threads a run started.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { git, resumableOperator } from "../support/git";
import { fromRoot } from "../support/paths";
import { CliRun, makeTree, removeTrees, runCli, Tree, writeTree } from "./harness";

after(removeTrees);

const COUNTER = fromRoot("out", "test", "cli", "countThreads.js");

/** Runs the CLI uncached with a forced thread count (undefined: the CLI decides), answering its output and the threads it started. */
function runWithThreads(args: readonly string[], cwd: string, threads: number | undefined): CliRun & { started: number } {
  const countFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "thread-count-")), "count");
  try {
    const env: Record<string, string> = { THREAD_COUNT_FILE: countFile };
    if (threads !== undefined) env.AIRFLOW_STATE_LINT_THREADS = String(threads);
    // Without the cache: a run would otherwise answer from the entries the run before it wrote, and lint nothing.
    const run = runCli(["--no-cache", ...args], cwd, { env, nodeArgs: ["--require", COUNTER] });
    return { ...run, started: Number(fs.readFileSync(countFile, "utf8")) };
  } finally {
    fs.rmSync(path.dirname(countFile), { recursive: true, force: true });
  }
}

/** More than the files a run needs before it starts threads: the example DAGs in several projects, and files that cannot be read. */
function largeTree(): Tree {
  const tree: Tree = {};
  const examples = fromRoot("examples", "dags");
  for (let project = 0; project < 6; project++) {
    for (const name of fs.readdirSync(examples)) tree[`project${project}/dags/${name}`] = fs.readFileSync(path.join(examples, name), "utf8");
    tree[`project${project}/dags/spark_job.py`] = resumableOperator("SparkJob", "spark_job_id");
  }
  tree["broken/bad_utf8.py"] = Buffer.from([0x61, 0x20, 0x3d, 0x20, 0x27, 0xff, 0xfe, 0x27, 0x0a]);
  tree["broken/dangling.py"] = { symlink: "nowhere.py" };
  return tree;
}

describe("checking on several threads", () => {
  let root: string;

  before(() => {
    root = makeTree(largeTree());
    git(root, "init", "-q");
    git(root, "add", ".");
    git(root, "commit", "-q", "-m", "deployed");
    // AS301 needs the committed text, which each thread reads through its own git process.
    writeTree(root, { "project2/dags/spark_job.py": resumableOperator("SparkJob", "spark_run_id") });
  });

  for (const format of ["text", "json", "sarif", "review"]) {
    test(`gives the same ${format} output, failures and exit status as one thread`, () => {
      const single = runWithThreads(["--format", format], root, 1);
      const parallel = runWithThreads(["--format", format], root, 3);
      assert.equal(single.started, 0);
      // The main thread is one of the three.
      assert.equal(parallel.started, 2);
      assert.equal(parallel.stdout, single.stdout);
      assert.equal(parallel.stderr, single.stderr);
      assert.equal(parallel.status, single.status);
      assert.equal(single.status, 2);
      assert.match(single.stderr, /broken\/bad_utf8\.py: not valid UTF-8/);
      assert.match(single.stderr, /broken\/dangling\.py: cannot read the file/);
    });
  }

  test("finds AS301's renamed key in a thread, and exits 1 on findings without failures", () => {
    const single = runWithThreads(["--format", "json", "project0", "project1", "project2", "project3", "project4", "project5"], root, 1);
    const parallel = runWithThreads(["--format", "json", "project0", "project1", "project2", "project3", "project4", "project5"], root, 2);
    assert.equal(parallel.started, 1);
    assert.equal(parallel.stdout, single.stdout);
    assert.equal(parallel.stderr, "");
    const as301 = (JSON.parse(parallel.stdout) as { code: string; path: string }[]).filter((f) => f.code === "AS301").map((f) => f.path);
    assert.deepEqual(as301, [path.join("project2", "dags", "spark_job.py")]);
    assert.equal(parallel.status, 1);
    assert.equal(runWithThreads(["--exit-zero", "project0", "project1", "project2", "project3", "project4", "project5"], root, 2).status, 0);
  });

  test("starts threads on its own for many files when there is more than one core", () => {
    const single = runWithThreads(["--format", "json"], root, 1);
    const chosen = runWithThreads(["--format", "json"], root, undefined);
    // About 70 files: two threads' worth, the main thread and one worker.
    assert.equal(chosen.started, os.availableParallelism() > 1 ? 1 : 0);
    assert.equal(chosen.stdout, single.stdout);
  });

  test("a few files are checked on the main thread", () => {
    const run = runWithThreads(["--format", "json", "project0"], root, undefined);
    assert.equal(run.started, 0);
    assert.equal(run.status, 1);
  });

  test("--fix stays on one thread, whatever is forced", () => {
    const copy = makeTree(largeTree());
    const run = runWithThreads(["--fix", "--exit-zero"], copy, 3);
    assert.equal(run.started, 0);
    assert.match(run.stdout, /^Fixed \d+ problems? in \d+ files?\./m);
  });
});
