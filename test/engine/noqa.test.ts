/**
 * Suppression comments: `# noqa[: codes]` for a line and `# airflow-state-lint: noqa[: codes]` for
 * the file, read as ruff reads its own; and every pattern that reads them stays linear on hostile
 * comments (issue 13: `# noqa: AS101` and 100,000 spaces took seconds). The long inputs are a
 * million characters: a quadratic pattern would not finish within the runner's timeout below.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lint, parseFileNoqa, parseNoqa, PythonDocument } from "../../server/src/engine";

const LONG = 1_000_000;
/** The whole file's worth of hostile comments must be read in well under this. */
const HOSTILE_INPUT_TIMEOUT_MS = 60_000;

const DAG = [
  "from datetime import datetime",
  "from airflow.sdk import task",
  "",
  "",
  "@task",
  "def export(task_state_store=None):",
  '    task_state_store.set("loaded_at", datetime.now())',
  "    task_state_store.set(\"missing\", None)",
  "",
].join("\n");

function codes(text: string): string[] {
  return lint(new PythonDocument("file:///dag.py", text)).map((d) => `${d.range.start.line + 1}:${d.code}`);
}

function listed(comment: ReturnType<typeof parseNoqa>): string[] | "all" | undefined {
  if (!comment) return undefined;
  return comment.codes === "all" ? "all" : [...comment.codes].sort();
}

describe("line # noqa", () => {
  test("bare, with one code, with several separated by commas, spaces or both", () => {
    assert.equal(listed(parseNoqa("# noqa")), "all");
    assert.deepEqual(listed(parseNoqa("# noqa: AS101")), ["AS101"]);
    assert.deepEqual(listed(parseNoqa("#noqa:as101,AS102  AS103 ,  AS104")), ["AS101", "AS102", "AS103", "AS104"]);
    assert.equal(parseNoqa("# not a suppression"), undefined);
  });

  test("listEnd is just after the last code, where the quick fix appends the next", () => {
    const text = "# noqa: AS101, AS102   trailing words";
    assert.equal(text.slice(0, parseNoqa(text)!.listEnd), "# noqa: AS101, AS102");
  });

  test("the line's finding is silenced, the other line's stays", () => {
    assert.deepEqual(codes(DAG), ["7:AS101", "8:AS102"]);
    assert.deepEqual(codes(DAG.replace("datetime.now())", "datetime.now())  # noqa: AS101")), ["8:AS102"]);
    assert.deepEqual(codes(DAG.replace("datetime.now())", "datetime.now())  # noqa: AS102")), ["7:AS101", "8:AS102"]);
  });

  test("is read in any case, in a file where nothing else says noqa in lower case", () => {
    assert.deepEqual(codes(DAG.replace("datetime.now())", "datetime.now())  # NOQA: AS101")), ["8:AS102"]);
    assert.deepEqual(codes(DAG.replace('"missing", None)', '"missing", None)  # NoQa')), ["7:AS101"]);
  });

  test("a string that says noqa silences nothing, and a comment that says it twice is read once", () => {
    assert.deepEqual(codes(DAG.replace('"missing", None)', '"missing # noqa", None)')), ["7:AS101", "8:AS102"]);
    assert.deepEqual(codes(DAG.replace("datetime.now())", "datetime.now())  # noqa: AS101 (noqa: the loader reads it)")), ["8:AS102"]);
  });
});

describe("file-level # airflow-state-lint: noqa", () => {
  test("is read with or without codes, and only at the start of a comment", () => {
    assert.equal(listed(parseFileNoqa("# airflow-state-lint: noqa")), "all");
    assert.deepEqual(listed(parseFileNoqa("#airflow-state-lint:noqa:AS101, as102")), ["AS101", "AS102"]);
    assert.equal(parseFileNoqa("# see # airflow-state-lint: noqa"), undefined);
    assert.equal(parseNoqa("# airflow-state-lint: noqa: AS101"), undefined, "it is not a line's # noqa");
  });

  test("silences its codes on every line of the file", () => {
    assert.deepEqual(codes(`# airflow-state-lint: noqa: AS101\n${DAG}`), ["9:AS102"]);
    assert.deepEqual(codes(`${DAG}\n    # airflow-state-lint: noqa: AS102, AS101\n`), []);
  });

  test("a bare one silences every rule", () => {
    assert.deepEqual(codes(`#!/usr/bin/env python\n# airflow-state-lint: noqa\n${DAG}`), []);
  });

  test("after code on the same line it is not a file-level comment", () => {
    const text = DAG.replace("datetime.now())", "datetime.now())  # airflow-state-lint: noqa");
    assert.deepEqual(codes(text), ["7:AS101", "8:AS102"]);
  });
});

describe("suppression patterns on a million characters", { timeout: HOSTILE_INPUT_TIMEOUT_MS }, () => {
  const spaces = " ".repeat(LONG);

  test("line pattern: spaces after a code (the separator's white space)", () => {
    assert.deepEqual(listed(parseNoqa(`# noqa: AS101${spaces}`)), ["AS101"]);
    assert.deepEqual(listed(parseNoqa(`# noqa: AS101,${spaces}x`)), ["AS101"]);
  });

  test("line pattern: spaces after the colon, after the #, letters without digits, many codes", () => {
    assert.equal(listed(parseNoqa(`# noqa:${spaces}x`)), "all");
    assert.equal(parseNoqa(`#${spaces}x`), undefined);
    assert.equal(listed(parseNoqa(`# noqa: ${"A".repeat(LONG)}`)), "all");
    assert.equal(parseNoqa("#".repeat(LONG)), undefined);
    const many = parseNoqa(`# noqa: ${"AS1 ".repeat(LONG / 4)}`)!;
    assert.deepEqual(listed(many), ["AS1"]);
  });

  test("file pattern: spaces after a code, after the colon, before noqa", () => {
    assert.deepEqual(listed(parseFileNoqa(`# airflow-state-lint: noqa: AS101${spaces}`)), ["AS101"]);
    assert.equal(listed(parseFileNoqa(`# airflow-state-lint: noqa${spaces}:`)), "all");
    assert.equal(parseFileNoqa(`# airflow-state-lint:${spaces}x`), undefined);
    assert.deepEqual(listed(parseFileNoqa(`# airflow-state-lint: noqa: ${"AS1,".repeat(LONG / 4)}`)), ["AS1"]);
  });

  test("code list split: separators a million characters long", () => {
    const comment = parseNoqa(`# noqa: AS1${spaces},${spaces}AS2`)!;
    assert.deepEqual(listed(comment), ["AS1", "AS2"]);
  });

  test("the linter reads a DAG whose comments are a million spaces long", () => {
    const text = DAG.replace("datetime.now())", `datetime.now())  # noqa: AS101${spaces}`).replace('"missing", None)', `"missing", None)  # airflow-state-lint: noqa${spaces}`);
    assert.deepEqual(codes(text), ["8:AS102"], "the file-level comment is not on a line of its own");
  });
});
