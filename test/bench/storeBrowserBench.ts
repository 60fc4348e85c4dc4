/**
 * `npm run bench` (second part): how fast the store browser shows the first page of a task instance
 * holding 10,000 entries, against the local emulator. Reported as ratios within this run (to one
 * plain REST round trip, and to a task instance holding 10 entries), never as pass/fail thresholds.
 * The target is a first page under 300 ms; the absolute times are printed for that comparison.
 */
import { AirflowClient } from "../../client/src/rest";
import { Connections } from "../../client/src/storeBrowser/connections";
import type { StoreNode } from "../../client/src/storeBrowser/nodes";
import { treeItemOf } from "../../client/src/storeBrowser/presentation";
import { StoreTreeModel } from "../../client/src/storeBrowser/treeModel";
import { DEMO, startEmulator } from "../emulator";

const BIG = 10_000;
const SMALL = 10;
const RUNS = 15;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function time(runs: number, prepare: () => Promise<() => Promise<void>>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const body = await prepare();
    const start = process.hrtime.bigint();
    await body();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

/** A model already expanded down to the run, as the tree is before the task instance is opened. */
async function modelAtRun(url: string): Promise<{ model: StoreTreeModel; tis: StoreNode[] }> {
  const connections = new Connections(
    { get: async () => "emulator-admin-token", store: async () => undefined, delete: async () => undefined },
    { timeoutMs: 10_000 },
  );
  connections.update({ environments: [{ name: "bench", baseUrl: url, auth: "token", verifyTls: true }], problems: [], maxValueLength: 65535, trusted: true });
  const model = new StoreTreeModel(connections);
  let node: StoreNode | undefined;
  for (const step of ["environment", "dags", DEMO.spark.dagId, DEMO.spark.run]) {
    const children: StoreNode[] = await model.getChildren(node);
    node = children.find((c) => c.kind === step || (c.kind === "dag" && c.dag.dag_id === step) || (c.kind === "run" && c.run.dag_run_id === step));
    if (!node) throw new Error(`bench: no ${step}`);
  }
  return { model, tis: await model.getChildren(node) };
}

async function main(): Promise<void> {
  const emu = await startEmulator();
  try {
    const scope = (taskId: string) => ({ dag_id: DEMO.spark.dagId, run_id: DEMO.spark.run, task_id: taskId, map_index: -1 });
    for (let i = 0; i < BIG; i++) emu.state.setTaskEntry(scope(DEMO.spark.taskId), `key_${String(i).padStart(5, "0")}`, { offset: i, note: "x".repeat(40) });
    for (let i = 0; i < SMALL; i++) emu.state.setTaskEntry(scope("publish_report"), `key_${i}`, i);

    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "token", token: "emulator-admin-token" } });
    await client.listDags({ limit: 1 }); // warm up the connection pool
    const roundTrip = await time(RUNS * 2, async () => async () => void (await client.listDags({ limit: 1 })));

    const firstPage = (taskId: string) =>
      time(RUNS, async () => {
        const { model, tis } = await modelAtRun(emu.url);
        const ti = tis.find((n) => n.kind === "taskInstance" && n.ref.taskId === taskId)!;
        return async () => {
          const children = await model.getChildren(ti);
          const now = new Date();
          for (const child of children) treeItemOf(child, now);
        };
      });
    const big = await firstPage(DEMO.spark.taskId);
    const small = await firstPage("publish_report");

    const rows: [string, number][] = [
      ["one REST round trip (GET /api/v2/dags?limit=1)", roundTrip],
      [`first page of a task instance with ${BIG.toLocaleString("en")} entries (target ≤ 300 ms)`, big],
      [`first page of a task instance with ${SMALL} entries`, small],
    ];
    console.log(`Store browser benchmark against the local emulator, median of ${RUNS} runs`);
    for (const [name, ms] of rows) console.log(`  ${name.padEnd(68)} ${ms.toFixed(2).padStart(9)} ms`);
    console.log("Ratios (lower is better):");
    console.log(`  first page (${BIG.toLocaleString("en")} entries) / REST round trip   ${(big / roundTrip).toFixed(2)}`);
    console.log(`  first page, ${BIG.toLocaleString("en")} entries / ${SMALL} entries          ${(big / small).toFixed(2)}`);
  } finally {
    await emu.close();
  }
}

void main();
