/** The store browser's tree model driven directly against the emulator, as the view would drive it. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { COMMANDS } from "../../client/src/storeBrowser/commandIds";
import { Connections } from "../../client/src/storeBrowser/connections";
import type { LoadMoreNode, MessageNode, StoreNode, TaskEntryNode, TaskInstanceNode } from "../../client/src/storeBrowser/nodes";
import { treeItemOf } from "../../client/src/storeBrowser/presentation";
import { StoreTreeModel } from "../../client/src/storeBrowser/treeModel";
import { startEmulator } from "../emulator";
import { plain } from "../rest/helpers";
import { DEMO, MemorySecrets, emulatorFor, labels, modelFor, passwordEnv, pathTo, settingsWith, signedIn } from "./helpers";

const message = (nodes: StoreNode[]): MessageNode => {
  const found = nodes.find((n): n is MessageNode => n.kind === "message");
  assert.ok(found, `expected a message among ${nodes.map((n) => n.kind).join(", ")}`);
  return found;
};

describe("tree model: browsing", () => {
  it("shows environment → DAGs → recent runs → task instances → entries", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const roots = await model.getChildren();
    assert.deepEqual(labels(roots), ["local"]);
    assert.equal(roots[0].kind === "environment" && roots[0].version?.version, "3.3.0");
    assert.deepEqual(labels(await model.getChildren(roots[0])), ["DAGs", "Assets"]);
    const dags = await pathTo(model, "local", "DAGs");
    assert.deepEqual(labels(await model.getChildren(dags)), [
      "clickstream_hourly",
      "legacy_variables_dag",
      "llm_batch_scoring",
      "orders_daily",
      "partition_backfill",
      "spark_nightly",
    ]);
    const runs = await model.getChildren(await pathTo(model, "local", "DAGs", "orders_daily"));
    assert.deepEqual(labels(runs), [DEMO.orders.runs[3], DEMO.orders.runs[2], DEMO.orders.runs[1], DEMO.orders.runs[0]], "most recent run first");
    const tis = await model.getChildren(await pathTo(model, "local", "DAGs", "orders_daily", DEMO.orders.run));
    assert.deepEqual(labels(tis), ["extract_orders", "transform_orders", "load_orders"]);
    const load = tis[2] as TaskInstanceNode;
    assert.equal(load.ti.try_number, 3);
    assert.equal(load.ti.state, "failed");
    const entries = await model.getChildren(load);
    assert.deepEqual(labels(entries), ["attempts", "bigquery_job_id", "stale_marker"], "sorted by key");
    const job = entries[1] as TaskEntryNode;
    assert.equal(job.entry.value, "job_7f3a9c1e_orders_20260503");
    assert.deepEqual(job.ref, { dagId: "orders_daily", runId: DEMO.orders.run, taskId: "load_orders", mapIndex: -1 });
  });

  it("lists each map index of a mapped task with its own entries", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const tis = await model.getChildren(await pathTo(model, "local", "DAGs", DEMO.partitions.dagId, DEMO.partitions.run));
    assert.deepEqual(labels(tis).filter((l) => l.startsWith("process_partition")), DEMO.partitions.mapIndices.map((i) => `process_partition [${i}]`));
    const third = tis.find((n) => n.kind === "taskInstance" && n.ref.mapIndex === 3) as TaskInstanceNode;
    assert.equal(third.ti.state, "up_for_retry");
    const entries = (await model.getChildren(third)) as TaskEntryNode[];
    assert.deepEqual(entries.map((e) => [e.entry.key, plain(e.entry.value)]), [
      ["cursor", { partition: "p3", offset: 4000 }],
      ["rows_done", 1000],
    ]);
    const fifth = tis.find((n) => n.kind === "taskInstance" && n.ref.mapIndex === 5) as TaskInstanceNode;
    const empty = message(await model.getChildren(fifth));
    assert.equal(empty.text, "No state store entries");
    assert.equal(empty.action?.command, COMMANDS.addEntry);
  });

  it("shows assets with their entries and who wrote them; keys with slashes and non-ASCII characters work", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const assets = await model.getChildren(await pathTo(model, "local", "Assets"));
    assert.deepEqual(labels(assets), ["orders/daily", "customers/dim", "events/clickstream", "models/churn"]);
    const orders = (await model.getChildren(assets[0])) as StoreNode[];
    assert.deepEqual(labels(orders), ["row_count", "schema_version", "watermark"]);
    const writer = orders[2].kind === "assetEntry" ? orders[2].entry.last_updated_by : undefined;
    assert.equal(writer?.kind, "task");
    assert.equal(writer?.task_id, "load_orders");
    const llm = await model.getChildren(await pathTo(model, "local", "DAGs", DEMO.llm.dagId, DEMO.llm.run, DEMO.llm.taskId));
    assert.ok(labels(llm).includes("input_file/s3://ml-bucket/batches/2026-05-03.jsonl"));
    assert.ok(labels(llm).includes("résumé/état"));
  });

  it("filters DAGs by id and offers to clear a filter that matches nothing", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    let changes = 0;
    model.onDidChange(() => changes++);
    model.setDagFilter("order");
    assert.equal(changes, 1);
    const dags = await pathTo(model, "local", "DAGs");
    assert.equal(dags.kind === "dags" && dags.filter, "order");
    assert.deepEqual(labels(await model.getChildren(dags)), ["orders_daily"]);
    assert.ok(emu.requests.some((r) => r.path === "/api/v2/dags" && r.query.get("dag_id_pattern") === "order"));
    model.setDagFilter("no_such_dag");
    const none = message(await model.getChildren(await pathTo(model, "local", "DAGs")));
    assert.equal(none.text, 'No DAG id matches "no_such_dag"');
    assert.equal(none.action?.command, COMMANDS.clearDagFilter);
    const assets = await pathTo(model, "local", "Assets");
    await model.getChildren(assets);
    emu.clearRequests();
    model.setDagFilter(undefined);
    assert.equal((await model.getChildren(await pathTo(model, "local", "DAGs"))).length, 6);
    await model.getChildren(assets);
    assert.deepEqual(emu.requests.map((r) => r.path), ["/api/v2/dags"], "the assets are not read again");
  });
});

describe("tree model: paging", () => {
  it("reads 10,000 entries a page at a time, with Load more… at the end", async (t) => {
    const emu = await emulatorFor(t);
    for (let i = 0; i < 10_000; i++) {
      emu.state.setTaskEntry({ dag_id: "spark_nightly", run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 }, `key_${String(i).padStart(5, "0")}`, i);
    }
    const model = await modelFor(emu);
    const ti = await pathTo(model, "local", "DAGs", "spark_nightly", DEMO.spark.run, DEMO.spark.taskId);
    emu.clearRequests();
    const first = await model.getChildren(ti);
    assert.equal(first.length, 101);
    assert.equal(emu.requests.length, 1, "the first page is one request");
    const more = first[100] as LoadMoreNode;
    assert.equal(more.kind, "loadMore");
    assert.deepEqual([more.shown, more.total], [100, 10_001]);
    let changed: StoreNode | undefined;
    model.onDidChange((n) => (changed = n));
    await model.loadMore(more);
    assert.equal(changed?.id, ti.id);
    const second = await model.getChildren(ti);
    assert.equal(second.length, 201);
    assert.equal((second[100] as TaskEntryNode).entry.key, "key_00100");
    assert.equal(emu.requests.filter((r) => r.path.endsWith("/state-store")).length, 2);
    assert.equal(emu.requests.at(-1)?.query.get("offset"), "100");
  });

  it("caps each page at what the server returns (maximum_page_limit) and still reaches the end", async (t) => {
    const emu = await emulatorFor(t, { maximumPageLimit: 2 });
    const model = await modelFor(emu);
    const dags = await pathTo(model, "local", "DAGs");
    let children = await model.getChildren(dags);
    assert.deepEqual(labels(children), ["clickstream_hourly", "legacy_variables_dag", "Load more…"]);
    while (children.at(-1)?.kind === "loadMore") {
      await model.loadMore(children.at(-1) as LoadMoreNode);
      children = await model.getChildren(dags);
    }
    assert.equal(children.length, 6);
    assert.equal(children.at(-1)?.kind, "dag");
  });

  it("a refresh re-reads as many pages as were shown, and the lists under the node", async (t) => {
    const emu = await emulatorFor(t, { maximumPageLimit: 2 });
    const model = await modelFor(emu);
    const dags = await pathTo(model, "local", "DAGs");
    await model.loadMore((await model.getChildren(dags)).at(-1) as LoadMoreNode);
    assert.equal((await model.getChildren(dags)).length, 5);
    emu.state.addDag({ dag_id: "aaa_new_dag" });
    await model.refresh(dags);
    assert.deepEqual(labels(await model.getChildren(dags)).slice(0, 5), ["aaa_new_dag", "clickstream_hourly", "legacy_variables_dag", "llm_batch_scoring", "Load more…"]);
  });

  it("removes a deleted entry and replaces an edited one without re-reading the list", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const ti = await pathTo(model, "local", "DAGs", "orders_daily", DEMO.orders.run, "load_orders");
    const entries = (await model.getChildren(ti)) as TaskEntryNode[];
    emu.clearRequests();
    model.removeEntry(entries[0]);
    model.replaceTaskEntry(entries[1], { ...entries[1].entry, value: "job_2" });
    const after = (await model.getChildren(ti)) as TaskEntryNode[];
    assert.deepEqual(after.map((e) => [e.entry.key, e.entry.value]), [
      ["bigquery_job_id", "job_2"],
      ["stale_marker", true],
    ]);
    assert.equal(emu.requests.length, 0);
    assert.equal(model.findEntry({ store: "task", env: "local", dagId: "orders_daily", runId: DEMO.orders.run, taskId: "load_orders", mapIndex: -1, key: "bigquery_job_id" })?.entry.value, "job_2");
  });
});

describe("tree model: empty and error states", () => {
  it("an untrusted workspace sends nothing and offers to manage trust", async (t) => {
    const emu = await emulatorFor(t);
    const { connections } = await signedIn(emu, { settings: { trusted: false } });
    const model = new StoreTreeModel(connections);
    const roots = await model.getChildren();
    const item = message(roots);
    assert.match(item.text, /untrusted workspace/);
    assert.equal(item.action?.command, COMMANDS.manageTrust);
    assert.equal(emu.requests.length, 0);
  });

  it("no environment: offers to add one, and names the settings that were skipped", async () => {
    const connections = new Connections(new MemorySecrets());
    connections.update(settingsWith([], { problems: ['Environment "x": baseUrl is missing (e.g. http://localhost:8080).'] }));
    const item = message(await new StoreTreeModel(connections).getChildren());
    assert.match(item.text, /^No usable Airflow environment: Environment "x": baseUrl is missing/);
    assert.equal(item.action?.command, COMMANDS.addEnvironment);
  });

  it("no environment and nothing skipped: no rows, so the view shows its welcome content", async () => {
    const connections = new Connections(new MemorySecrets());
    connections.update(settingsWith([]));
    assert.deepEqual(await new StoreTreeModel(connections).getChildren(), []);
  });

  it("a refresh that cannot reach Airflow keeps the entries shown, marked stale under the reason, and marks the environment offline", async (t) => {
    const emu = await emulatorFor(t);
    const { connections, env } = await signedIn(emu);
    const model = new StoreTreeModel(connections);
    const heard: string[] = [];
    connections.health.onDidChange((name) => heard.push(name));
    const ti = await pathTo(model, "local", "DAGs", "spark_nightly", DEMO.spark.run, DEMO.spark.taskId);
    assert.deepEqual(labels(await model.getChildren(ti)), ["spark_job_id"]);
    // Twice: the client sends a read once more when its connection was reset.
    emu.setFault({ type: "reset" }, { path: /state-store$/, times: 2 });
    await model.refresh(ti);
    const [reason, kept, ...rest] = await model.getChildren(ti);
    assert.equal(rest.length, 0);
    assert.equal(reason.kind, "message");
    assert.match(reason.kind === "message" ? reason.text : "", /^Not refreshed: The connection to Airflow at .* failed/);
    assert.equal(reason.kind === "message" && reason.action?.command, COMMANDS.refresh);
    assert.equal(kept.kind, "taskEntry");
    assert.match(kept.stale ?? "", /The connection to Airflow at .* failed/);
    assert.match(connections.health.of(env).offline ?? "", /The connection to Airflow at .* failed/);
    assert.deepEqual(heard, ["local"]);

    await model.refresh(ti);
    const fresh = await model.getChildren(ti);
    assert.deepEqual(labels(fresh), ["spark_job_id"]);
    assert.equal(fresh[0].stale, undefined);
    assert.equal(connections.health.of(env).offline, undefined, "back online once a request is answered");
  });

  it("a new entry with the default 30-day retention reads \"expires in 30 days\"", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const ti = (await pathTo(model, "local", "DAGs", "spark_nightly", DEMO.spark.run, DEMO.spark.taskId)) as TaskInstanceNode;
    const connection = await (await signedIn(emu)).connections.connect();
    assert.equal(connection.kind, "ready");
    if (connection.kind === "ready") await connection.client.putTaskStateEntry(ti.ref, "fresh", 1, { expiresAt: "default" });
    await model.refresh(ti);
    const fresh = (await model.getChildren(ti)).find((n): n is TaskEntryNode => n.kind === "taskEntry" && n.entry.key === "fresh")!;
    assert.match(treeItemOf(fresh, new Date()).description ?? "", /^1 · expires in 30 days$/);
  });

  it("a missing password asks to sign in without contacting the server", async (t) => {
    const emu = await emulatorFor(t);
    const connections = new Connections(new MemorySecrets());
    connections.update(settingsWith([passwordEnv(emu)]));
    const item = message(await new StoreTreeModel(connections).getChildren());
    assert.equal(item.text, "Sign in to local as admin");
    assert.deepEqual([item.action?.command, item.action?.args], [COMMANDS.signIn, ["local"]]);
    assert.equal(emu.requests.length, 0);
  });

  it("a wrong password shows the reason with Sign in…", async (t) => {
    const emu = await emulatorFor(t);
    const { connections } = await signedIn(emu, { password: "wrong" });
    const model = new StoreTreeModel(connections);
    const item = message(await model.getChildren(await pathTo(model, "local", "DAGs")));
    assert.match(item.text, /Sign in to local again/);
    assert.match(item.detail ?? "", /Invalid credentials/);
    assert.equal(item.action?.command, COMMANDS.signIn);
  });

  it("a server that cannot be reached says so with Retry, and recovers on refresh", async (t) => {
    const emu = await emulatorFor(t);
    const { connections } = await signedIn(emu);
    const model = new StoreTreeModel(connections);
    // Twice: the request and the one retry of an idempotent request on a broken connection.
    emu.setFault({ type: "reset" }, { path: "/api/v2/dags", times: 2 });
    const dags = await pathTo(model, "local", "DAGs");
    const item = message(await model.getChildren(dags));
    assert.match(item.text, /The connection to Airflow at .* failed/);
    assert.equal(item.action?.command, COMMANDS.refresh);
    assert.deepEqual(item.action?.args, [dags]);
    await model.refresh(dags);
    assert.equal((await model.getChildren(dags)).length, 6);
  });

  it("a refused connection is reported on the environment, not as a crash", async () => {
    const emu = await startEmulator();
    const url = emu.url;
    await emu.close();
    const { connections } = await signedIn({ url } as never);
    const model = new StoreTreeModel(connections);
    const [env] = await model.getChildren();
    assert.equal(env.kind, "environment");
    const item = message(await model.getChildren(env));
    assert.match(item.text, /Cannot reach Airflow at .* \(ECONNREFUSED\)/);
    const offline = treeItemOf(env, new Date(), connections.health.of(connections.active));
    assert.equal(offline.description, "offline", "the environment node says so too");
  });

  it("a 500 on one list shows Airflow's answer there; the rest of the tree still works", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    emu.setFault({ type: "status", status: 500, detail: "database is locked" }, { path: /state-store$/ });
    const item = message(await model.getChildren(await pathTo(model, "local", "DAGs", "spark_nightly", DEMO.spark.run, DEMO.spark.taskId)));
    assert.equal(item.text, "Airflow answered 500 Internal Server Error: database is locked");
    assert.equal(item.severity, "error");
    assert.equal((await model.getChildren(await pathTo(model, "local", "Assets"))).length, 4);
  });

  it("a 500 from the sign-in says that the sign-in failed, with Retry", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    emu.setFault({ type: "status", status: 500 }, { path: "/auth/token", times: 1 });
    const dags = await pathTo(model, "local", "DAGs");
    const item = message(await model.getChildren(dags));
    assert.equal(item.text, `Sign-in to ${emu.url} as "admin" failed: Airflow answered 500 Internal Server Error (Internal Server Error). The credentials were not checked.`);
    assert.equal(item.action?.command, COMMANDS.refresh);
  });

  it("Airflow below 3.3 is flagged on the environment", async (t) => {
    const emu = await emulatorFor(t, { version: "3.2.1" });
    const model = await modelFor(emu);
    const children = await model.getChildren((await model.getChildren())[0]);
    assert.equal(message(children).text, "Airflow 3.2.1 has no state store API: it needs Airflow 3.3 or later");
    assert.deepEqual(labels(children).slice(1), ["DAGs", "Assets"]);
  });

  it("a read-only user browses; the 403 of a write is the client's to report", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu, {}, "viewer");
    assert.equal((await model.getChildren(await pathTo(model, "local", "DAGs"))).length, 6);
  });
});

describe("tree model: reveal and auto-refresh", () => {
  it("locates a task instance by paging through DAGs, runs and task instances", async (t) => {
    const emu = await emulatorFor(t, { maximumPageLimit: 2 });
    const model = await modelFor(emu);
    const located = await model.locateTaskInstance({ dagId: DEMO.partitions.dagId, runId: DEMO.partitions.run, taskId: DEMO.partitions.taskId, mapIndex: 4 });
    assert.ok("node" in located, "reason" in located ? located.reason : "");
    const chain: string[] = [];
    for (let n: StoreNode | undefined = located.node; n; n = model.getParent(n)) chain.unshift(n.kind);
    assert.deepEqual(chain, ["environment", "dags", "dag", "run", "taskInstance"]);
    assert.equal(located.node.ti.state, "running");
    // Every ancestor lists the node it leads to, as TreeView.reveal requires.
    for (let n: StoreNode = located.node; n.parent; n = n.parent) assert.ok((await model.getChildren(n.parent)).some((c) => c.id === n.id));
    const missing = await model.locateTaskInstance({ dagId: "no_such_dag", runId: "r", taskId: "t", mapIndex: -1 });
    assert.deepEqual(missing, { reason: "DAG no_such_dag is not listed on local." });
  });

  it("auto-refresh picks the shown runs and task instances that are still active", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const run = await pathTo(model, "local", "DAGs", "orders_daily", DEMO.orders.runs[3]);
    const tis = await model.getChildren(run);
    await model.getChildren(tis[1]); // transform_orders: running
    await model.getChildren(await pathTo(model, "local", "DAGs", "orders_daily", DEMO.orders.run)); // failed run
    assert.deepEqual(model.activeNodes().map((n) => n.id), [run.id], "the running run covers its running task instance");
    assert.deepEqual(model.activeNodes((n) => n.kind !== "run").map((n) => n.id), [tis[1].id], "a collapsed run leaves its shown task instance");
  });
});
