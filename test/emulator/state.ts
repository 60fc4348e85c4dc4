/**
 * In-memory data of the Airflow emulator: DAGs, runs, task instances, assets, and the two state
 * stores. Tests may read and change it directly (e.g. seed 10,000 entries without 10,000 requests).
 */
import { pyJsonDumps, type PyJson } from "./pyjson";

export interface EmulatorConfig {
  /** `[api] maximum_page_limit`: larger `limit`s are silently capped (0 = no cap). */
  maximumPageLimit: number;
  /** `[api] fallback_page_limit`: the `limit` when none is given. */
  fallbackPageLimit: number;
  /** `[state_store] max_value_storage_bytes`, in characters of the JSON text; 0 = no limit. */
  maxValueStorageBytes: number;
  /** `[state_store] default_retention_days`; 0 = never expire, negative = 400 on `"default"`. */
  defaultRetentionDays: number;
  /** Lifetime of tokens issued by `POST /auth/token`, milliseconds. */
  tokenTtlMs: number;
  /** Answer of `GET /api/v2/version`. */
  version: string;
}

export const DEFAULT_CONFIG: EmulatorConfig = {
  maximumPageLimit: 100,
  fallbackPageLimit: 50,
  maxValueStorageBytes: 65535,
  defaultRetentionDays: 30,
  tokenTtlMs: 60 * 60 * 1000,
  version: "3.3.0",
};

export interface DagRecord {
  dag_id: string;
  dag_display_name: string;
  is_paused: boolean;
  is_stale: boolean;
  description: string | null;
  fileloc: string;
  owners: string[];
  tags: { name: string; dag_id: string }[];
  timetable_summary: string | null;
  max_active_runs: number;
  has_import_errors: boolean;
  [extra: string]: unknown;
}

export interface DagRunRecord {
  dag_run_id: string;
  dag_id: string;
  dag_display_name: string;
  logical_date: string | null;
  run_after: string;
  queued_at: string | null;
  start_date: string | null;
  end_date: string | null;
  data_interval_start: string | null;
  data_interval_end: string | null;
  state: string;
  run_type: string;
  triggered_by: string;
  conf: Record<string, unknown>;
  note: string | null;
  [extra: string]: unknown;
}

export interface TaskInstanceRecord {
  id: string;
  task_id: string;
  dag_id: string;
  dag_run_id: string;
  map_index: number;
  rendered_map_index: string | null;
  logical_date: string | null;
  run_after: string;
  start_date: string | null;
  end_date: string | null;
  duration: number | null;
  state: string | null;
  try_number: number;
  max_tries: number;
  task_display_name: string;
  operator: string | null;
  operator_name: string | null;
  pool: string;
  queue: string;
  priority_weight: number;
  [extra: string]: unknown;
}

export interface AssetRecord {
  id: number;
  name: string;
  uri: string;
  group: string;
  extra: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  producing_tasks: { dag_id: string; task_id: string }[];
  consuming_tasks: { dag_id: string; task_id: string }[];
  [extra: string]: unknown;
}

export interface TaskScope {
  dag_id: string;
  run_id: string;
  task_id: string;
  map_index: number;
}

export interface TaskStateRow extends TaskScope {
  key: string;
  /** JSON text, as the metadata database stores it (Python's `json.dumps`: exact ints, floats in repr()). */
  value: string;
  updated_at: Date;
  expires_at: Date | null;
}

export interface LastUpdatedBy {
  kind: "task" | "watcher" | "api";
  dag_id: string | null;
  run_id: string | null;
  task_id: string | null;
  map_index: number | null;
  /** Sent by newer Airflow versions only: absent unless a test sets them. */
  task_instance_id?: string | null;
  region_id?: string | null;
  region_index?: number | null;
  try_number?: number | null;
}

export interface AssetStateRow {
  asset_id: number;
  key: string;
  value: string;
  updated_at: Date;
  last_updated_by: LastUpdatedBy | null;
}

export interface RecordedRequest {
  method: string;
  /** Percent-decoded path, as the server routes it. */
  path: string;
  /** Path as sent on the wire. */
  rawPath: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: string;
  at: Date;
}

const SEP = "\u0000";
function scopeId(s: TaskScope): string {
  return [s.dag_id, s.run_id, s.task_id, String(s.map_index)].join(SEP);
}

function byKey<T extends { key: string }>(a: T, b: T): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export class EmulatorState {
  readonly config: EmulatorConfig;
  dags: DagRecord[] = [];
  dagRuns: DagRunRecord[] = [];
  taskInstances: TaskInstanceRecord[] = [];
  assets: AssetRecord[] = [];
  /** Every request the server received, in order (also those answered by a fault). */
  requests: RecordedRequest[] = [];
  /** Requests being handled right now, and the most seen at once since the last reset. */
  inFlight = 0;
  maxInFlight = 0;

  private readonly taskState = new Map<string, Map<string, TaskStateRow>>();
  private readonly assetState = new Map<number, Map<string, AssetStateRow>>();

  constructor(
    config: Partial<EmulatorConfig> = {},
    readonly now: () => Date = () => new Date(),
  ) {
    this.config = { ...DEFAULT_CONFIG, ...config };
  }

  resetStats(): void {
    this.requests = [];
    this.maxInFlight = this.inFlight;
  }

  // ---- lookups ----

  findDag(dagId: string): DagRecord | undefined {
    return this.dags.find((d) => d.dag_id === dagId);
  }

  findRun(dagId: string, runId: string): DagRunRecord | undefined {
    return this.dagRuns.find((r) => r.dag_id === dagId && r.dag_run_id === runId);
  }

  /** `mapIndex` null matches any map index (what `all_map_indices=true` checks). */
  findTaskInstance(dagId: string, runId: string, taskId: string, mapIndex: number | null): TaskInstanceRecord | undefined {
    return this.taskInstances.find(
      (t) => t.dag_id === dagId && t.dag_run_id === runId && t.task_id === taskId && (mapIndex === null || t.map_index === mapIndex),
    );
  }

  findAsset(id: number): AssetRecord | undefined {
    return this.assets.find((a) => a.id === id);
  }

  // ---- builders (seeding and tests) ----

  addDag(dag: Partial<DagRecord> & { dag_id: string }): DagRecord {
    const record: DagRecord = {
      dag_display_name: dag.dag_id,
      is_paused: false,
      is_stale: false,
      description: null,
      fileloc: `/opt/airflow/dags/${dag.dag_id}.py`,
      owners: ["airflow"],
      tags: [],
      timetable_summary: null,
      max_active_runs: 16,
      has_import_errors: false,
      ...dag,
    };
    this.dags.push(record);
    return record;
  }

  addRun(run: Partial<DagRunRecord> & { dag_id: string; dag_run_id: string }): DagRunRecord {
    const runAfter = run.run_after ?? this.now().toISOString();
    const record: DagRunRecord = {
      dag_display_name: this.findDag(run.dag_id)?.dag_display_name ?? run.dag_id,
      logical_date: runAfter,
      run_after: runAfter,
      queued_at: runAfter,
      start_date: runAfter,
      end_date: null,
      data_interval_start: runAfter,
      data_interval_end: runAfter,
      state: "success",
      run_type: "scheduled",
      triggered_by: "timetable",
      conf: {},
      note: null,
      ...run,
    };
    this.dagRuns.push(record);
    return record;
  }

  addTaskInstance(ti: Partial<TaskInstanceRecord> & { dag_id: string; dag_run_id: string; task_id: string }): TaskInstanceRecord {
    const run = this.findRun(ti.dag_id, ti.dag_run_id);
    const n = this.taskInstances.length + 1;
    const record: TaskInstanceRecord = {
      id: `0196a0e4-${String(n).padStart(4, "0")}-7000-8000-${String(n).padStart(12, "0")}`,
      map_index: -1,
      rendered_map_index: null,
      logical_date: run?.logical_date ?? null,
      run_after: run?.run_after ?? this.now().toISOString(),
      start_date: run?.start_date ?? null,
      end_date: null,
      duration: null,
      state: "success",
      try_number: 1,
      max_tries: 0,
      task_display_name: ti.task_id,
      operator: "PythonOperator",
      operator_name: "@task",
      pool: "default_pool",
      queue: "default",
      priority_weight: 1,
      ...ti,
    };
    this.taskInstances.push(record);
    return record;
  }

  addAsset(asset: Partial<AssetRecord> & { name: string; uri: string }): AssetRecord {
    const id = asset.id ?? this.assets.reduce((m, a) => Math.max(m, a.id), 0) + 1;
    const at = this.now().toISOString();
    const record: AssetRecord = {
      id,
      group: "asset",
      extra: {},
      created_at: at,
      updated_at: at,
      producing_tasks: [],
      consuming_tasks: [],
      ...asset,
    };
    this.assets.push(record);
    return record;
  }

  // ---- task state store ----

  /** Entries of one task instance, sorted by key. */
  taskEntries(scope: TaskScope): TaskStateRow[] {
    return [...(this.taskState.get(scopeId(scope))?.values() ?? [])].sort(byKey);
  }

  getTaskEntry(scope: TaskScope, key: string): TaskStateRow | undefined {
    return this.taskState.get(scopeId(scope))?.get(key);
  }

  /** Creates or replaces an entry (no validation: tests may store what the API would refuse). */
  setTaskEntry(
    scope: TaskScope,
    key: string,
    value: PyJson,
    options: { expiresAt?: Date | null; updatedAt?: Date } = {},
  ): TaskStateRow {
    const id = scopeId(scope);
    let entries = this.taskState.get(id);
    if (!entries) this.taskState.set(id, (entries = new Map()));
    const row: TaskStateRow = {
      dag_id: scope.dag_id,
      run_id: scope.run_id,
      task_id: scope.task_id,
      map_index: scope.map_index,
      key,
      value: pyJsonDumps(value, { allowNan: true }),
      updated_at: options.updatedAt ?? this.now(),
      expires_at: options.expiresAt === undefined ? null : options.expiresAt,
    };
    entries.set(key, row);
    return row;
  }

  deleteTaskEntry(scope: TaskScope, key: string): boolean {
    return this.taskState.get(scopeId(scope))?.delete(key) ?? false;
  }

  /** Clears one task instance, or every map index of the task when `allMapIndices`. */
  clearTaskEntries(scope: TaskScope, allMapIndices = false): number {
    let removed = 0;
    if (!allMapIndices) {
      const id = scopeId(scope);
      removed = this.taskState.get(id)?.size ?? 0;
      this.taskState.delete(id);
      return removed;
    }
    for (const [id, entries] of this.taskState) {
      const [dagId, runId, taskId] = id.split(SEP);
      if (dagId === scope.dag_id && runId === scope.run_id && taskId === scope.task_id) {
        removed += entries.size;
        this.taskState.delete(id);
      }
    }
    return removed;
  }

  /** Every task state row, for assertions. */
  allTaskEntries(): TaskStateRow[] {
    return [...this.taskState.values()].flatMap((m) => [...m.values()]);
  }

  // ---- asset state store ----

  assetEntries(assetId: number): AssetStateRow[] {
    return [...(this.assetState.get(assetId)?.values() ?? [])].sort(byKey);
  }

  getAssetEntry(assetId: number, key: string): AssetStateRow | undefined {
    return this.assetState.get(assetId)?.get(key);
  }

  setAssetEntry(
    assetId: number,
    key: string,
    value: PyJson,
    lastUpdatedBy: LastUpdatedBy | null,
    options: { updatedAt?: Date } = {},
  ): AssetStateRow {
    let entries = this.assetState.get(assetId);
    if (!entries) this.assetState.set(assetId, (entries = new Map()));
    const row: AssetStateRow = {
      asset_id: assetId,
      key,
      value: pyJsonDumps(value, { allowNan: true }),
      updated_at: options.updatedAt ?? this.now(),
      last_updated_by: lastUpdatedBy,
    };
    entries.set(key, row);
    return row;
  }

  deleteAssetEntry(assetId: number, key: string): boolean {
    return this.assetState.get(assetId)?.delete(key) ?? false;
  }

  clearAssetEntries(assetId: number): number {
    const removed = this.assetState.get(assetId)?.size ?? 0;
    this.assetState.delete(assetId);
    return removed;
  }
}

export function writer(kind: LastUpdatedBy["kind"], from: Partial<Omit<LastUpdatedBy, "kind">> = {}): LastUpdatedBy {
  return { ...from, kind, dag_id: from.dag_id ?? null, run_id: from.run_id ?? null, task_id: from.task_id ?? null, map_index: from.map_index ?? null };
}
