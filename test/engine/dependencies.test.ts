/**
 * The task graph of a DAG file (semantic/dependencies.ts), the edits that rewire it (rewiring.ts),
 * the submit-and-poll splits found on it (semantic/submitAndPoll.ts) and the two ways of folding a
 * split into one task (submitAndPollRewrites.ts): what fixtures cannot show on their own.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { applyEdits, lint, PythonDocument } from "../../server/src/engine";
import { parsePython } from "../../server/src/engine/syntax/parser";
import { foldTaskInto, moveDependency } from "../../server/src/engine/fixes/rewiring";
import { DependencyGraph, Task } from "../../server/src/engine/airflow/dependencies";
import { SemanticModel } from "../../server/src/engine/airflow/model";
import { submitAndPollSplits } from "../../server/src/engine/airflow/submitAndPoll";
import { collapseSplit } from "../../server/src/engine/fixes/submitAndPollRewrites";
import { fromRoot } from "../support/paths";

const HEADER = `from airflow.sdk import DAG, Label, TaskGroup, XComArg, chain, chain_linear, cross_downstream, task
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.amazon.aws.operators.emr import EmrServerlessStartJobOperator

`;

function modelOf(body: string): SemanticModel {
  const text = HEADER + body;
  return new SemanticModel(parsePython(text), text);
}

function graphOf(body: string): DependencyGraph {
  return DependencyGraph.of(modelOf(body));
}

/** `a -> b` for each dependency, `a ~> b` for data dependencies, in declaration order. */
function edges(graph: DependencyGraph): string[] {
  return graph.dependencies.map((d) => `${d.upstream.taskId} ${d.kind === "data" ? "~>" : "->"} ${d.downstream.taskId}`);
}

function task(graph: DependencyGraph, taskId: string): Task {
  const found = graph.tasks.find((t) => t.taskId === taskId);
  assert.ok(found, `no task ${taskId}`);
  return found;
}

const OPS = `with DAG(dag_id="d"):
    a = EmptyOperator(task_id="a")
    b = EmptyOperator(task_id="b")
    c = EmptyOperator(task_id="c")
    d = EmptyOperator(task_id="d")
`;

describe("dependency graph", () => {
  test("finds operator tasks, their names and statements, and TaskFlow calls", () => {
    const graph = graphOf(`@task
def load(x):
    pass

with DAG(dag_id="d"):
    a = EmptyOperator(task_id="a")
    EmptyOperator(task_id="bare")
    mapped = EmptyOperator.partial(task_id="mapped").expand(doc=["x", "y"])
    loaded = load.override(task_id="custom")(a.output)
    load.expand(x=[1, 2])
    dag_task = dag.get_task(task_id="not_a_task")
`);
    assert.deepEqual(
      graph.tasks.map((t) => `${t.kind}:${t.taskId}:${t.binding?.name ?? "-"}:${t.statement ? "statement" : "inline"}`),
      ["operator:a:a:statement", "operator:bare:-:statement", "operator:mapped:mapped:statement", "taskflow:custom:loaded:statement", "taskflow:load:-:statement"],
    );
    assert.equal(task(graph, "mapped").call.node.text, `EmptyOperator.partial(task_id="mapped")`);
  });

  test("reads >> and << chains left to right, with lists on either side", () => {
    assert.deepEqual(edges(graphOf(OPS + "    a >> b >> c\n")), ["a -> b", "b -> c"]);
    assert.deepEqual(edges(graphOf(OPS + "    a << b\n")), ["b -> a"]);
    assert.deepEqual(edges(graphOf(OPS + "    a >> b << c\n")), ["a -> b", "c -> b"]);
    assert.deepEqual(edges(graphOf(OPS + "    [a, b] >> c >> [d]\n")), ["a -> c", "b -> c", "c -> d"]);
    // `a >> (b >> c)`: the nested chain evaluates to `c`.
    assert.deepEqual(edges(graphOf(OPS + "    a >> (b >> c)\n")).sort(), ["a -> c", "b -> c"]);
    // A name bound to a chain stands for its last task; a name bound to a list for the list.
    assert.deepEqual(edges(graphOf(OPS + "    tail = a >> b\n    tail >> c\n    both = [c, d]\n    a >> both\n")), ["a -> b", "b -> c", "a -> c", "a -> d"]);
  });

  test("reads chain, chain_linear, cross_downstream, set_downstream and set_upstream", () => {
    assert.deepEqual(edges(graphOf(OPS + "    chain(a, [b, c], d)\n")), ["a -> b", "a -> c", "b -> d", "c -> d"]);
    assert.deepEqual(edges(graphOf(OPS + "    chain([a, b], [c, d])\n")), ["a -> c", "b -> d"]);
    assert.deepEqual(edges(graphOf(OPS + "    chain_linear([a, b], [c, d])\n")), ["a -> c", "a -> d", "b -> c", "b -> d"]);
    assert.deepEqual(edges(graphOf(OPS + "    cross_downstream(from_tasks=[a], to_tasks=[b, c])\n")), ["a -> b", "a -> c"]);
    assert.deepEqual(edges(graphOf(OPS + "    a.set_downstream([b, c])\n    d.set_upstream(a)\n")), ["a -> b", "a -> c", "a -> d"]);
  });

  test("joins the neighbours of a Label and the tasks of a TaskGroup", () => {
    assert.deepEqual(edges(graphOf(OPS + `    a >> Label("on success") >> b\n`)), ["a -> b"]);
    const graph = graphOf(`with DAG(dag_id="d"):
    start = EmptyOperator(task_id="start")
    with TaskGroup("group") as group:
        one = EmptyOperator(task_id="one")
        two = EmptyOperator(task_id="two")
    start >> group
`);
    assert.deepEqual(edges(graph), ["start -> one", "start -> two"]);
    assert.deepEqual(graph.unresolved, []);
  });

  test("reads data dependencies: TaskFlow results, op.output, XComArg(op), inside lists and dictionaries", () => {
    const graph = graphOf(`@task
def make():
    return 1

@task
def use(x, y=None):
    pass

with DAG(dag_id="d"):
    a = EmptyOperator(task_id="a")
    made = make()
    use(made, y={"id": a.output["run_id"]})
    use(make.override(task_id="inline")())
    EmptyOperator(task_id="templated", doc=[XComArg(a)])
    EmptyOperator(task_id="not_data", doc=a)
`);
    assert.deepEqual(edges(graph), ["make ~> use", "a ~> use", "inline ~> use", "a ~> templated"]);
  });

  test("ignores arithmetic and keeps what it cannot follow as unresolved", () => {
    const arithmetic = graphOf(OPS + "    shifted = 1 << 4\n    mask = shifted >> 2\n");
    assert.deepEqual(edges(arithmetic), []);
    assert.deepEqual(arithmetic.unresolved, []);
    const helper = graphOf(OPS + "    a >> make_reports() >> b\n    chain(*[c, d])\n");
    assert.deepEqual(edges(helper), []);
    assert.deepEqual(
      helper.unresolved.map((n) => n.text),
      ["make_reports()", "chain(*[c, d])"],
    );
    // A name assigned in a branch may not have been assigned there.
    const branch = graphOf(OPS + "    x = a\n    if d:\n        x = b\n    x >> c\n");
    assert.deepEqual(branch.unresolved.map((n) => n.text), ["x"]);
  });

  test("follows a name assigned again further on to the assignment before each use", () => {
    const graph = graphOf(`with DAG(dag_id="us"):
    submit = EmptyOperator(task_id="submit_us")
    wait = EmptyOperator(task_id="wait_us")
    submit >> wait

with DAG(dag_id="eu"):
    submit = EmptyOperator(task_id="submit_eu")
    wait = EmptyOperator(task_id="wait_eu")
    submit >> wait
`);
    assert.deepEqual(edges(graph), ["submit_us -> wait_us", "submit_eu -> wait_eu"]);
    assert.deepEqual(graph.unresolved, []);
    assert.deepEqual(graph.references(task(graph, "wait_eu")).map((n) => n.startPosition.row), [14]);
  });

  test("answers reachability and names each dependency's expression and operands", () => {
    const graph = graphOf(OPS + "    a >> b\n    chain(b, c)\n    c.set_downstream(d)\n");
    assert.ok(graph.reaches(task(graph, "a"), task(graph, "d")));
    assert.ok(!graph.reaches(task(graph, "d"), task(graph, "a")));
    assert.ok(!graph.reaches(task(graph, "a"), task(graph, "d"), task(graph, "c")), "a path through an excluded task does not count");
    assert.deepEqual(
      graph.dependencies.map((d) => `${d.expression!.kind}: ${d.expression!.node.text} [${d.from.node.text} | ${d.to.node.text}]`),
      ["bitshift: a >> b [a | b]", "chain: chain(b, c) [b | c]", "set_downstream: c.set_downstream(d) [c | d]"],
    );
    assert.deepEqual(graph.references(task(graph, "b")).map((n) => n.startPosition.row), [11, 12]);
  });
});

describe("rewiring", () => {
  function fold(body: string, removed: string, into: string): string | undefined {
    const model = modelOf(body);
    const graph = DependencyGraph.of(model);
    const edits = foldTaskInto(graph, task(graph, removed), task(graph, into));
    return edits && applyEdits(model.text, edits).slice(HEADER.length);
  }

  const SPLIT = `with DAG(dag_id="d"):
    before = EmptyOperator(task_id="before")
    submit = EmptyOperator(task_id="submit")
    wait = EmptyOperator(task_id="wait")
    after = EmptyOperator(task_id="after")
`;

  test("folds a task into the one before it: its upstream and downstream move there", () => {
    assert.equal(fold(SPLIT + "    before >> submit >> wait >> after\n", "wait", "submit"), SPLIT.replace("    wait = EmptyOperator(task_id=\"wait\")\n", "") + "    before >> submit >> after\n");
    assert.equal(
      fold(SPLIT + "    submit >> wait\n    before >> wait\n    wait >> [after]\n", "wait", "submit"),
      SPLIT.replace("    wait = EmptyOperator(task_id=\"wait\")\n", "") + "    before >> submit\n    submit >> [after]\n",
    );
    assert.equal(
      fold(SPLIT + "    chain(submit, wait, after)\n    after << wait\n    wait.set_downstream(before)\n", "wait", "submit"),
      SPLIT.replace("    wait = EmptyOperator(task_id=\"wait\")\n", "") + "    chain(submit, after)\n    after << submit\n    submit.set_downstream(before)\n",
    );
    assert.equal(
      fold(SPLIT + "    submit >> [wait, after]\n    submit.set_downstream(wait)\n", "wait", "submit"),
      SPLIT.replace("    wait = EmptyOperator(task_id=\"wait\")\n", "") + "    submit >> [after]\n",
    );
  });

  test("folds a task created inline in a chain", () => {
    const body = `with DAG(dag_id="d"):
    submit = EmptyOperator(task_id="submit")
    after = EmptyOperator(task_id="after")
    submit >> EmptyOperator(task_id="wait") >> after
`;
    assert.equal(fold(body, "wait", "submit"), body.replace(` >> EmptyOperator(task_id="wait")`, ""));
  });

  test("refuses what it cannot rewrite exactly", () => {
    // A task between the two would run both before and after the merged task.
    assert.equal(fold(SPLIT + "    submit >> before >> wait\n    submit >> wait\n", "wait", "submit"), undefined);
    // The removed task's result is used.
    assert.equal(fold(SPLIT + "    submit >> wait\n    EmptyOperator(task_id='uses', doc=wait.output)\n", "wait", "submit"), undefined);
    // The removed task is also mentioned outside a dependency.
    assert.equal(fold(SPLIT + "    submit >> wait\n    wait.doc_md = 'waits'\n", "wait", "submit"), undefined);
    // The removed task hides in a list bound to a name.
    assert.equal(fold(SPLIT + "    submit >> wait\n    group = [wait, after]\n    group >> before\n", "wait", "submit"), undefined);
    // A list next to it already holds the task it is folded into.
    assert.equal(fold(SPLIT + "    [submit, before] >> wait >> after\n", "wait", "submit"), undefined);
  });

  function move(body: string, from: string, to: string, instead: string): string | undefined {
    const model = modelOf(body);
    const graph = DependencyGraph.of(model);
    const dependency = graph.dependencies.find((d) => d.upstream.taskId === from && d.downstream.taskId === to && d.kind === "control");
    assert.ok(dependency);
    const edits = moveDependency(graph, dependency, task(graph, instead));
    return edits && applyEdits(model.text, edits).slice(HEADER.length);
  }

  test("moves a dependency to a task that runs after its upstream", () => {
    assert.equal(move(SPLIT + "    submit >> wait\n    submit >> after\n", "submit", "after", "wait"), SPLIT + "    submit >> wait\n    submit >> wait >> after\n");
    assert.equal(move(SPLIT + "    submit >> wait\n    before >> submit >> after\n", "submit", "after", "wait"), SPLIT + "    submit >> wait\n    before >> submit >> wait >> after\n");
    assert.equal(move(SPLIT + "    submit >> wait\n    after << submit\n", "submit", "after", "wait"), SPLIT + "    submit >> wait\n    after << wait << submit\n");
    assert.equal(move(SPLIT + "    chain(submit, wait)\n    chain(submit, after)\n", "submit", "after", "wait"), SPLIT + "    chain(submit, wait)\n    chain(submit, wait, after)\n");
    assert.equal(move(SPLIT + "    submit >> [wait, after]  # fan out\n", "submit", "after", "wait"), SPLIT + "    submit >> [wait]  # fan out\n    wait >> after\n");
    assert.equal(move(SPLIT + "    submit >> wait\n    submit.set_downstream(after)\n", "submit", "after", "wait"), SPLIT + "    submit >> wait\n    wait.set_downstream(after)\n");
    assert.equal(move(SPLIT + "    submit >> wait\n    after.set_upstream([submit, before])\n", "submit", "after", "wait"), SPLIT + "    submit >> wait\n    after.set_upstream([wait, before])\n");
  });

  test("does not move what it cannot move exactly", () => {
    // A list on the upstream side would give its other tasks a new edge too.
    assert.equal(move(SPLIT + "    submit >> wait\n    [submit, before] >> after\n", "submit", "after", "wait"), undefined);
    // A list in the middle of a chain keeps its downstream edges.
    assert.equal(move(SPLIT + "    submit >> [wait, after] >> before\n", "submit", "after", "wait"), undefined);
    // The task to depend on is created after the expression.
    const late = `with DAG(dag_id="d"):
    submit = EmptyOperator(task_id="submit")
    after = EmptyOperator(task_id="after")
    submit >> after
    wait = EmptyOperator(task_id="wait")
    submit >> wait
`;
    assert.equal(move(late, "submit", "after", "wait"), undefined);
  });
});

describe("submit-and-poll splits", () => {
  const submitAndSensor = (sensorKeywords: string, extra = "") => `def finished(run_id):
    return True

with DAG(dag_id="d"):
    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=False)
    wait = PythonSensor(task_id="wait", python_callable=finished, op_args=[submit.output]${sensorKeywords})
    done = EmptyOperator(task_id="done")
    submit >> wait >> done
${extra}`;

  function splits(body: string) {
    const model = modelOf(body);
    return submitAndPollSplits(model.context);
  }

  test("a sensor reading the submit's result waits for it; its mode says whether it frees the slot", () => {
    assert.deepEqual(splits(submitAndSensor("")).map((s) => s.waits.map((w) => `${w.task.taskId}:${w.kind}:${w.freesSlot ?? "holds"}`)), [["wait:sensor:holds"]]);
    assert.deepEqual(splits(submitAndSensor(`, mode="reschedule"`)).map((s) => s.waits.map((w) => w.freesSlot)), [["reschedule"]]);
    assert.deepEqual(splits(submitAndSensor(`, deferrable=True`)).map((s) => s.waits.map((w) => w.freesSlot)), [["deferrable"]]);
  });

  test("the submit waits, or nothing waits for its job: no split", () => {
    assert.deepEqual(splits(submitAndSensor("").replace("wait_for_termination=False", "wait_for_termination=True")), []);
    assert.deepEqual(
      splits(`@task
def log_run_id(run_id):
    print(run_id)

with DAG(dag_id="d"):
    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=False)
    log_run_id(submit.output)
`),
      [],
    );
  });

  test("a task reading the result polls when its name says so or it sleeps in a loop", () => {
    const body = (name: string, loop: string) => `import time

@task
def ${name}(run_id):
${loop}

with DAG(dag_id="d"):
    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=False)
    ${name}(submit.output)
`;
    assert.deepEqual(splits(body("wait_for_run", "    pass")).map((s) => s.waits.map((w) => w.kind)), [["poll"]]);
    assert.deepEqual(splits(body("check", "    while True:\n        time.sleep(30)")).map((s) => s.waits.map((w) => w.kind)), [["poll"]]);
    assert.deepEqual(splits(body("record", "    print(run_id)")), []);
  });

  test("an xcom_pull of the submit's task id in a template counts as reading its result", () => {
    const body = `with DAG(dag_id="d"):
    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=False)
    record = EmptyOperator(task_id="record")
    wait = PythonSensor(task_id="wait", python_callable=print, templates_dict={"run": "{{ ti.xcom_pull(task_ids='submit') }}"})
    submit >> record >> wait
`;
    assert.deepEqual(splits(body).map((s) => s.waits.map((w) => w.task.taskId)), [["wait"]]);
    // Without reading it, a sensor counts only when it follows the submit directly.
    assert.deepEqual(splits(body.replace("task_ids='submit'", "task_ids='other'")), []);
  });

  test("folds into one durable task when the operator is built on ResumableJobMixin, else into one that waits", () => {
    const model = modelOf(submitAndSensor(`, deferrable=True, mode="poke"`).replace("wait_for_termination=False", "wait_for_termination=False, deferrable=True"));
    const [split] = submitAndPollSplits(model.context);
    const durable = collapseSplit(model, split, "durable");
    assert.ok(durable);
    assert.equal(durable.title, "Fold `wait` into `submit`: one durable task (`wait_for_termination=True, durable=True`)");
    assert.equal(durable.safe, false);
    assert.equal(durable.kind, "refactor.rewrite");
    const rewritten = applyEdits(model.text, durable.edits);
    assert.ok(rewritten.includes(`submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=True, deferrable=False, durable=True)`), rewritten);
    assert.ok(rewritten.includes("    submit >> done\n") && !rewritten.includes("PythonSensor(task_id"));
    assert.deepEqual(lint(new PythonDocument("file:///rewritten.py", rewritten), { select: ["AS4"] }), []);

    const emr = modelOf(`def finished(run_id):
    return True

with DAG(dag_id="d"):
    start = EmrServerlessStartJobOperator(task_id="start", application_id="app", wait_for_completion=False)
    check = PythonSensor(task_id="check", python_callable=finished, op_args=[start.output])
`);
    const [emrSplit] = submitAndPollSplits(emr.context);
    const waits = collapseSplit(emr, emrSplit, "durable");
    assert.equal(waits?.title, "Fold `check` into `start`: one task that waits (`wait_for_completion=True`)");
    assert.ok(applyEdits(emr.text, waits!.edits).endsWith(`    start = EmrServerlessStartJobOperator(task_id="start", application_id="app", wait_for_completion=True)\n`));
  });

  test("AS407 stays silent when a dependency it would need may be hidden", () => {
    const found = (extra: string) => lint(new PythonDocument("file:///dag.py", HEADER + submitAndSensor(`, mode="reschedule"`, `    notify = EmptyOperator(task_id="notify")\n    submit >> notify\n${extra}`)), { select: ["AS407"] }).map((d) => d.code);
    assert.deepEqual(found(""), ["AS407"]);
    // Tasks returned by a helper could lead anywhere.
    assert.deepEqual(found("    submit >> make_reports() >> wait\n"), []);
    // A helper may link the two tasks.
    assert.deepEqual(found("    link_after(wait, notify)\n"), []);
    // A task group on the far side: its edges from the submit are approximate.
    assert.deepEqual(
      lint(new PythonDocument("file:///dag.py", HEADER + submitAndSensor(`, mode="reschedule"`, `    with TaskGroup("group") as group:\n        one = EmptyOperator(task_id="one")\n    submit >> group\n`)), { select: ["AS407"] }),
      [],
    );
  });

  test("AS405 stays silent on a split whose waiting task frees its slot; AS407 still checks its downstream", () => {
    const reschedule = submitAndSensor(`, mode="reschedule"`, "    submit >> EmptyOperator(task_id='notify')\n");
    const found = lint(new PythonDocument("file:///dag.py", HEADER + reschedule), { select: ["AS405", "AS407"] });
    assert.deepEqual(found.map((d) => d.code), ["AS407"]);
    const poke = lint(new PythonDocument("file:///dag.py", HEADER + submitAndSensor("")), { select: ["AS405", "AS407"] });
    assert.deepEqual(poke.map((d) => d.code), ["AS405"]);
  });
});

describe("submit-and-poll examples", () => {
  const read = (name: string) => fs.readFileSync(fromRoot("examples", "dags", name), "utf8");

  test("the split as first written fires AS405, AS407 and AS406, and each rewrite leaves a DAG without them", () => {
    const text = read("submit_and_poll_before.py");
    const found = lint(new PythonDocument("file:///before.py", text));
    assert.deepEqual(found.map((d) => d.code), ["AS405", "AS407", "AS406"]);
    for (const finding of found) {
      const rewritten = applyEdits(text, finding.fix!.edits);
      const after = lint(new PythonDocument("file:///rewritten.py", rewritten)).map((d) => d.code);
      assert.ok(!after.includes(finding.code), `${finding.code}'s fix leaves ${after}`);
    }
  });

  test("the split kept with a reschedule sensor and the right dependencies is silent", () => {
    assert.deepEqual(lint(new PythonDocument("file:///after.py", read("submit_and_poll_after.py"))), []);
  });
});
