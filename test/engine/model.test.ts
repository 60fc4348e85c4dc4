import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PythonDocument } from "../../server/src/engine";
import { SemanticModel } from "../../server/src/engine/airflow/model";
import { moduleBoundWholeLastTime, PythonModel } from "../../server/src/engine/python/model";
import { AnalysisContext } from "../../server/src/engine/context";
import { Binding } from "../../server/src/engine/python/scope";
import { parsePython } from "../../server/src/engine/syntax/parser";

function model(source: string): SemanticModel {
  const document = new PythonDocument("file:///dag.py", source);
  return new SemanticModel(document.tree, document.getText());
}

describe("imports and qualified names", () => {
  const m = model(
    [
      "import airflow.sdk as sdk",
      "from airflow.sdk import task as t, Asset",
      "from airflow.decorators import dag",
      "from airflow.models import DAG",
      "import datetime as dt",
      "import os.path",
      "x = sdk.task",
      "y = t",
      "z = dt.datetime.now",
      "w = os.path.join",
      "v = float",
      "from .operators import SparkOp",
      "from .. import shared",
      "u = SparkOp",
      "s = shared.KEY",
      "def f(local):",
      "    return local.thing",
    ].join("\n"),
  );
  const value = (name: string) => m.module.unique(name)!.value!;
  test("aliases resolve to the imported module path", () => {
    assert.equal(m.qualifiedName(value("x")), "airflow.sdk.task");
    assert.equal(m.qualifiedName(value("y")), "airflow.sdk.task");
    assert.equal(m.qualifiedName(value("z")), "datetime.datetime.now");
    assert.equal(m.qualifiedName(value("w")), "os.path.join");
  });
  test("relative imports keep their dots for the workspace index", () => {
    assert.equal(m.qualifiedName(value("u")), ".operators.SparkOp");
    assert.equal(m.qualifiedName(value("s")), "..shared.KEY");
  });
  test("builtins resolve to themselves, local variables to nothing", () => {
    assert.equal(m.qualifiedName(value("v")), "float");
    const ret = m.functions[0].node.descendantsOfType("attribute")[0];
    assert.equal(m.qualifiedName(ret), undefined);
  });
  test("importsFrom sees airflow packages", () => {
    assert.ok(m.importsFrom("airflow"));
    assert.ok(m.importsFrom("airflow.models"));
    assert.ok(!m.importsFrom("pendulum"));
  });
  test("importsFrom counts the module's own imports only, wherever they are and whatever was bound before", () => {
    const inFunction = ["import os", "def f():", "    from airflow.sdk import task", "    return task", "airflow = 1", 'NAME = "from airflow import DAG"'].join("\n");
    assert.equal(model(inFunction).importsFrom("airflow"), false);
    const late = ["import os", "from airflow_utils import x", "def f():", "    import airflow", "from datetime import datetime", "from airflow.sdk import dag"].join("\n");
    assert.equal(model(late).importsFrom("airflow"), true);
    // Asked again, and asked after every import was bound, the answer is the same.
    const asked = model(late);
    assert.equal(asked.importsFrom("airflow"), true);
    assert.equal(asked.importsFrom("airflow"), true);
    assert.equal(asked.importsFrom("airflow.sdk"), true);
    assert.equal(asked.importsFrom("airflow.models"), false);
    asked.importBindings();
    assert.equal(asked.importsFrom("airflow.sdk"), true);
    assert.equal(asked.importsFrom("pendulum"), false);
    const bound = model(inFunction);
    bound.importBindings();
    assert.equal(bound.importsFrom("airflow"), false);
  });
  test("the imports of functions and classes are bound after the module scope was bound whole", () => {
    const text = ["import os", "from datetime import datetime", "def f():", "    from airflow.sdk import task", "    return task", "class C:", "    import json", "x = os.path"].join("\n");
    const document = new PythonDocument("file:///dag.py", text);
    const upFront = new SemanticModel(document.tree, document.getText());
    upFront.allBindings();
    const moduleFirst = new SemanticModel(document.tree, document.getText());
    moduleFirst.bindingsOfScope(moduleFirst.module);
    assert.equal(moduleFirst.moduleBoundWhole, true);
    const shown = (m: SemanticModel) => m.importBindings().map((b) => `${b.name}:${b.qualifiedName}@${b.target.startIndex}`).sort();
    assert.deepEqual(shown(moduleFirst), shown(upFront));
    assert.deepEqual(shown(moduleFirst), ["datetime:datetime.datetime@31", "json:json@118", "os:os@7", "task:airflow.sdk.task@77"]);
  });
});

describe("tasks, callables, DAGs and classes", () => {
  const m = model(
    [
      "from airflow.sdk import DAG, dag, task, ResumableJobMixin, BaseOperator",
      "from airflow.providers.standard.operators.python import PythonOperator",
      "import airflow.sdk as sdk",
      "ARGS = {'retries': 2}",
      "@task",
      "def a(): ...",
      "@task(retries=3, outlets=[X])",
      "def b(): ...",
      "@task.virtualenv(requirements=[])",
      "def c(): ...",
      "@sdk.task.python",
      "def d(): ...",
      "def helper(): ...",
      "def callable_fn(**context): ...",
      "with DAG('x', default_args=ARGS) as the_dag:",
      "    PythonOperator(task_id='p', python_callable=callable_fn)",
      "@dag(default_args={'retries': 1})",
      "def pipeline(): ...",
      "class Base(ResumableJobMixin, BaseOperator):",
      "    external_id_key = 'job_id'",
      "    def execute(self, context):",
      "        return self.execute_resumable(context)",
      "class Child(Base): ...",
    ].join("\n"),
  );
  test("task decorators in every form", () => {
    const tasks = Object.fromEntries(m.functions.filter((f) => f.task).map((f) => [f.name, f.task!.variant]));
    assert.deepEqual(tasks, { a: "task", b: "task", c: "task.virtualenv", d: "task.python" });
    assert.deepEqual([...m.functions.find((f) => f.name === "b")!.task!.keywords.keys()], ["retries", "outlets"]);
  });
  test("python_callable functions know their operator", () => {
    const fn = m.functions.find((f) => f.name === "callable_fn")!;
    assert.equal(fn.callableOf.length, 1);
    assert.equal(m.functions.find((f) => f.name === "helper")!.callableOf.length, 0);
    assert.equal(fn.parameters[0].kind, "var-keyword");
  });
  test("DAGs from `with DAG(...)` and `@dag(...)`, default_args followed through a name", () => {
    assert.equal(m.dags.length, 2);
    assert.equal(m.dags[0].node.type, "with_item");
    assert.equal(m.dags[0].defaultArgs?.type, "dictionary");
    assert.equal(m.dags[1].defaultArgs?.text, "{'retries': 1}");
  });
  test("classes, bases, attributes, methods and transitive subclasses", () => {
    const base = m.classNamed("Base")!;
    assert.deepEqual(base.baseNames, ["airflow.sdk.ResumableJobMixin", "airflow.sdk.BaseOperator"]);
    assert.equal(base.attributes.get("external_id_key")!.value!.text, "'job_id'");
    assert.ok(base.methods.has("execute"));
    assert.deepEqual(
      m.subclassesOf((name) => name.endsWith(".ResumableJobMixin")).map((c) => c.name),
      ["Base", "Child"],
    );
  });
});

describe("store references", () => {
  const m = model(
    [
      "from airflow.sdk import task, Asset, get_current_context",
      "ORDERS = Asset(name='orders', uri='s3://o')",
      "@task(outlets=[ORDERS])",
      "def t(task_state_store=None, asset_state_store=None):",
      "    task_state_store.set('a', 1)",
      "    asset_state_store[ORDERS].set('b', 2)",
      "    orders = asset_state_store[ORDERS]",
      "    orders.get('c')",
      "    asset_state_store.delete('d')",
      "def callable_fn(**context):",
      "    context['task_state_store'].clear()",
      "    tss = context.get('task_state_store')",
      "    tss.get('e')",
      "    get_current_context()['task_state_store'].set('f', 3)",
      "    context['asset_state_store'][ORDERS].set('i', 6)",
      "    cache = {}",
      "    cache.get('task_state_store')",
      "@task(outlets=[ORDERS])",
      "def rebinding(asset_state_store=None):",
      "    asset_state_store = asset_state_store[ORDERS]",
      "    asset_state_store.set('j', 7)",
      "def not_a_task(store):",
      "    store.set('g', 4)",
      "    task_state_store.set('h', 5)",
    ].join("\n"),
  );
  test("every way of reaching a store, and nothing else", () => {
    const calls = m.storeCalls.map((c) => `${c.method}:${c.store.kind}:${c.store.indexed ? "indexed" : "plain"}:${c.key?.text ?? ""}`);
    assert.deepEqual(calls, [
      "set:task:plain:'a'",
      "set:asset:indexed:'b'",
      "get:asset:indexed:'c'",
      "delete:asset:plain:'d'",
      "clear:task:plain:",
      "get:task:plain:'e'",
      "set:task:plain:'f'",
      "set:asset:indexed:'i'",
      "set:asset:indexed:'j'",
    ]);
  });
  test("set calls expose their value and the function they are in", () => {
    const set = m.storeCalls.find((c) => c.method === "set" && c.store.kind === "asset")!;
    assert.equal(set.value?.text, "2");
    assert.equal(set.function?.name, "t");
    assert.equal(set.store.asset?.text, "ORDERS");
  });
  test("the asset store's async forms are its calls under their synchronous names; the task store has none", () => {
    const source = [
      "from airflow.sdk import Asset, task",
      "ORDERS = Asset('orders')",
      "@task(outlets=[ORDERS])",
      "async def t(asset_state_store=None, task_state_store=None):",
      "    store = asset_state_store[ORDERS]",
      "    await store.aset('a', 1)",
      "    await store.aget('b')",
      "    await store.adelete('c')",
      "    await store.aclear()",
      "    await task_state_store.aset('d', 2)",
    ].join("\n");
    const calls = model(source).storeCalls.map((c) => `${c.method}:${c.async ? "async" : "sync"}:${c.store.kind}:${c.key?.text ?? ""}:${c.value?.text ?? ""}`);
    assert.deepEqual(calls, ["set:async:asset:'a':1", "get:async:asset:'b':", "delete:async:asset:'c':", "clear:async:asset::"]);
  });
});

describe("bindings", () => {
  const m = model(["import airflow", "DAYS = 7", "TWICE = 1", "TWICE = 2", "ALIAS = DAYS", "def f():", "    DAYS = 'local'", "    return DAYS"].join("\n"));
  test("resolveValue follows single assignments, not reassigned names", () => {
    const alias = m.module.unique("ALIAS")!.value!;
    assert.equal(m.resolveValue(alias).text, "7");
    assert.equal(m.module.unique("TWICE"), undefined);
  });
  test("function scopes shadow module names", () => {
    const returned = m.functions[0].node.descendantsOfType("return_statement")[0].namedChildren[0];
    assert.equal(m.resolveValue(returned).text, "'local'");
  });
});

describe("names bound on demand", () => {
  /** Every identifier's bindings as its scope sees them, and each class's base names and attributes. */
  const answers = (model: PythonModel): string[] => {
    const shown = (bindings: readonly Binding[] | undefined) => (bindings ?? []).map((b) => `${b.kind}@${b.target.startIndex}${b.value ? `=${b.value.startIndex}` : ""}${b.qualifiedName ? `:${b.qualifiedName}` : ""}`).join(",");
    const out = model.root.descendantsOfType("identifier").map((id) => `${id.text}@${id.startIndex} -> ${shown(model.scopeOf(id).lookup(id.text))}`);
    for (const cls of model.classes) out.push(`${cls.name} bases ${cls.baseNames.join(",")} attributes ${[...cls.attributes.keys()].join(",")}`);
    out.push(`imports airflow: ${model.importsFrom("airflow")}`);
    return out;
  };

  test("answer as a model that binds every statement up front, on every fixture and example", () => {
    const fs = require("node:fs") as typeof import("node:fs");
    const path = require("node:path") as typeof import("node:path");
    const folders = ["test/rules/fixtures", "examples/dags", "examples/legacy-project/dags"].map((f) => path.join(__dirname, "..", "..", "..", f));
    let files = 0;
    for (const folder of folders) {
      for (const name of fs.readdirSync(folder).filter((n) => n.endsWith(".py"))) {
        const text = fs.readFileSync(path.join(folder, name), "utf8");
        const tree = parsePython(text);
        const upFront = new PythonModel(tree, text);
        upFront.allBindings();
        assert.deepEqual(answers(new PythonModel(tree, text)), answers(upFront), name);
        // Told that the last lint bound the module scope whole, as a lint after an edit is.
        const hinted = new AnalysisContext({ text }, tree);
        hinted.provide(moduleBoundWholeLastTime, true);
        const bindsModuleAtOnce = new PythonModel(tree, text, hinted);
        assert.deepEqual(answers(bindsModuleAtOnce), answers(upFront), `${name}: the module bound at its first lookup`);
        assert.equal(bindsModuleAtOnce.moduleBoundWhole, true, name);
        // One name at a time, each in a model that has bound nothing else yet.
        const byName = new Map<string, number[]>();
        for (const id of upFront.root.descendantsOfType("identifier")) byName.set(id.text, [...(byName.get(id.text) ?? []), id.startIndex]);
        for (const [identifier, starts] of byName) {
          const alone = new PythonModel(tree, text);
          for (const start of starts) {
            const at = alone.root.descendantForIndex(start, start + identifier.length);
            const expected = upFront.scopeOf(at).lookup(identifier)?.map((b) => `${b.kind}@${b.target.startIndex}`);
            assert.deepEqual(alone.scopeOf(at).lookup(identifier)?.map((b) => `${b.kind}@${b.target.startIndex}`), expected, `${name}: ${identifier}@${start}`);
          }
        }
        files++;
      }
    }
    assert.ok(files > 60, `${files} files`);
  });

  test("an attribute's object is bound by an import only: on the import's line or a line it continues", () => {
    const text = [
      "def f():",
      "    import pkg.sub",
      "    return pkg.sub.VALUE",
      "def g():",
      "    import os, \\",
      "        pkg.sub",
      "    return pkg.sub.VALUE",
      "def h(pkg):",
      "    pkg.sub = 1",
      "    return pkg.sub",
    ].join("\n");
    const tree = parsePython(text);
    const upFront = new PythonModel(tree, text);
    upFront.allBindings();
    assert.deepEqual(answers(new PythonModel(tree, text)), answers(upFront));
    const onDemand = new PythonModel(tree, text);
    assert.deepEqual(onDemand.functions.map((fn) => fn.scope.lookup("pkg")?.map((b) => b.kind)), [["import"], ["import"], ["parameter"]]);
  });

  test("a name bound by a statement found for another name keeps the order of the text", () => {
    const text = "n = 0\nm, n = 1, 2\nfor n in []:\n    pass\n";
    const model = new PythonModel(parsePython(text), text);
    model.module.lookup("m");
    assert.deepEqual(model.module.lookup("n")!.map((b) => [b.kind, b.target.startPosition.row]), [["assign", 0], ["assign", 1], ["other", 2]]);
  });
});
