/**
 * The Markdown review of a DAG file (engine/review.ts): its exact structure, the categories findings
 * are grouped under, before/after snippets that are the rules' own fixes applied to the file, and the
 * submit-and-poll trade-off written out for each split.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { allRules, applyEdits, lint, PythonDocument } from "../../server/src/engine";
import { AirflowPin } from "../../server/src/engine/project";
import { hunks, reviewCategory, reviewMarkdown } from "../../server/src/engine/features/review";
import { SemanticModel } from "../../server/src/engine/airflow/model";
import { submitAndPollSplits } from "../../server/src/engine/airflow/submitAndPoll";
import { collapseSplit } from "../../server/src/engine/fixes/submitAndPollRewrites";

function documentOf(text: string, name = "dag.py"): PythonDocument {
  return new PythonDocument(`file:///repo/dags/${name}`, text);
}

/** The fenced blocks of a review, in order. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```python\n([\s\S]*?)\n```$/gm)].map((m) => m[1]);
}

function headings(markdown: string): string[] {
  return markdown.split("\n").filter((line) => /^#{1,4} /.test(line));
}

const NONE_VALUE = `from airflow.sdk import task


@task(retries=3)
def forget_cursor(task_state_store=None):
    task_state_store.set("cursor", None)
`;

const SPLIT = (sensorKeywords: string) => `from datetime import datetime, timezone

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, task


def finished(run_id):
    return run_id is not None


@task
def publish():
    pass


with DAG(dag_id="nightly", schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=False)
    wait = PythonSensor(task_id="wait", python_callable=finished, op_args=[submit.output]${sensorKeywords})
    submit >> wait >> publish()
`;

describe("review", () => {
  test("writes a finding with its category, why it matters, its fix and the lines it changes", () => {
    assert.equal(
      reviewMarkdown(documentOf(NONE_VALUE, "cursor.py")),
      `# Airflow state store review: \`cursor.py\`

**1 finding** (1 error) in 1 category. 1 comes with a rewrite to review before applying, since it changes what the DAG does.

| Category | Findings |
|---|---|
| Values and keys | 1 |

## Values and keys

**Why it matters at run time.** ${reviewCategory("AS102").why}

### 1. AS102 \`none-value\` (error, line 6)

Storing \`None\` raises \`ValueError\` at run time; delete the key instead to forget it.

**Fix (unsafe: changes behaviour; review it):** Replace with \`task_state_store.delete("cursor")\`

Before (lines 4–6):

\`\`\`python
@task(retries=3)
def forget_cursor(task_state_store=None):
    task_state_store.set("cursor", None)
\`\`\`

After:

\`\`\`python
@task(retries=3)
def forget_cursor(task_state_store=None):
    task_state_store.delete("cursor")
\`\`\`
`,
    );
  });

  test("groups findings by the guidance's categories, in its order, numbered through the review", () => {
    const text = `from datetime import datetime

from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
from airflow.sdk import DAG, task


@task
def load(**context):
    context["task_state_store"].set("seen_at", datetime.utcnow())
    context["task_state"].set("cursor", None)


with DAG(dag_id="nightly", schedule="@daily"):
    DatabricksRunNowOperator(task_id="refresh", job_id=1, deferrable=True, wait_for_termination=False)
`;
    const review = reviewMarkdown(documentOf(text));
    assert.deepEqual(headings(review), [
      "# Airflow state store review: `dag.py`",
      "## Values and keys",
      "### 1. AS101 `non-json-value` (error, line 9)",
      "### 2. AS206 `naive-utcnow` (warning, line 9)",
      "## Scope and injection",
      "### 3. AS106 `unshipped-context-key` (error, line 10)",
      "## Submit-and-poll",
      "### 4. AS406 `deferrable-without-wait` (error, line 14)",
    ]);
    assert.ok(review.includes("**4 findings** (3 errors, 1 warning) in 3 categories."), review);
    assert.ok(review.includes("| Values and keys | 2 |\n| Scope and injection | 1 |\n| Submit-and-poll | 1 |\n"), review);
  });

  test("takes every snippet from the finding's own fix applied to the file", () => {
    const text = `from datetime import datetime

from airflow.sdk import task


@task
def load(task_state_store=None):
    task_state_store.set("seen_at", datetime.now())
    task_state_store.set("cursor", None)
`;
    const document = documentOf(text);
    const findings = lint(document).filter((d) => d.fix);
    assert.ok(findings.length >= 2);
    const blocks = codeBlocks(reviewMarkdown(document));
    assert.equal(blocks.length, 2 * findings.length, "one before/after pair per fix whose changes sit together");
    findings.forEach((finding, i) => {
      const [before, after] = [blocks[2 * i], blocks[2 * i + 1]];
      assert.ok(text.includes(before), `before ${i} is not the file's text:\n${before}`);
      assert.ok(applyEdits(text, finding.fix!.edits).includes(after), `after ${i} is not the fixed text:\n${after}`);
      assert.notEqual(before, after);
    });
  });

  test("shows both one-task rewrites of a submit-and-poll split and the trade-off between them and the split", () => {
    const text = SPLIT("");
    const review = reviewMarkdown(documentOf(text));
    const [finding] = lint(documentOf(text), { select: ["AS405"] });
    const model = new SemanticModel(documentOf(text).tree, text);
    const durable = collapseSplit(model, submitAndPollSplits(model.context)[0], "durable")!;
    const blocks = codeBlocks(review);
    assert.equal(blocks.length, 4);
    assert.ok(applyEdits(text, finding.fix!.edits).includes(blocks[1]) && blocks[1].includes("deferrable=True"));
    assert.ok(applyEdits(text, durable.edits).includes(blocks[3]) && blocks[3].includes("durable=True"));
    for (const block of [blocks[1], blocks[3]]) assert.ok(block.endsWith("    submit >> publish()") && !block.includes("PythonSensor("), block);
    // After the summary and the category's "Why it matters" paragraph.
    const labels = review.split("\n").filter((line) => line.startsWith("**"));
    assert.deepEqual(labels.slice(2), [
      "**Rewrite A, with a Triggerer (changes behaviour; review it):** Fold `wait` into `submit`: one deferrable task (`deferrable=True, wait_for_termination=True`; needs a Triggerer)",
      "**Rewrite B, without a Triggerer (changes behaviour; review it):** Fold `wait` into `submit`: one durable task (`wait_for_termination=True, durable=True`)",
      "**One task or two?** `submit` turns green as soon as its job is accepted; `wait` is the only task whose result says whether the job succeeded. `wait` waits in poke mode: it holds a worker slot for the job's whole run, as one task would, so the split frees nothing. Which shape is right depends on the deployment:",
    ]);
    const shapes = review.split("\n").filter((line) => line.startsWith("- **"));
    assert.deepEqual(
      shapes.map((line) => line.slice(0, line.indexOf(":**") + 3)),
      ["- **A Triggerer is deployed:**", "- **No Triggerer; the job is short or medium, or worker slots are plentiful:**", "- **No Triggerer; the job is very long and worker slots are scarce:**"],
    );
    assert.ok(review.includes("Either way `submit` keeps `durable=True`"));
  });

  test("describes a split kept with a reschedule sensor, which has no finding", () => {
    const review = reviewMarkdown(documentOf(SPLIT(`, mode="reschedule"`)));
    assert.deepEqual(headings(review), ["# Airflow state store review: `dag.py`", "## Submit-and-poll", "### Split kept: `submit` then `wait`"]);
    assert.ok(review.includes("No findings: every enabled rule passes on this file."));
    assert.ok(review.includes('`wait` runs in `mode="reschedule"` and frees its worker slot between checks: this is the third shape below.'));
    assert.equal(codeBlocks(review).length, 0);
    // Left out when AS405 is not among the enabled rules.
    assert.ok(!reviewMarkdown(documentOf(SPLIT(`, mode="reschedule"`)), { select: ["AS1"] }).includes("Split kept"));
  });

  test("says when a split cannot be rewritten", () => {
    const text = SPLIT("").replace("    submit >> wait >> publish()\n", "    submit >> wait\n    publish.override(task_id='after')(wait.output)\n");
    const review = reviewMarkdown(documentOf(text));
    assert.ok(review.includes("No automatic rewrite: the waiting task cannot be folded into the submit task exactly"), review);
    assert.equal(codeBlocks(review).length, 0);
    assert.ok(review.includes("**One task or two?**"));
  });

  test("names the file as asked, mentions the project's Airflow pin, and is the same every time", () => {
    const pin: AirflowPin = { version: "2.10.5", below33: true, source: { path: "/repo/requirements.txt", line: 3 } };
    const document = documentOf(NONE_VALUE);
    const review = reviewMarkdown(document, { title: "dags/dag.py", airflowPin: pin, path: "/repo/dags/dag.py" });
    assert.ok(review.startsWith("# Airflow state store review: `dags/dag.py`\n"));
    assert.ok(review.includes("\nAirflow version: the project pins Airflow 2.10.5 (../requirements.txt:3).\n"), review);
    assert.ok(review.includes("## Airflow version"), "AS501 reports the store below 3.3");
    assert.equal(reviewMarkdown(document, { title: "dags/dag.py", airflowPin: pin, path: "/repo/dags/dag.py" }), review);
  });

  test("writes a file without findings as one line, and Windows line ends as plain ones in snippets", () => {
    assert.equal(reviewMarkdown(documentOf("print('no airflow here')\n", "tool.py")), "# Airflow state store review: `tool.py`\n\nNo findings: every enabled rule passes on this file.\n");
    const review = reviewMarkdown(documentOf(NONE_VALUE.replace(/\n/g, "\r\n")));
    assert.ok(!review.includes("\r"));
    assert.deepEqual(codeBlocks(review).map((b) => b.split("\n").length), [3, 3]);
  });

  test("gives every registered rule a category of the guidance", () => {
    for (const rule of allRules) assert.notEqual(reviewCategory(rule.code).id, "other", `${rule.code} has no review category`);
    assert.equal(reviewCategory("AS999").id, "other");
  });
});

describe("before/after hunks", () => {
  const text = ["a = 1", "b = 2", "", "c = 3", "d = 4", "e = 5", "f = 6", "g = 7", "h = 8", "i = 9", "j = 10", ""].join("\n");
  const lineStart = (line: number) => text.split("\n").slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0);

  test("shows each change with its context, merging changes whose context touches", () => {
    const replaceLine = (line: number, newText: string) => ({ start: lineStart(line), end: lineStart(line) + text.split("\n")[line - 1].length, newText });
    const result = hunks(text, [replaceLine(2, "b = 20"), replaceLine(6, "e = 50"), replaceLine(11, "j = 100")], 1);
    assert.deepEqual(
      result.map((h) => [h.firstLine, h.lastLine, h.after]),
      [
        [1, 2, "a = 1\nb = 20"],
        [5, 7, "d = 4\ne = 50\nf = 6"],
        [10, 11, "i = 9\nj = 100"],
      ],
      "blank context lines are left out and the last line has no line after it",
    );
    assert.equal(hunks(text, [replaceLine(4, "c = 30"), replaceLine(6, "e = 50")], 1).length, 1);
  });

  test("shows deleted lines and insertions at the end of the file", () => {
    const [deleted] = hunks(text, [{ start: lineStart(5), end: lineStart(7), newText: "" }], 1);
    assert.deepEqual([deleted.firstLine, deleted.lastLine, deleted.before, deleted.after], [4, 7, "c = 3\nd = 4\ne = 5\nf = 6", "c = 3\nf = 6"]);
    const [appended] = hunks(text, [{ start: text.length, end: text.length, newText: "k = 11\n" }], 0);
    assert.deepEqual([appended.firstLine, appended.after], [11, "j = 10\nk = 11"]);
  });
});
