import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { hoverAt, PythonDocument, ruleByCode } from "../../server/src/engine";

const link = (code: string) => `file:///docs/rules/${code}.md`;

const SOURCE = `from datetime import timedelta
from airflow.sdk import NEVER_EXPIRE, BaseOperator, ResumableJobMixin, task


@task
def remember(task_state_store=None, **context):
    task_state_store.set("cursor", 1, retention=NEVER_EXPIRE)
    store = context["task_state_store"]
    assets = context["asset_state_store"]


class SparkOp(ResumableJobMixin, BaseOperator):
    external_id_key = "spark_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.client.submit_job()

    @staticmethod
    def is_job_active(status):
        return status == "RUNNING"


def submit_job(context):
    return None


submit_job = 1
`;

/** The hover at the first occurrence of `needle` (plus `offset` characters into it). */
function hoverOn(needle: string, occurrence = 0, source = SOURCE) {
  let index = -1;
  for (let i = 0; i <= occurrence; i++) index = source.indexOf(needle, index + 1);
  assert.ok(index >= 0, `${needle} not found`);
  return { hover: hoverAt(new PythonDocument("file:///dag.py", source), index + 1, link), index };
}

describe("hover", () => {
  test("a task_state_store parameter shows the task store reference with links to existing rules", () => {
    const { hover, index } = hoverOn("task_state_store=None");
    assert.ok(hover);
    assert.equal(hover.start, index);
    assert.equal(hover.end, index + "task_state_store".length);
    assert.match(hover.markdown, /survives its retries/);
    assert.match(hover.markdown, /retention=timedelta\(days=7\)/);
    assert.ok(hover.markdown.includes(`[AS102](${link("AS102")})`));
    assert.ok(hover.markdown.includes(`[AS103](${link("AS103")})`));
    for (const [, code] of hover.markdown.matchAll(/\[(AS\d{3})\]/g)) assert.ok(ruleByCode(code), `${code} is linked but not a rule`);
    assert.doesNotMatch(hover.markdown, /AS104/, "the asset store's rule is not the task store's");
  });

  test("the context key string of a store shows it too", () => {
    const { hover } = hoverOn('"asset_state_store"');
    assert.ok(hover);
    assert.match(hover.markdown, /across|every DAG run/);
    assert.ok(hover.markdown.includes(`[AS104](${link("AS104")})`));
    assert.ok(hoverOn('"task_state_store"').hover?.markdown.includes("survives its retries"));
  });

  test("NEVER_EXPIRE, in the import and in use", () => {
    assert.match(hoverOn("NEVER_EXPIRE").hover?.markdown ?? "", /timedelta\.max/);
    assert.match(hoverOn("NEVER_EXPIRE", 1).hover?.markdown ?? "", /never expires/);
  });

  test("execute_resumable and external_id_key", () => {
    assert.match(hoverOn("execute_resumable").hover?.markdown ?? "", /reconnected/);
    const key = hoverOn("external_id_key").hover;
    assert.match(key?.markdown ?? "", /remote_job_id/);
    assert.ok(key?.markdown.includes(`[AS301](${link("AS301")})`));
  });

  test("the mixin's methods: definitions in a class (decorated too) and attribute calls", () => {
    const definition = hoverOn("submit_job").hover;
    assert.match(definition?.markdown ?? "", /def submit_job\(self, context\)/);
    assert.match(definition?.markdown ?? "", /TypeError/);
    assert.match(hoverOn("submit_job", 1).hover?.markdown ?? "", /crash safety/);
    assert.match(hoverOn("is_job_active").hover?.markdown ?? "", /still runs/);
  });

  test("a function or variable that only shares a method's name has no hover", () => {
    assert.equal(hoverOn("submit_job", 2).hover, undefined, "a module-level function");
    assert.equal(hoverOn("submit_job = 1").hover, undefined, "a variable");
  });

  test("other names, white space and unrelated files have none", () => {
    assert.equal(hoverOn("remember").hover, undefined);
    assert.equal(hoverOn('"cursor"').hover, undefined);
    assert.equal(hoverAt(new PythonDocument("file:///x.py", SOURCE), SOURCE.indexOf("\n\n\n") + 1, link), undefined);
    const unrelated = "def submit_job(self, context):\n    task_state_store = 1\n";
    assert.ok(hoverOn("task_state_store", 0, unrelated).hover, "the store name alone makes a file relevant");
    const plain = "class Client:\n    def get_job_result(self, external_id, context):\n        pass\n";
    assert.equal(hoverOn("get_job_result", 0, plain).hover, undefined, "a file that never names Airflow");
  });

  test("a provider operator built on the mixin shows its module and key, from the one table", () => {
    const source = [
      "from airflow.providers.amazon.aws.operators.athena import AthenaOperator",
      "from airflow.providers.databricks.operators import databricks",
      "",
      'query = AthenaOperator(task_id="q", query="select 1", output_location="s3://out/")',
      'run = databricks.DatabricksSubmitRunOperator(task_id="r", json={})',
      "",
      "class AthenaOperator2:",
      "    pass",
      "",
    ].join("\n");
    const use = hoverOn("AthenaOperator(", 0, source).hover;
    assert.match(use?.markdown ?? "", /airflow\.providers\.amazon\.aws\.operators\.athena/);
    assert.match(use?.markdown ?? "", /athena_query_execution_id/);
    assert.ok(use?.markdown.includes(`[AS305](${link("AS305")})`));
    assert.match(hoverOn("AthenaOperator", 0, source).hover?.markdown ?? "", /athena_query_execution_id/, "in the import");
    const attribute = hoverOn("DatabricksSubmitRunOperator", 0, source).hover;
    assert.match(attribute?.markdown ?? "", /under its own key/, "a key the providers' source did not show is not made up");
    const unrelated = "from mylib import AthenaOperator\nfrom airflow.sdk import task\nAthenaOperator()\n";
    assert.equal(hoverOn("AthenaOperator(", 0, unrelated).hover, undefined, "a class of the same name elsewhere");
  });

  test("the asset store's hover names its async forms; the task store's says clear() takes no arguments", () => {
    const source = "from airflow.sdk import task\n\n@task\nasync def load(asset_state_store=None, task_state_store=None):\n    pass\n";
    assert.match(hoverOn("asset_state_store", 0, source).hover?.markdown ?? "", /aset/);
    const task = hoverOn("task_state_store", 0, source).hover?.markdown ?? "";
    assert.match(task, /takes no arguments/);
    assert.match(task, /kept when the task instance is cleared/);
  });
});
