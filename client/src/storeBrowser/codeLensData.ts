/**
 * The code lens above each task of an open DAG file: how many state store entries its task
 * instance has in the DAG's latest run on the active environment. A DAG the environment does not
 * know, a DAG without runs, or a task that is not in the latest run gets no lens at all.
 * Answers are cached for a short time: the editor asks again on every edit.
 */
import type { OutlineTask, DagOutline } from "../../../server/src/engine/features/outline";
import type { AirflowClient } from "../rest/client";
import { NotFoundError } from "../rest/errors";
import type { DagRun, TaskInstance, TaskInstanceRef } from "../rest/types";
import { classifyFailure, type Failure } from "./failures";

type Range = OutlineTask["range"];

/**
 * The custom request the language server answers with a document's DagOutline
 * (server/src/lsp/dagOutline.ts declares the same name; a test checks they agree).
 */
export const DAG_OUTLINE_METHOD = "airflowStateStore/dagOutline";

/** A task's entry count, which reveals the task instance in the tree. */
export interface CountLens {
  kind: "count";
  range: Range;
  title: string;
  tooltip: string;
  /** The task instance "reveal" opens in the tree. */
  reveal: Required<TaskInstanceRef>;
}

/** Above a DAG whose latest run could not be read: what went wrong, with Retry beside it. */
export interface ProblemLens {
  kind: "problem";
  range: Range;
  title: string;
  tooltip: string;
  failure: Failure;
}

export type StoreLens = CountLens | ProblemLens;

interface LatestRun {
  run: DagRun;
  /** Task instances of the run by task id (several for a mapped task). */
  byTask: Map<string, TaskInstance[]>;
}

/** Entries are counted on at most this many map indices of one mapped task. */
export const MAX_COUNTED_MAP_INDICES = 32;
/** Task instances read from one run, at most. */
const MAX_TASK_INSTANCES = 5000;

export class StoreLensSource {
  private readonly runs = new Map<string, { at: number; value: Promise<LatestRun | undefined> }>();
  private readonly counts = new Map<string, { at: number; value: Promise<number> }>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Forgets every cached answer (after a refresh, a write, or a change of environment). */
  invalidate(): void {
    this.runs.clear();
    this.counts.clear();
  }

  /**
   * The lenses of one document's outline. A DAG whose latest run cannot be read gets one lens saying
   * why (Airflow unreachable, signed out, refused); a task whose entries cannot be counted gets none.
   */
  async lenses(client: AirflowClient, envName: string, outline: DagOutline, signal?: AbortSignal): Promise<StoreLens[]> {
    const perDag = await Promise.all(
      outline.dags.map(async (dag): Promise<StoreLens[]> => {
        if (dag.tasks.length === 0) return [];
        let latest: LatestRun | undefined;
        try {
          latest = await this.latestRun(client, envName, dag.dagId, signal);
        } catch (error) {
          const failure = classifyFailure(error, false);
          return failure.kind === "cancelled" ? [] : [problemLens(dag.range, envName, dag.dagId, failure)];
        }
        if (!latest) return [];
        const found = latest;
        const lenses = await Promise.all(dag.tasks.map((task) => this.lensFor(client, envName, dag.dagId, found, task, signal).catch(() => undefined)));
        return lenses.filter((l): l is CountLens => l !== undefined);
      }),
    );
    return perDag.flat();
  }

  private async lensFor(
    client: AirflowClient,
    envName: string,
    dagId: string,
    latest: LatestRun,
    task: OutlineTask,
    signal: AbortSignal | undefined,
  ): Promise<CountLens | undefined> {
    const instances = latest.byTask.get(task.taskId);
    if (!instances || instances.length === 0) return undefined;
    const runId = latest.run.dag_run_id;
    const counted = instances.slice(0, MAX_COUNTED_MAP_INDICES);
    const refs = counted.map((ti) => ({ dagId, runId, taskId: task.taskId, mapIndex: ti.map_index ?? -1 }));
    const counts = await Promise.all(refs.map((ref) => this.entryCount(client, envName, ref, signal)));
    const total = counts.reduce((a, b) => a + b, 0);
    const mapped = instances.length > 1 || (instances[0].map_index ?? -1) >= 0;
    const entries = `${total} entr${total === 1 ? "y" : "ies"}`;
    let title: string;
    if (!mapped) title = `State store: ${entries} (latest run)`;
    else if (counted.length < instances.length) title = `State store: ${entries} in the first ${counted.length} of ${instances.length} map indices (latest run)`;
    else title = `State store: ${entries} in ${instances.length} map ${instances.length === 1 ? "index" : "indices"} (latest run)`;
    const withEntries = refs.find((_, i) => counts[i] > 0) ?? refs[0];
    const state = instances.length === 1 ? instances[0].state ?? "no status" : undefined;
    return {
      kind: "count",
      range: task.range,
      title,
      tooltip: `${dagId} / ${runId} (${latest.run.state})${state ? ` · ${task.taskId} ${state}` : ""}: show in the Airflow State view`,
      reveal: withEntries,
    };
  }

  /** The most recent run of the DAG and its task instances; undefined when the DAG is unknown or has no run. */
  private latestRun(client: AirflowClient, envName: string, dagId: string, signal: AbortSignal | undefined): Promise<LatestRun | undefined> {
    return this.cached(this.runs, `${envName}\u0000${dagId}`, async () => {
      let runs;
      try {
        runs = await client.listDagRuns(dagId, { orderBy: "-run_after", limit: 1, signal });
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
      const run = runs.items[0];
      if (!run) return undefined;
      const byTask = new Map<string, TaskInstance[]>();
      let offset = 0;
      for (;;) {
        const page = await client.listTaskInstances(dagId, run.dag_run_id, { limit: 100, offset, signal });
        for (const ti of page.items) {
          const list = byTask.get(ti.task_id);
          if (list) list.push(ti);
          else byTask.set(ti.task_id, [ti]);
        }
        if (!page.hasMore || page.nextOffset >= MAX_TASK_INSTANCES) break;
        offset = page.nextOffset;
      }
      for (const list of byTask.values()) list.sort((a, b) => (a.map_index ?? -1) - (b.map_index ?? -1));
      return { run, byTask };
    });
  }

  private entryCount(client: AirflowClient, envName: string, ref: Required<TaskInstanceRef>, signal: AbortSignal | undefined): Promise<number> {
    const key = [envName, ref.dagId, ref.runId, ref.taskId, ref.mapIndex].join("\u0000");
    return this.cached(this.counts, key, async () => (await client.listTaskStateEntries(ref, { limit: 1, signal })).totalEntries);
  }

  /** A cached promise younger than the TTL, else a new one; failures are not kept. */
  private cached<T>(cache: Map<string, { at: number; value: Promise<T> }>, key: string, compute: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    const now = this.now();
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = compute();
    const entry = { at: now, value };
    cache.set(key, entry);
    value.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return value;
  }
}

function problemLens(range: Range, envName: string, dagId: string, failure: Failure): ProblemLens {
  const title =
    failure.kind === "offline"
      ? "State store: Airflow unreachable"
      : failure.kind === "sign-in"
        ? `State store: sign in to ${envName} again`
        : "State store: not readable";
  return { kind: "problem", range, title, tooltip: `The runs of ${dagId} on ${envName} could not be read: ${failure.reason}.`, failure };
}
