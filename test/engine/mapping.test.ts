import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PythonDocument } from "../../server/src/engine";
import { mappingOf } from "../../server/src/engine/airflow/taskMapping";
import { SemanticModel } from "../../server/src/engine/airflow/model";

function model(lines: string[]): SemanticModel {
  const document = new PythonDocument("file:///dag.py", lines.join("\n") + "\n");
  return new SemanticModel(document.tree, document.getText());
}

function mapped(m: SemanticModel, name: string) {
  return mappingOf(m, m.functions.find((f) => f.name === name)!);
}

describe("mapped TaskFlow tasks", () => {
  const m = model([
    "from airflow.sdk import dag, task",
    "from airflow.providers.standard.operators.python import PythonOperator",
    "@task",
    "def expanded(partition_id): pass",
    "@task",
    "def with_partial(table, batch_size): pass",
    "@task",
    "def with_kwargs(region, day): pass",
    "@task",
    "def from_xcom(region): pass",
    "@task",
    "def overridden(n): pass",
    "@task",
    "def plain(n): pass",
    "def callable_(region): pass",
    "def callable_args(region): pass",
    "def not_mapped_callable(region): pass",
    "@dag",
    "def pipeline():",
    "    expanded.expand(partition_id=[0, 1])",
    "    with_partial.partial(batch_size=10).expand(table=['a', 'b'])",
    "    with_kwargs.expand_kwargs([{'region': 'eu', 'day': 1}, {'region': 'us', 'day': 2}])",
    "    from_xcom.expand_kwargs(make_kwargs())",
    "    overridden.override(task_id='again').expand(n=[1, 2])",
    "    plain(1)",
    "    PythonOperator.partial(task_id='p', python_callable=callable_).expand(op_kwargs=[{'region': 'eu'}])",
    "    PythonOperator.partial(task_id='q', python_callable=callable_args).expand(op_args=[['eu']])",
    "    PythonOperator(task_id='r', python_callable=not_mapped_callable, op_kwargs={'region': 'eu'})",
    "pipeline()",
  ]);
  test("expand maps its keywords", () => {
    assert.deepEqual(mapped(m, "expanded")?.mappedParameters, ["partition_id"]);
  });
  test("partial keywords are not mapped, the expand keywords are", () => {
    assert.deepEqual(mapped(m, "with_partial")?.mappedParameters, ["table"]);
  });
  test("expand_kwargs over literal dictionaries maps their keys", () => {
    assert.deepEqual(mapped(m, "with_kwargs")?.mappedParameters, ["region", "day"]);
  });
  test("expand_kwargs over anything else is mapped with unknown parameters", () => {
    const mapping = mapped(m, "from_xcom");
    assert.ok(mapping);
    assert.equal(mapping.mappedParameters, undefined);
  });
  test("override(...) keeps the task", () => {
    assert.deepEqual(mapped(m, "overridden")?.mappedParameters, ["n"]);
  });
  test("a task that is only called is not mapped", () => {
    assert.equal(mapped(m, "plain"), undefined);
  });
  test("PythonOperator.partial(python_callable=f).expand(op_kwargs=...) maps f's parameters", () => {
    assert.deepEqual(mapped(m, "callable_")?.mappedParameters, ["region"]);
    assert.equal(mapped(m, "callable_args")?.mappedParameters, undefined);
    assert.equal(mapped(m, "not_mapped_callable"), undefined);
  });
  test("records the expand calls", () => {
    assert.deepEqual(
      mapped(m, "expanded")?.expansions.map((e) => e.text),
      ["expanded.expand(partition_id=[0, 1])"],
    );
  });
});

describe("several expansions of one task", () => {
  test("their mapped parameters add up", () => {
    const m = model(["from airflow.sdk import task", "@task", "def load(a, b): pass", "load.expand(a=[1])", "load.expand(b=[2])"]);
    assert.deepEqual(mapped(m, "load")?.mappedParameters, ["a", "b"]);
    assert.equal(mapped(m, "load")?.expansions.length, 2);
  });
  test("one unknown expansion makes them unknown", () => {
    const m = model(["from airflow.sdk import task", "@task", "def load(a): pass", "load.expand(a=[1])", "load.expand(**kwargs)"]);
    assert.equal(mapped(m, "load")?.mappedParameters, undefined);
  });
  test("a task referenced through a name bound to its partial", () => {
    const m = model(["from airflow.sdk import task", "@task", "def load(a, b): pass", "partial_load = load.partial(b=1)", "partial_load.expand(a=[1, 2])"]);
    assert.deepEqual(mapped(m, "load")?.mappedParameters, ["a"]);
  });
});
