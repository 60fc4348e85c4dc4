/**
 * AS301 through the built CLI against a real temporary git repository: `--baseline` (default HEAD)
 * picks the revision whose `external_id_key` the working tree is compared with.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { git, resumableOperator } from "../support/git";
import { makeTree, removeTrees, runCli, writeTree } from "./harness";

after(removeTrees);

const operator = (key: string) => resumableOperator("SparkJob", key);


interface Finding {
  path: string;
  code: string;
  line: number;
  column: number;
}

function as301(stdout: string): string[] {
  return (JSON.parse(stdout) as Finding[]).filter((f) => f.code === "AS301").map((f) => `${f.path}:${f.line}:${f.column}`);
}

describe("AS301 through the CLI and git", () => {
  let repository: string;
  let renamedKeyCommit: string;

  before(() => {
    // History: the key was "spark_run_id" in an early commit, then "spark_job_id" (HEAD, deployed).
    // The working tree renames it back to "spark_run_id".
    repository = makeTree({ "dags/spark.py": operator("spark_run_id") });
    git(repository, "init", "-q");
    git(repository, "add", ".");
    git(repository, "commit", "-q", "-m", "early key");
    renamedKeyCommit = git(repository, "rev-parse", "HEAD");
    writeTree(repository, { "dags/spark.py": operator("spark_job_id") });
    git(repository, "commit", "-q", "-am", "deployed key");
    writeTree(repository, { "dags/spark.py": operator("spark_run_id"), "dags/untracked.py": operator("another_key") });
  });

  test("reports the renamed key against HEAD by default, on the string", () => {
    const run = runCli(["--format", "json"], repository);
    assert.equal(run.stderr, "");
    assert.deepEqual(as301(run.stdout), ["dags/spark.py:5:23"]);
    assert.equal(run.status, 1);
    const text = runCli([], repository);
    assert.match(text.stdout, /^dags\/spark\.py:5:23: AS301 .*spark_job_id/m);
  });

  test("is silent with --baseline at a commit that already had the new key", () => {
    for (const args of [["--baseline", renamedKeyCommit], [`--baseline=${renamedKeyCommit.slice(0, 10)}`], ["--baseline", "HEAD~1"]]) {
      const run = runCli(["--format", "json", ...args], repository);
      assert.deepEqual(as301(run.stdout), [], args.join(" "));
      assert.equal(run.status, 0);
    }
  });

  test("finds the repository from the file, not from the working folder", () => {
    const elsewhere = makeTree({});
    const run = runCli(["--format", "json", path.join(repository, "dags")], elsewhere);
    assert.deepEqual(as301(run.stdout), [`${path.join(repository, "dags", "spark.py")}:5:23`]);
  });

  test("is silent when AS301 is not selected, for untracked files, and outside git", () => {
    assert.deepEqual(as301(runCli(["--format", "json", "--select", "AS1"], repository).stdout), []);
    assert.deepEqual(as301(runCli(["--format", "json", "dags/untracked.py"], repository).stdout), []);
    const noGit = makeTree({ "spark.py": fs.readFileSync(path.join(repository, "dags", "spark.py"), "utf8") });
    assert.deepEqual(runCli(["--format", "json"], noGit), { status: 0, stdout: "[]\n", stderr: "" });
  });

  test("is silent when the working tree matches the baseline again", () => {
    const run = runCli(["--format", "json", "--baseline", renamedKeyCommit, "dags/spark.py"], repository);
    assert.equal(run.stdout, "[]\n");
    writeTree(repository, { "dags/spark.py": operator("spark_job_id") });
    try {
      assert.deepEqual(runCli(["--format", "json", "dags/spark.py"], repository), { status: 0, stdout: "[]\n", stderr: "" });
    } finally {
      writeTree(repository, { "dags/spark.py": operator("spark_run_id") });
    }
  });
});
