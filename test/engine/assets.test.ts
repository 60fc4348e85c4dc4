import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PythonDocument } from "../../server/src/engine";
import { assetReference, AssetReference, assetTextAt, compareAssets, storeHolds, storeSize, taskDeclarations } from "../../server/src/engine/airflow/assets";
import { SemanticModel } from "../../server/src/engine/airflow/model";

function model(lines: string[]): SemanticModel {
  const document = new PythonDocument("file:///dag.py", lines.join("\n") + "\n");
  return new SemanticModel(document.tree, document.getText());
}

const HEADER = [
  "from airflow.providers.standard.operators.python import PythonOperator",
  "from airflow.sdk import DAG, Asset, AssetAlias, task",
  "from include.assets import SHARED",
  'ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")',
  'EVENTS = Asset("s3://lake/events")',
];

/** The declarations of the function named `name`. */
function declarationsOf(m: SemanticModel, name: string) {
  return taskDeclarations(m, m.functions.find((f) => f.name === name)!);
}

/** The asset written as the value of the module-level assignment to `name`, as an expression. */
function moduleAsset(m: SemanticModel, name: string): AssetReference {
  const reference = assetReference(m, m.module.unique(name)!.target);
  assert.ok(reference && reference !== "alias");
  return reference;
}

/** Keys of a declaration's inlets or outlets, `?` for an asset whose name is not literal. */
function keys(assets: AssetReference[]): string[] {
  return assets.map((a) => (a.key ? `${a.key.by}:${a.key.value}` : "?"));
}

describe("asset references", () => {
  const m = model([
    ...HEADER,
    'NAMED_BY_CONSTANT = Asset(name=TABLE, uri="s3://x")',
    'TABLE = "customers"',
    'COMPUTED = Asset(name=f"events/{2026}")',
    'BY_NAME = Asset.ref(name="orders/daily")',
    'BY_URI = Asset.ref(uri="s3://lake/events")',
    'ALIAS = AssetAlias("late")',
    "SAME_AS_ORDERS = ORDERS",
    'ESCAPED = Asset(name="orders\\x2fdaily")',
    "NOT_AN_ASSET = make_asset()",
  ]);
  test("keys an asset by its literal name, or by its URI when it has no name", () => {
    assert.deepEqual(moduleAsset(m, "ORDERS").key, { by: "name", value: "orders/daily" });
    assert.deepEqual(moduleAsset(m, "EVENTS").key, { by: "name", value: "s3://lake/events" });
    assert.deepEqual(moduleAsset(m, "NAMED_BY_CONSTANT").key, { by: "name", value: "customers" });
  });
  test("Asset.ref keys by name or by URI, in separate tables", () => {
    assert.deepEqual(moduleAsset(m, "BY_NAME").key, { by: "name", value: "orders/daily" });
    assert.deepEqual(moduleAsset(m, "BY_URI").key, { by: "uri", value: "s3://lake/events" });
    assert.equal(compareAssets(moduleAsset(m, "BY_NAME"), moduleAsset(m, "ORDERS")), "same");
    assert.equal(compareAssets(moduleAsset(m, "BY_URI"), moduleAsset(m, "EVENTS")), "different");
  });
  test("computed or escaped names leave only the binding to identify the asset", () => {
    assert.equal(moduleAsset(m, "COMPUTED").key, undefined);
    assert.equal(moduleAsset(m, "ESCAPED").key, undefined);
    assert.equal(compareAssets(moduleAsset(m, "COMPUTED"), moduleAsset(m, "ORDERS")), "unknown");
    assert.equal(compareAssets(moduleAsset(m, "COMPUTED"), moduleAsset(m, "COMPUTED")), "same");
  });
  test("follows names to the asset they are bound to", () => {
    assert.equal(compareAssets(moduleAsset(m, "SAME_AS_ORDERS"), moduleAsset(m, "ORDERS")), "same");
  });
  test("aliases and other values are not assets", () => {
    assert.equal(assetReference(m, m.module.unique("ALIAS")!.target), "alias");
    assert.equal(assetReference(m, m.module.unique("NOT_AN_ASSET")!.target), undefined);
    assert.equal(assetReference(m, m.module.unique("SHARED")!.target), undefined);
  });
});

describe("task declarations", () => {
  const m = model([
    ...HEADER,
    "OUTS = [ORDERS, EVENTS]",
    "@task",
    "def bare(): pass",
    "@task(inlets=(ORDERS,), outlets=OUTS)",
    "def through_name(): pass",
    "@task(inlets=[ORDERS], outlets=[ORDERS, AssetAlias('late')])",
    "def same_twice(): pass",
    "@task(outlets=[SHARED])",
    "def imported(): pass",
    "@task(inlets=[AssetAlias('late')])",
    "def alias_inlet(): pass",
    "@task(outlets=ORDERS)",
    "def single(): pass",
    "@task(**common)",
    "def splat(): pass",
    "@task(outlets=[ORDERS])",
    "def overridden(): pass",
    "def callable_(): pass",
    "def mapped_callable(region): pass",
    "def helper(): pass",
    "with DAG(dag_id='d'):",
    "    overridden.override(outlets=[EVENTS])()",
    "    PythonOperator(task_id='a', python_callable=callable_, outlets=[ORDERS])",
    "    PythonOperator(task_id='b', python_callable=callable_, inlets=[EVENTS])",
    "    PythonOperator.partial(task_id='c', python_callable=mapped_callable, outlets=[EVENTS]).expand(op_kwargs=[{'region': 'eu'}])",
  ]);
  test("a bare @task declares nothing", () => {
    const [declaration] = declarationsOf(m, "bare")!;
    assert.equal(declaration.node.text, "task");
    assert.deepEqual(storeSize(declaration), { min: 0, max: 0 });
  });
  test("lists, tuples, names bound to lists and single assets are read", () => {
    const [declaration] = declarationsOf(m, "through_name")!;
    assert.deepEqual(keys(declaration.inlets), ["name:orders/daily"]);
    assert.deepEqual(keys(declaration.outlets), ["name:orders/daily", "name:s3://lake/events"]);
    assert.deepEqual(keys(declarationsOf(m, "single")![0].outlets), ["name:orders/daily"]);
  });
  test("an asset that is inlet and outlet counts once; alias outlets are skipped", () => {
    const [declaration] = declarationsOf(m, "same_twice")!;
    assert.deepEqual(storeSize(declaration), { min: 1, max: 1 });
    assert.equal(storeHolds(declaration, moduleAsset(m, "ORDERS")), "same");
    assert.equal(storeHolds(declaration, moduleAsset(m, "EVENTS")), "different");
  });
  test("imported assets, alias inlets, splats and overrides make the lineage unknown", () => {
    assert.equal(declarationsOf(m, "imported"), undefined);
    assert.equal(declarationsOf(m, "alias_inlet"), undefined);
    assert.equal(declarationsOf(m, "splat"), undefined);
    assert.equal(declarationsOf(m, "overridden"), undefined);
  });
  test("a python_callable has one declaration per operator call, partial calls included", () => {
    const declarations = declarationsOf(m, "callable_")!;
    assert.deepEqual(
      declarations.map((d) => [keys(d.inlets), keys(d.outlets)]),
      [
        [[], ["name:orders/daily"]],
        [["name:s3://lake/events"], []],
      ],
    );
    assert.deepEqual(keys(declarationsOf(m, "mapped_callable")![0].outlets), ["name:s3://lake/events"]);
  });
  test("a function that is not a task has no declarations", () => {
    assert.equal(declarationsOf(m, "helper"), undefined);
  });
});

describe("lineage changed elsewhere in the file", () => {
  for (const [what, line] of [
    ["default_args with outlets", "with DAG(dag_id='d', default_args={'outlets': [EVENTS]}): load()"],
    ["outlets set on a built task", "load().operator.outlets = [EVENTS]"],
    ["add_outlets", "op.add_outlets([EVENTS])"],
  ]) {
    test(`${what} makes every task's lineage unknown`, () => {
      const m = model([...HEADER, "@task(outlets=[ORDERS])", "def load(): pass", line]);
      assert.equal(declarationsOf(m, "load"), undefined);
    });
  }
  test("default_args without lineage keys change nothing", () => {
    const m = model([...HEADER, "@task(outlets=[ORDERS])", "def load(): pass", "with DAG(dag_id='d', default_args={'retries': 2}): load()"]);
    assert.equal(declarationsOf(m, "load")!.length, 1);
  });
});

describe("store size with assets whose names are computed", () => {
  const m = model([...HEADER, 'A = Asset(name=f"a{1}")', 'B = Asset(name=f"b{1}")', "@task(outlets=[A, B, ORDERS])", "def three(): pass", "@task(outlets=[A, B])", "def two(): pass"]);
  test("counts a range: computed names may coincide with others", () => {
    assert.deepEqual(storeSize(declarationsOf(m, "three")![0]), { min: 1, max: 3 });
    assert.deepEqual(storeSize(declarationsOf(m, "two")![0]), { min: 1, max: 2 });
  });
});

describe("writing an asset somewhere else", () => {
  const m = model([
    ...HEADER,
    "@task(outlets=[ORDERS])",
    "def load(asset_state_store=None):",
    '    LOCAL = Asset(name="local")',
    "    asset_state_store[LOCAL].get('x')",
    "    asset_state_store[ORDERS].get('x')",
    "LATE = Asset(name='late')",
  ]);
  const fn = m.functions[0];
  const decorator = fn.task!.node;
  const subscripts = fn.node.descendantsOfType("subscript");
  const local = assetReference(m, subscripts[0].childForFieldName("subscript")!) as AssetReference;
  const orders = assetReference(m, subscripts[1].childForFieldName("subscript")!) as AssetReference;
  test("a module-level name bound above can be written at the decorator", () => {
    assert.equal(assetTextAt(m, orders, decorator), "ORDERS");
  });
  test("a name local to the task cannot", () => {
    assert.equal(assetTextAt(m, local, decorator), undefined);
  });
  test("a name bound below the decorator cannot", () => {
    const late = assetReference(m, m.module.unique("LATE")!.target) as AssetReference;
    assert.equal(assetTextAt(m, late, decorator), undefined);
  });
});
