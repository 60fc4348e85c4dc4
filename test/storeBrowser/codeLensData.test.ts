/** Code lens data: a DAG file's outline matched against the latest run on the emulator. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AirflowClient } from "../../client/src/rest";
import { DAG_OUTLINE_METHOD, MAX_COUNTED_MAP_INDICES, StoreLensSource, type CountLens, type StoreLens } from "../../client/src/storeBrowser/codeLensData";
import { DAG_OUTLINE_METHOD as SERVER_METHOD } from "../../server/src/lsp/dagOutline";
import { outlineOfText } from "../../server/src/engine/features/outline";
import * as fs from "node:fs";
import { startEmulator } from "../emulator";
import { fromRoot } from "../support/paths";
import { DEMO, emulatorFor } from "./helpers";

const DAG_FILE = [
  "from airflow.sdk import DAG, task",
  "from airflow.providers.standard.operators.empty import EmptyOperator",
  "",
  'with DAG("orders_daily"):',
  "    @task",
  "    def extract_orders(task_state_store=None): ...",
  '    transform = EmptyOperator(task_id="transform_orders")',
  '    load = EmptyOperator(task_id="load_orders")',
  '    added_since = EmptyOperator(task_id="not_in_the_latest_run")',
  "    extract_orders()",
  'with DAG("partition_backfill"):',
  "    @task",
  "    def process_partition(p, task_state_store=None): ...",
  "    process_partition.expand(p=[1, 2, 3])",
  "",
  'with DAG("not_deployed"):',
  '    EmptyOperator(task_id="anything")',
].join("\n");

function client(url: string): AirflowClient {
  return new AirflowClient({ baseUrl: url, auth: { kind: "token", token: "emulator-viewer-token" }, timeoutMs: 5000 });
}

function counts(lenses: StoreLens[]): CountLens[] {
  return lenses.filter((l): l is CountLens => l.kind === "count");
}

describe("code lens data", () => {
  it("counts the entries of each task's instance in the latest run, per map index for a mapped task", async (t) => {
    const emu = await emulatorFor(t);
    const lenses = counts(await new StoreLensSource().lenses(client(emu.url), "local", outlineOfText(DAG_FILE)));
    assert.deepEqual(
      lenses.map((l) => [l.range.start.line, l.title]),
      [
        [4, "State store: 1 entry (latest run)"],
        [6, "State store: 0 entries (latest run)"],
        [7, "State store: 0 entries (latest run)"],
        [11, "State store: 10 entries in 6 map indices (latest run)"],
      ],
    );
    assert.deepEqual(lenses[0].reveal, { dagId: "orders_daily", runId: DEMO.orders.runs[3], taskId: "extract_orders", mapIndex: -1 }, "the latest run by run_after");
    assert.deepEqual(lenses[3].reveal, { dagId: DEMO.partitions.dagId, runId: DEMO.partitions.run, taskId: DEMO.partitions.taskId, mapIndex: 0 });
    assert.match(lenses[0].tooltip, /orders_daily \/ manual__2026-05-03T10:15:00\+00:00 \(running\) · extract_orders success/);
  });

  it("answers from its cache until invalidated", async (t) => {
    const emu = await emulatorFor(t);
    const source = new StoreLensSource();
    const outline = outlineOfText(DAG_FILE);
    await source.lenses(client(emu.url), "local", outline);
    const first = emu.requests.length;
    emu.state.setTaskEntry({ dag_id: "orders_daily", run_id: DEMO.orders.runs[3], task_id: "load_orders", map_index: -1 }, "job", "j");
    const cached = await source.lenses(client(emu.url), "local", outline);
    assert.equal(emu.requests.length, first, "no request while cached");
    assert.equal(cached[2].title, "State store: 0 entries (latest run)");
    source.invalidate();
    const fresh = await source.lenses(client(emu.url), "local", outline);
    assert.equal(fresh[2].title, "State store: 1 entry (latest run)");
  });

  it("expires cached answers after the TTL", async (t) => {
    const emu = await emulatorFor(t);
    let now = 0;
    const source = new StoreLensSource(1000, () => now);
    const outline = outlineOfText(DAG_FILE);
    await source.lenses(client(emu.url), "local", outline);
    const first = emu.requests.length;
    now = 999;
    await source.lenses(client(emu.url), "local", outline);
    assert.equal(emu.requests.length, first);
    now = 1000;
    await source.lenses(client(emu.url), "local", outline);
    assert.ok(emu.requests.length > first);
  });

  it("counts at most the first map indices of a very wide mapped task, and says so", async (t) => {
    const emu = await emulatorFor(t);
    const run = "manual__wide";
    emu.state.addRun({ dag_id: DEMO.partitions.dagId, dag_run_id: run, run_after: "2030-01-01T00:00:00+00:00" });
    for (let i = 0; i < 40; i++) emu.state.addTaskInstance({ dag_id: DEMO.partitions.dagId, dag_run_id: run, task_id: DEMO.partitions.taskId, map_index: i });
    emu.state.setTaskEntry({ dag_id: DEMO.partitions.dagId, run_id: run, task_id: DEMO.partitions.taskId, map_index: 39 }, "k", 1);
    emu.state.setTaskEntry({ dag_id: DEMO.partitions.dagId, run_id: run, task_id: DEMO.partitions.taskId, map_index: 2 }, "k", 1);
    const lenses = counts(await new StoreLensSource().lenses(client(emu.url), "local", outlineOfText(DAG_FILE)));
    const wide = lenses.find((l) => l.reveal.dagId === DEMO.partitions.dagId)!;
    assert.equal(wide.title, `State store: 1 entry in the first ${MAX_COUNTED_MAP_INDICES} of 40 map indices (latest run)`);
    assert.equal(wide.reveal.mapIndex, 2, "reveals the first index that has entries");
    assert.equal(emu.requests.filter((r) => r.path.endsWith("/state-store") && r.path.includes(DEMO.partitions.dagId)).length, MAX_COUNTED_MAP_INDICES);
  });

  it("a DAG the environment cannot answer for gets one lens with the reason; the others still count", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "status", status: 500, detail: "database is locked" }, { path: /^\/api\/v2\/dags\/orders_daily\// });
    const lenses = await new StoreLensSource().lenses(client(emu.url), "local", outlineOfText(DAG_FILE));
    assert.deepEqual(counts(lenses).map((l) => l.reveal.dagId), [DEMO.partitions.dagId]);
    const problem = lenses.find((l) => l.kind === "problem");
    assert.equal(problem?.title, "State store: not readable");
    assert.equal(problem?.range.start.line, 3, "above the DAG");
    assert.match(problem?.tooltip ?? "", /orders_daily on local could not be read: Airflow answered 500 Internal Server Error: database is locked/);
  });

  it("says Airflow is unreachable above each DAG when the server is down", async (t) => {
    const emu = await startEmulator();
    const url = emu.url;
    await emu.close();
    const lenses = await new StoreLensSource().lenses(client(url), "local", outlineOfText(DAG_FILE));
    assert.deepEqual(
      lenses.map((l) => [l.kind, l.range.start.line, l.title]),
      [
        ["problem", 3, "State store: Airflow unreachable"],
        ["problem", 10, "State store: Airflow unreachable"],
        ["problem", 15, "State store: Airflow unreachable"],
      ],
    );
    assert.equal(lenses[0].kind === "problem" && lenses[0].failure.kind, "offline");
    assert.match(lenses[0].tooltip, /Cannot reach Airflow at .* \(ECONNREFUSED\)/);
  });

  it("the README's example DAG gets a lens above each task from the emulator's demo data", async (t) => {
    const emu = await emulatorFor(t);
    const example = fs.readFileSync(fromRoot("examples", "dags", "orders_daily.py"), "utf8");
    const lenses = await new StoreLensSource().lenses(client(emu.url), "local", outlineOfText(example));
    assert.deepEqual(
      lenses.map((l) => [example.split("\n")[l.range.start.line + 1].trim().split("(")[0], l.title]),
      [
        ["def extract_orders", "State store: 1 entry (latest run)"],
        ["def transform_orders", "State store: 0 entries (latest run)"],
        ["def load_orders", "State store: 0 entries (latest run)"],
      ],
    );
  });

  it("uses the same request name as the language server", () => {
    assert.equal(DAG_OUTLINE_METHOD, SERVER_METHOD);
  });
});
