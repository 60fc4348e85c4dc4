/** Add, delete and clear from the tree, and the confirmations that name what goes. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addEntry, clearEntries, confirmClear, confirmDelete, copiedValue, deleteEntry } from "../../client/src/storeBrowser/actions";
import type { AssetNode, TaskEntryNode, TaskInstanceNode } from "../../client/src/storeBrowser/nodes";
import { DEMO, emulatorFor, labels, pathTo, signedIn } from "./helpers";
import { StoreTreeModel } from "../../client/src/storeBrowser/treeModel";

async function setUp(t: Parameters<typeof emulatorFor>[0]) {
  const emu = await emulatorFor(t);
  const { connections } = await signedIn(emu);
  const connection = await connections.connect();
  assert.equal(connection.kind, "ready");
  const client = connection.kind === "ready" ? connection.client : undefined!;
  return { emu, client, model: new StoreTreeModel(connections) };
}

describe("actions", () => {
  it("adds a task entry with the chosen expiry and an asset entry", async (t) => {
    const { emu, client, model } = await setUp(t);
    const ti = (await pathTo(model, "local", "DAGs", "spark_nightly", DEMO.spark.run, DEMO.spark.taskId)) as TaskInstanceNode;
    await addEntry(client, ti, { key: "poll/attempts", value: { n: 2 }, expiresAt: null });
    await addEntry(client, ti, { key: "started", value: "x", expiresAt: "2030-01-01T00:00:00+02:00" });
    await addEntry(client, ti, { key: "dflt", value: 1 });
    const scope = { dag_id: DEMO.spark.dagId, run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 };
    assert.equal(emu.state.getTaskEntry(scope, "poll/attempts")?.expires_at, null);
    assert.equal(emu.state.getTaskEntry(scope, "started")?.expires_at?.toISOString(), "2029-12-31T22:00:00.000Z");
    assert.ok(emu.state.getTaskEntry(scope, "dflt")?.expires_at, "default retention applies");
    await model.refresh(ti);
    assert.deepEqual(labels(await model.getChildren(ti)), ["dflt", "poll/attempts", "spark_job_id", "started"]);

    const asset = (await pathTo(model, "local", "Assets", "customers/dim")) as AssetNode;
    await addEntry(client, asset, { key: "row_count", value: 7 });
    assert.equal(emu.state.getAssetEntry(DEMO.assets.customers, "row_count")?.value, "7");
  });

  it("deletes one entry", async (t) => {
    const { emu, client, model } = await setUp(t);
    const entries = (await model.getChildren(await pathTo(model, "local", "DAGs", DEMO.llm.dagId, DEMO.llm.run, DEMO.llm.taskId))) as TaskEntryNode[];
    const slashy = entries.find((e) => e.entry.key.startsWith("input_file/"))!;
    await deleteEntry(client, slashy);
    const left = emu.state.taskEntries({ dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 }).map((r) => r.key);
    assert.deepEqual(left, ["openai_batch_id", "progress 100%", "résumé/état"]);
  });

  it("clears one map index, or every map index of the task", async (t) => {
    const { emu, client, model } = await setUp(t);
    const tis = (await model.getChildren(await pathTo(model, "local", "DAGs", DEMO.partitions.dagId, DEMO.partitions.run))) as TaskInstanceNode[];
    const index = (i: number) => tis.find((n) => n.ref.taskId === DEMO.partitions.taskId && n.ref.mapIndex === i)!;
    const remaining = () => emu.state.allTaskEntries().filter((r) => r.dag_id === DEMO.partitions.dagId).map((r) => r.map_index);
    await clearEntries(client, index(1), false);
    assert.deepEqual(remaining(), [0, 0, 2, 2, 3, 3, 4, 4]);
    await clearEntries(client, index(2), true);
    assert.deepEqual(remaining(), []);
  });

  it("confirmations name the task instance, and offer this index or all indices for a mapped task", async (t) => {
    const { model } = await setUp(t);
    const tis = (await model.getChildren(await pathTo(model, "local", "DAGs", DEMO.partitions.dagId, DEMO.partitions.run))) as TaskInstanceNode[];
    const mapped = tis.find((n) => n.ref.mapIndex === 3)!;
    const clear = confirmClear(mapped, 2);
    assert.equal(clear.message, `Clear the state store of partition_backfill / ${DEMO.partitions.run} / process_partition [3]?`);
    assert.deepEqual(clear.choices, [
      { label: "Clear map index 3", allMapIndices: false },
      { label: "Clear all map indices", allMapIndices: true },
    ]);
    assert.match(clear.detail, /removes all 2 entries of this index only/);
    const plain = (await pathTo(model, "local", "DAGs", "orders_daily", DEMO.orders.run, "load_orders")) as TaskInstanceNode;
    assert.deepEqual(confirmClear(plain, 1).choices, [{ label: "Clear", allMapIndices: false }]);
    assert.equal(confirmClear(plain, 1).message, `Clear all 1 entry of orders_daily / ${DEMO.orders.run} / load_orders?`);
    const asset = (await pathTo(model, "local", "Assets", "orders/daily")) as AssetNode;
    assert.match(confirmClear(asset).message, /^Clear all entries of asset "orders\/daily"\?$/);
    const entry = ((await model.getChildren(plain)) as TaskEntryNode[])[0];
    assert.equal(confirmDelete(entry).message, `Delete "attempts" from the state store of orders_daily / ${DEMO.orders.run} / load_orders?`);
    assert.equal(copiedValue(entry), JSON.stringify([{ try: 1, error: "Quota exceeded" }, { try: 2, error: "Backend error" }], null, 2));
  });
});
