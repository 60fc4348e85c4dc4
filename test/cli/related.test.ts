/**
 * A finding with other places (AS401 on a key, reported once on its first call): how each output
 * format of the built CLI shows them, and that the cache keeps them.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { lint, PythonDocument } from "../../server/src/engine";
import { makeTree, removeTrees, runCli } from "./harness";

after(removeTrees);

/** One cursor Variable checkpointed in four places. */
const CURSOR_DAG = `from airflow.sdk import Variable, task


@task(retries=3)
def crawl():
    cursor = Variable.get("cursor", default=None)
    for page in range(3):
        Variable.set("cursor", f"{cursor}-{page}")
    Variable.set("cursor", f"{cursor}-last")
    Variable.delete("cursor")
`;

const MESSAGE = lint(new PythonDocument("file:///x.py", CURSOR_DAG), { select: ["AS401"] })[0].message;
const RELATED = "Another `Variable` call of `\"cursor\"` in this task";

describe("related locations in the CLI", () => {
  test("text: one line for the finding, its other places as `also at lines`; the cache keeps them", () => {
    const root = makeTree({ "dags/crawl.py": CURSOR_DAG });
    const expected = [`dags/crawl.py:6:14: AS401 ${MESSAGE} (also at lines 8, 9 and 10)`, "Found 1 problem (1 warning).", ""].join("\n");
    const cold = runCli(["--select", "AS401"], root);
    assert.equal(cold.stdout, expected);
    assert.equal(cold.status, 1);
    assert.equal(runCli(["--select", "AS401"], root).stdout, expected, "the second run, read from the cache");
  });

  test("a single other place says `also at line`", () => {
    const root = makeTree({ "one.py": CURSOR_DAG.replace(/ {4}for page[^\n]*\n[^\n]*\n/, "").replace(/ {4}Variable\.delete[^\n]*\n/, "") });
    assert.match(runCli(["--select", "AS401", "--no-cache"], root).stdout, /^one\.py:6:14: AS401 .* \(also at line 7\)$/m);
  });

  test("review: the finding's message says where else it is", () => {
    const root = makeTree({ "crawl.py": CURSOR_DAG });
    const review = runCli(["--select", "AS401", "--format", "review"], root).stdout;
    assert.ok(review.includes(`${MESSAGE} (also at lines 8, 9 and 10)\n`), review);
  });

  test("JSON: `related` holds each other place, 1-based", () => {
    const root = makeTree({ "crawl.py": CURSOR_DAG });
    const [finding] = JSON.parse(runCli(["--select", "AS401", "--format", "json", "--no-cache"], root).stdout) as { related: unknown[] }[];
    assert.deepEqual(finding.related, [
      { message: RELATED, line: 8, column: 9, endLine: 8, endColumn: 51 },
      { message: RELATED, line: 9, column: 5, endLine: 9, endColumn: 45 },
      { message: RELATED, line: 10, column: 5, endLine: 10, endColumn: 30 },
    ]);
  });

  test("SARIF: `relatedLocations` in the finding's file; absent from findings without other places", () => {
    const root = makeTree({ "crawl.py": CURSOR_DAG, "none.py": 'from airflow.sdk import task\n\n\n@task\ndef t(task_state_store=None):\n    task_state_store.set("k", None)\n' });
    const log = JSON.parse(runCli(["--select", "AS401,AS102", "--format", "sarif", "--no-cache"], root).stdout);
    const results = log.runs[0].results as { ruleId: string; relatedLocations?: unknown[] }[];
    const as401 = results.find((r) => r.ruleId === "AS401")!;
    assert.deepEqual(as401.relatedLocations, [
      { id: 1, message: { text: RELATED }, physicalLocation: { artifactLocation: { uri: "crawl.py", uriBaseId: "%SRCROOT%" }, region: { startLine: 8, startColumn: 9, endLine: 8, endColumn: 51 } } },
      { id: 2, message: { text: RELATED }, physicalLocation: { artifactLocation: { uri: "crawl.py", uriBaseId: "%SRCROOT%" }, region: { startLine: 9, startColumn: 5, endLine: 9, endColumn: 45 } } },
      { id: 3, message: { text: RELATED }, physicalLocation: { artifactLocation: { uri: "crawl.py", uriBaseId: "%SRCROOT%" }, region: { startLine: 10, startColumn: 5, endLine: 10, endColumn: 30 } } },
    ]);
    const as102 = results.find((r) => r.ruleId === "AS102")!;
    assert.equal("relatedLocations" in as102, false);
  });
});
