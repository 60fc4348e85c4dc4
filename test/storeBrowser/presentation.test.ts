/** How nodes read in the tree and the status bar: previews, expiries, writers, context values, warnings. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { COMMANDS } from "../../client/src/storeBrowser/commandIds";
import { parseStateValue } from "../../client/src/rest/validate";
import { expiryText, isActiveState, taskInstanceDescription, updatedText, valuePreview, valueText, writerText } from "../../client/src/storeBrowser/format";
import type { EnvironmentNode, StoreNode, TaskEntryNode, TaskInstanceNode } from "../../client/src/storeBrowser/nodes";
import { treeItemOf } from "../../client/src/storeBrowser/presentation";
import { statusOf } from "../../client/src/storeBrowser/status";
import type { AirflowClient } from "../../client/src/rest";
import { DEMO, emulatorFor, modelFor, pathTo } from "./helpers";

const NOW = new Date("2026-05-03T12:00:00Z");

describe("format", () => {
  it("previews values on one line, cut with an ellipsis, strings quoted", () => {
    assert.equal(valuePreview({ last_id: 184213, page: 37 }), '{"last_id": 184213, "page": 37}');
    assert.equal(valuePreview("3"), '"3"');
    assert.equal(valuePreview([1, [2, {}]]), "[1, [2, {}]]");
    const long = valuePreview({ rows: Array.from({ length: 100_000 }, (_, i) => i) }, 20);
    assert.equal(long, '{"rows": [0, 1, 2, …');
    assert.equal(long.length, 20);
  });

  it("previews and copies numbers as Airflow wrote them", () => {
    const value = parseStateValue('{"job": 9007199254740993, "ratio": 1.0, "zero": -0.0}');
    assert.equal(valuePreview(value), '{"job": 9007199254740993, "ratio": 1.0, "zero": -0.0}');
    assert.equal(valueText(value), '{\n  "job": 9007199254740993,\n  "ratio": 1.0,\n  "zero": -0.0\n}');
  });

  it("says when an entry expires, expired, or never does", () => {
    assert.equal(expiryText(null, NOW), "never expires");
    assert.equal(expiryText("2026-05-30T12:00:00Z", NOW), "expires in 27 days");
    assert.equal(expiryText("2026-05-03T13:30:00Z", NOW), "expires in 1 hour");
    // Read back seconds after it was written with a 30-day retention: 30 days, not 29.
    assert.equal(expiryText(new Date(NOW.getTime() + 30 * 86_400_000 - 4_000).toISOString(), NOW), "expires in 30 days");
    assert.equal(expiryText(new Date(NOW.getTime() + 20_000).toISOString(), NOW), "expires in less than a minute");
    assert.equal(expiryText("2026-05-02T12:00:00Z", NOW), "expired 1 day ago");
    assert.equal(updatedText("2026-05-03T11:57:00Z", NOW), "updated 3 minutes ago");
    assert.equal(updatedText("2026-05-03T11:59:59Z", NOW), "updated just now");
  });

  it("names the last writer of an asset entry", () => {
    assert.equal(
      writerText({ kind: "task", dag_id: "partition_backfill", run_id: "r1", task_id: "process_partition", map_index: 2 }),
      "task partition_backfill.process_partition [2] (run r1)",
    );
    assert.equal(writerText({ kind: "task", dag_id: "d", task_id: "t", map_index: -1 }), "task d.t");
    assert.equal(
      writerText({ kind: "task", dag_id: "d", run_id: "r1", task_id: "t", map_index: 2, try_number: 3, region_id: "eu", task_instance_id: "0196" }),
      "task d.t [2] try 3 (run r1)",
      "newer Airflow versions send the try number",
    );
    assert.equal(writerText({ kind: "watcher" }), "asset watcher");
    assert.equal(writerText({ kind: "api" }), "REST API");
    assert.equal(writerText(null), "unknown writer");
  });

  it("describes task instances with map index, state and try", () => {
    assert.equal(taskInstanceDescription({ state: "up_for_retry", try_number: 2, rendered_map_index: "partition=p3" }), "partition=p3 · up_for_retry · try 2");
    assert.equal(taskInstanceDescription({ state: null, try_number: 0 }), "no status");
    assert.equal(isActiveState("running"), true);
    assert.equal(isActiveState("success"), false);
    assert.equal(isActiveState(null), false);
  });
});

describe("tree items", () => {
  it("give menus the context values they match on, and entries a click that opens them", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    const run = await pathTo(model, "local", "DAGs", DEMO.partitions.dagId, DEMO.partitions.run);
    const tis = (await model.getChildren(run)) as TaskInstanceNode[];
    const mapped = tis.find((n) => n.ref.mapIndex === 3)!;
    const plain = tis.find((n) => n.ref.taskId === "list_partitions")!;
    assert.deepEqual(
      [treeItemOf(mapped, NOW).contextValue, treeItemOf(plain, NOW).contextValue, treeItemOf(run, NOW).contextValue],
      ["taskInstance.mapped", "taskInstance", "run"],
    );
    assert.equal(treeItemOf(mapped, NOW).label, "process_partition [3]");
    assert.equal(treeItemOf(mapped, NOW).description, "partition=p3 · up_for_retry · try 2");
    const [cursor] = (await model.getChildren(mapped)) as TaskEntryNode[];
    const item = treeItemOf(cursor, NOW);
    assert.equal(item.contextValue, "taskEntry");
    assert.equal(item.collapsible, "none");
    assert.equal(item.command?.command, COMMANDS.editEntry);
    assert.match(item.description ?? "", /^\{"partition": "p3", "offset": 4000\} · expires in \d+ days$/);

    const failed = (await model.getChildren(await pathTo(model, "local", "DAGs", "orders_daily", DEMO.orders.run))) as TaskInstanceNode[];
    const stale = ((await model.getChildren(failed[2])) as TaskEntryNode[]).find((e) => e.entry.key === "stale_marker")!;
    assert.equal(treeItemOf(stale, new Date()).icon, "history", "an expired entry looks different");
    assert.match(treeItemOf(stale, new Date()).tooltip ?? "", /state-store clean/);

    const assets = await model.getChildren(await pathTo(model, "local", "Assets"));
    const clickstream = await model.getChildren(assets[2]);
    const lag = clickstream.find((n): n is Extract<StoreNode, { kind: "assetEntry" }> => n.kind === "assetEntry" && n.entry.key === "consumer_lag")!;
    assert.match(treeItemOf(lag, NOW).description ?? "", / · asset watcher$/);
    assert.equal(treeItemOf(assets[0], NOW).contextValue, "asset");
  });

  it("show a message's action as its click and description", async (t) => {
    const emu = await emulatorFor(t);
    const model = await modelFor(emu);
    model.setDagFilter("zzz");
    const [message] = await model.getChildren(await pathTo(model, "local", "DAGs"));
    const item = treeItemOf(message, NOW);
    assert.equal(item.command?.command, COMMANDS.clearDagFilter);
    assert.equal(item.description, "Clear filter");
    assert.equal(treeItemOf((await model.getChildren())[0], NOW).description, "Airflow 3.3.0");
    const dags = await pathTo(model, "local", "DAGs");
    assert.equal(treeItemOf(dags, NOW).contextValue, "dagsFolder.filtered");
  });
});

describe("status bar", () => {
  const env = { name: "prod", baseUrl: "https://airflow.example.com", auth: "token" as const, verifyTls: true };
  const ready = { kind: "ready" as const, env, client: {} as AirflowClient };

  it("labels the environment and its version, apart from the project's pin, with a warning below 3.3", () => {
    assert.deepEqual(statusOf(ready, { version: "3.3.0" }), {
      text: "$(server-environment) Environment prod: Airflow 3.3.0",
      tooltip: "Airflow State: the environment prod (https://airflow.example.com) runs Airflow 3.3.0. Click to switch environment.",
      accessibilityLabel: "Airflow State environment prod runs Airflow 3.3.0",
      warning: false,
    });
    const old = statusOf(ready, { version: "3.2.1" })!;
    assert.equal(old.warning, true);
    assert.equal(old.text, "$(warning) Environment prod: Airflow 3.2.1");
    assert.match(old.tooltip, /need Airflow 3.3 or later/);
    assert.match(statusOf(ready, { version: "3.3.0" }, { readOnly: "403" })!.text, /Airflow 3\.3\.0 \(read-only\)$/);
  });

  it("says offline, with the reason and a click that retries, when the environment cannot be reached", () => {
    const offline = statusOf(ready, { version: "3.3.0" }, { offline: "Cannot reach Airflow at https://airflow.example.com (ECONNREFUSED)" })!;
    assert.equal(offline.text, "$(debug-disconnect) Environment prod: offline");
    assert.match(offline.tooltip, /is offline: Cannot reach Airflow at .*ECONNREFUSED\)\. Click to retry\./);
    assert.equal(offline.retry, true);
    assert.equal(offline.warning, true);
    assert.equal(statusOf(ready, { error: "Cannot reach Airflow" })!.text, "$(debug-disconnect) Environment prod: offline", "the version could not be read");
  });

  it("stays quiet without an environment, and says why it is not connected otherwise", () => {
    assert.equal(statusOf({ kind: "no-environment", problems: [] }, undefined), undefined);
    assert.match(statusOf({ kind: "untrusted" }, undefined)!.tooltip, /untrusted workspace/);
    assert.match(statusOf({ kind: "signed-out", env }, undefined)!.tooltip, /signed out/);
  });
});

describe("environment and stale items", () => {
  const node: EnvironmentNode = { kind: "environment", id: "env/prod", parent: undefined, envName: "prod", baseUrl: "https://airflow.example.com", version: { version: "3.3.0" } };

  it("an offline environment shows it in its icon, description and tooltip, with Retry", () => {
    assert.equal(treeItemOf(node, NOW).description, "Airflow 3.3.0");
    const item = treeItemOf(node, NOW, { offline: "Cannot reach Airflow at https://airflow.example.com (ECONNREFUSED)" });
    assert.equal(item.icon, "debug-disconnect");
    assert.equal(item.iconColor, "list.errorForeground");
    assert.equal(item.description, "offline");
    assert.match(item.tooltip ?? "", /\nOffline: Cannot reach Airflow at https:\/\/airflow\.example\.com \(ECONNREFUSED\)$/);
    assert.deepEqual(item.tooltipAction, { command: COMMANDS.refresh, title: "Retry" });
  });

  it("a read-only environment says so", () => {
    const item = treeItemOf(node, NOW, { readOnly: "Airflow answered 403 Forbidden: Forbidden" });
    assert.equal(item.description, "Airflow 3.3.0 · read-only");
    assert.equal(item.icon, "lock");
    assert.match(item.tooltip ?? "", /Read-only: Airflow refused a write from this user/);
  });

  it("a read-only environment known from the token's role says which role", () => {
    const item = treeItemOf(node, NOW, { readOnly: 'the role "viewer" may only read', readOnlyRole: "viewer" });
    assert.equal(item.description, "Airflow 3.3.0 · read-only");
    assert.equal(item.icon, "lock");
    assert.match(item.tooltip ?? "", /\nRead-only: the sign-in's role "viewer" may read but not change state stores\.$/);
    assert.doesNotMatch(item.tooltip ?? "", /refused/);
  });

  it("an item kept from before a failed refresh is marked, with the reason in its tooltip", () => {
    const entry: TaskEntryNode = {
      kind: "taskEntry",
      id: "e",
      parent: undefined,
      envName: "prod",
      ref: { dagId: "d", runId: "r", taskId: "t", mapIndex: -1 },
      entry: { key: "cursor", value: 3, updated_at: "2026-05-03T11:00:00Z", expires_at: null },
      stale: "Cannot reach Airflow",
    };
    const item = treeItemOf(entry, NOW);
    assert.equal(item.description, "not refreshed · 3 · never expires");
    assert.equal(item.iconColor, "disabledForeground");
    assert.match(item.tooltip ?? "", /\n\nNot refreshed: Cannot reach Airflow$/);
  });
});
