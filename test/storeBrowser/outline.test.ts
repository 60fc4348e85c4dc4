/** The engine's DAG outline: which DAG ids and task ids a file defines, and where. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outlineOfText, type DagOutline } from "../../server/src/engine/features/outline";

/** `dag_id: task_id@line kind` per DAG, for compact assertions. */
function summary(outline: DagOutline): Record<string, string[]> {
  return Object.fromEntries(outline.dags.map((d) => [d.dagId, d.tasks.map((t) => `${t.taskId}@${t.range.start.line} ${t.kind}`)]));
}

describe("dag outline", () => {
  it("with DAG(...): TaskFlow tasks, operators with task_id, and functions run by python_callable", () => {
    const text = [
      "from airflow.sdk import DAG, task", // 0
      "from airflow.providers.standard.operators.python import PythonOperator",
      "",
      "def export_pages(**context):", // 3
      "    pass",
      "",
      'with DAG(dag_id="orders_daily", schedule="@daily") as dag:', // 6
      '    export = PythonOperator(task_id="export_pages", python_callable=export_pages)', // 7
      "",
      "    @task(retries=5)", // 9
      "    def load(task_state_store=None):",
      "        pass",
      "",
      '    @task(task_id="renamed")', // 13
      "    def original():",
      "        pass",
      "",
      "    export >> load() >> original()",
    ].join("\n");
    const outline = outlineOfText(text);
    assert.deepEqual(summary(outline), {
      orders_daily: ["export_pages@3 callable", "export_pages@7 operator", "load@9 taskflow", "renamed@13 taskflow"],
    });
    assert.deepEqual(outline.dags[0].range.start, { line: 6, character: 0 });
    const load = outline.dags[0].tasks[2];
    assert.deepEqual(load.range.start, { line: 9, character: 4 }, "the lens goes above the decorator");
  });

  it("@dag functions: dag_id from the keyword, the first argument, or the function name", () => {
    const text = [
      "from airflow.sdk import dag, task",
      "",
      '@dag(dag_id="explicit")',
      "def first():",
      "    @task",
      "    def a(): ...",
      "    a()",
      "",
      '@dag("positional", schedule=None)',
      "def second():",
      "    @task",
      "    def b(): ...",
      "    b()",
      "",
      "@dag",
      "def named_by_function():",
      "    @task",
      "    def c(): ...",
      "    c()",
    ].join("\n");
    assert.deepEqual(summary(outlineOfText(text)), {
      explicit: ["a@4 taskflow"],
      positional: ["b@10 taskflow"],
      named_by_function: ["c@16 taskflow"],
    });
  });

  it("follows a name bound once; leaves out ids computed at parse time", () => {
    const text = [
      "from airflow.sdk import DAG",
      "from airflow.providers.standard.operators.bash import BashOperator",
      'DAG_ID = "constant_id"',
      'STEP = "step_one"',
      "with DAG(DAG_ID):",
      "    BashOperator(task_id=STEP, bash_command='true')",
      "    for i in range(3):",
      "        BashOperator(task_id=f'loop_{i}', bash_command='true')",
      "with DAG(f'dyn_{1}'):",
      "    BashOperator(task_id='lost', bash_command='true')",
    ].join("\n");
    assert.deepEqual(summary(outlineOfText(text)), { constant_id: ["step_one@5 operator"] });
  });

  it("prefixes task group ids, unless prefix_group_id=False", () => {
    const text = [
      "from airflow.sdk import DAG, TaskGroup, task, task_group",
      "from airflow.providers.standard.operators.empty import EmptyOperator",
      "with DAG('grouped'):",
      "    with TaskGroup('extract'):",
      "        EmptyOperator(task_id='pull')",
      "        with TaskGroup(group_id='inner'):",
      "            EmptyOperator(task_id='deep')",
      "    with TaskGroup('flat', prefix_group_id=False):",
      "        EmptyOperator(task_id='plain')",
      "    @task_group",
      "    def load_group():",
      "        @task",
      "        def write(): ...",
      "        write()",
      "    load_group()",
    ].join("\n");
    assert.deepEqual(summary(outlineOfText(text)), {
      grouped: ["extract.pull@4 operator", "extract.inner.deep@6 operator", "plain@8 operator", "load_group.write@11 taskflow"],
    });
  });

  it("assigns tasks to the DAG whose block instantiates them; a task outside any DAG only when the file has one DAG", () => {
    const two = [
      "from airflow.sdk import DAG, task",
      "from airflow.providers.standard.operators.empty import EmptyOperator",
      "@task",
      "def shared(): ...",
      "loose = EmptyOperator(task_id='loose')",
      "with DAG('a'):",
      "    EmptyOperator(task_id='in_a')",
      "    shared()",
      "with DAG('b'):",
      "    EmptyOperator(task_id='in_b')",
    ].join("\n");
    assert.deepEqual(summary(outlineOfText(two)), { a: ["shared@2 taskflow", "in_a@6 operator"], b: ["in_b@9 operator"] });
    const one = two.split("\n").slice(0, 8).join("\n");
    assert.deepEqual(summary(outlineOfText(one)), { a: ["shared@2 taskflow", "loose@4 operator", "in_a@6 operator"] });
  });

  it("lists what the file instantiates, as the dependency graph does: not an uncalled TaskFlow function, and an override under its own id", () => {
    const text = [
      "from airflow.sdk import DAG, task",
      "with DAG('d'):",
      "    @task",
      "    def a(): ...",
      "    @task",
      "    def never_called(): ...",
      "    a.override(task_id='a2')()",
    ].join("\n");
    assert.deepEqual(summary(outlineOfText(text)), { d: ["a2@2 taskflow"] });
  });

  it("a file that never names airflow, or defines no DAG, has an empty outline", () => {
    assert.deepEqual(outlineOfText("def f():\n    return 1\n"), { dags: [] });
    assert.deepEqual(outlineOfText("from airflow.sdk import task\n@task\ndef t(): ...\n"), { dags: [] });
    assert.deepEqual(outlineOfText("from other import DAG\nwith DAG('x'):\n    pass\n"), { dags: [] }, "a DAG class not from airflow");
  });

  it("columns are UTF-16 offsets, as the editor counts them", () => {
    const text = ["from airflow.sdk import DAG", "from airflow.providers.standard.operators.empty import EmptyOperator", "with DAG('é'):", "    x = '😀'; EmptyOperator(task_id='t')"].join("\n");
    const [task] = outlineOfText(text).dags[0].tasks;
    assert.deepEqual(task.range.start, { line: 3, character: "    x = '😀'; ".length });
  });
});
