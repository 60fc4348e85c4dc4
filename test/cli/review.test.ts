/**
 * `airflow-state-lint --format review`: the engine's Markdown review of each file (engine/features/review.ts
 * has its own tests of the text), titled with the path as the other formats show it, in path order,
 * separated by a horizontal rule, with the exit status of the text format.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, test } from "node:test";
import { PythonDocument, reviewMarkdown } from "../../server/src/engine";
import { fromRoot } from "../support/paths";
import { makeTree, removeTrees, runCli } from "./harness";

after(removeTrees);

/** AS102 (an error): `None` stored. */
const NONE_DAG = `from airflow.sdk import task


@task
def forget_cursor(task_state_store=None):
    task_state_store.set("cursor", None)
`;

const CLEAN_DAG = `from airflow.sdk import task


@task
def save_cursor(task_state_store=None):
    task_state_store.set("cursor", "2026-01-01T00:00:00+00:00")
`;

/** AS104, whose fix (dropping `retention=`) is safe, so `--fix` writes it back. */
const ASSET_RETENTION_DAG = `from datetime import timedelta

from airflow.sdk import Asset, task

ORDERS = Asset(name="orders", uri="s3://warehouse/orders")


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(asset_state_store=None):
    asset_state_store[ORDERS].set("watermark", "2026-01-01", retention=timedelta(days=7))
`;

/** AS405's fire fixture: submit/sensor splits, info findings only. */
const SUBMIT_AND_POLL = fs.readFileSync(fromRoot("test", "rules", "fixtures", "AS405.py"), "utf8");

/** The engine's review of `relative` in `root`, titled as the CLI titles it. */
function engineReview(root: string, relative: string): string {
  const file = path.join(root, relative);
  return reviewMarkdown(new PythonDocument(pathToFileURL(file).href, fs.readFileSync(file, "utf8")), { path: file, title: relative });
}

/** The fenced Python blocks of a review, in order. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```python\n([\s\S]*?)\n```$/gm)].map((m) => m[1]);
}

describe("--format review", () => {
  test("reviews each file in path order, separated by a rule, as the engine writes it; errors make the exit status 1", () => {
    const root = makeTree({ "dags/nightly.py": NONE_DAG, "dags/clean.py": CLEAN_DAG });
    const run = runCli(["--format", "review", "dags"], root);
    assert.equal(run.stderr, "");
    assert.equal(run.status, 1);
    assert.equal(run.stdout, `${engineReview(root, "dags/clean.py")}\n---\n\n${engineReview(root, "dags/nightly.py")}`);
    const [clean, nightly] = run.stdout.split("\n---\n\n");
    assert.equal(clean, "# Airflow state store review: `dags/clean.py`\n\nNo findings: every enabled rule passes on this file.\n");
    assert.equal(nightly.split("\n")[0], "# Airflow state store review: `dags/nightly.py`");
    assert.match(nightly, /^### 1\. AS102 `none-value` \(error, line 6\)$/m);
    assert.deepEqual(codeBlocks(nightly), [
      '@task\ndef forget_cursor(task_state_store=None):\n    task_state_store.set("cursor", None)',
      '@task\ndef forget_cursor(task_state_store=None):\n    task_state_store.delete("cursor")',
    ]);
    assert.equal(runCli(["--format", "review", "--exit-zero", "dags"], root).status, 0);
  });

  test("a submit/sensor split: its finding with both one-task rewrites as before/after; info alone exits 0", () => {
    const root = makeTree({ "dags/submit.py": SUBMIT_AND_POLL });
    const run = runCli(["--format", "review", "dags/submit.py"], root);
    assert.equal(run.status, 0);
    assert.equal(run.stdout, engineReview(root, "dags/submit.py"));
    const first = run.stdout.slice(run.stdout.indexOf("### 1. AS405 `submit-then-poll` (info, line 44)"), run.stdout.indexOf("### 2. "));
    assert.match(first, /\*\*Rewrite A, with a Triggerer \(changes behaviour; review it\):\*\* Fold `wait_run` into `submit_run`: one deferrable task/);
    assert.match(first, /\*\*Rewrite B, without a Triggerer \(changes behaviour; review it\):\*\* Fold `wait_run` into `submit_run`: one durable task/);
    const [beforeA, afterA, beforeB, afterB] = codeBlocks(first);
    assert.equal(beforeA, beforeB);
    assert.match(beforeA, /^ {8}wait_for_termination=False,$/m);
    assert.match(beforeA, /^ {4}wait_run = PythonSensor\(/m);
    assert.match(afterA, /^ {8}wait_for_termination=True,\n {8}deferrable=True,$/m);
    assert.match(afterB, /^ {8}wait_for_termination=True,\n {8}durable=True,$/m);
    for (const after of [afterA, afterB]) {
      assert.doesNotMatch(after, /wait_run/);
      assert.match(after, /^ {4}submit_run >> publish\(\)$/m);
    }
    assert.match(first, /\*\*One task or two\?\*\*/);
  });

  test("with --fix, each file is reviewed as written back", () => {
    const root = makeTree({ "asset.py": ASSET_RETENTION_DAG });
    const run = runCli(["--fix", "--format", "review", "asset.py"], root);
    assert.equal(run.status, 0);
    assert.doesNotMatch(fs.readFileSync(path.join(root, "asset.py"), "utf8"), /retention=/);
    assert.equal(run.stdout, "# Airflow state store review: `asset.py`\n\nNo findings: every enabled rule passes on this file.\n");
  });

  test("rule options apply to the review as to the other formats", () => {
    const root = makeTree({ "nightly.py": NONE_DAG });
    const run = runCli(["--format", "review", "--rule-severity", "AS102=info", "nightly.py"], root);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /^### 1\. AS102 `none-value` \(info, line 6\)$/m);
    const ignored = runCli(["--format", "review", "--ignore", "AS102", "nightly.py"], root);
    assert.equal(ignored.status, 0);
    assert.match(ignored.stdout, /^No findings: every enabled rule passes on this file\.$/m);
  });

  test("a folder without Python files", () => {
    const root = makeTree({ "README.md": "# nothing to check\n" });
    const run = runCli(["--format", "review"], root);
    assert.equal(run.status, 0);
    assert.equal(run.stdout, "No Python files to review.\n");
  });
});
