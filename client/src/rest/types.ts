/**
 * Types of the Airflow 3 REST API (`/api/v2`) as far as the state store browser uses them.
 * Shapes follow ../shared/reference/state-store.md §7; objects keep any extra fields the server sends.
 */
import type { ExchangeObserver } from "./http";

import type { LosslessNumber } from "lossless-json";
import type { SessionInfo } from "./session";

/**
 * A state store value. Values read from Airflow hold every number as a `LosslessNumber` (its exact
 * text, see json.ts); values given to the client may use plain numbers too.
 */
export type JsonValue = string | number | LosslessNumber | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** `GET /api/v2/version` */
export interface VersionInfo {
  version: string;
  git_version?: string | null;
  [extra: string]: unknown;
}

export interface DagTag {
  name: string;
  dag_id?: string;
}

/** One item of `GET /api/v2/dags`. */
export interface Dag {
  dag_id: string;
  dag_display_name?: string;
  is_paused?: boolean;
  description?: string | null;
  tags?: DagTag[];
  owners?: string[];
  fileloc?: string;
  [extra: string]: unknown;
}

/** One item of `GET /api/v2/dags/{dag_id}/dagRuns`. */
export interface DagRun {
  dag_run_id: string;
  dag_id?: string;
  state: string;
  run_type?: string;
  logical_date?: string | null;
  run_after?: string;
  start_date?: string | null;
  end_date?: string | null;
  [extra: string]: unknown;
}

/** One item of `GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances`. */
export interface TaskInstance {
  task_id: string;
  map_index: number;
  state: string | null;
  try_number: number;
  dag_id?: string;
  dag_run_id?: string;
  operator?: string | null;
  rendered_map_index?: string | null;
  [extra: string]: unknown;
}

/** One item of `GET /api/v2/assets`. */
export interface Asset {
  id: number;
  name: string;
  uri: string;
  group?: string;
  [extra: string]: unknown;
}

/** An entry of a task instance's state store. `expires_at` null = never expires. */
export interface TaskStateEntry {
  key: string;
  value: JsonValue;
  updated_at: string;
  expires_at: string | null;
}

export type AssetWriterKind = "task" | "watcher" | "api";

/** Who last wrote an asset state store entry (newer Airflow versions add the task instance's id, region and try). */
export interface LastUpdatedBy {
  kind: AssetWriterKind | string;
  dag_id?: string | null;
  run_id?: string | null;
  task_id?: string | null;
  map_index?: number | null;
  task_instance_id?: string | null;
  region_id?: string | null;
  region_index?: number | null;
  try_number?: number | null;
  [extra: string]: unknown;
}

/** An entry of an asset's state store (no expiry). */
export interface AssetStateEntry {
  key: string;
  value: JsonValue;
  updated_at: string;
  last_updated_by: LastUpdatedBy | null;
}

/** One page of a collection. `hasMore` is computed from what the server really returned. */
export interface Page<T> {
  items: T[];
  totalEntries: number;
  /** The offset this page starts at. */
  offset: number;
  /** Offset of the next page (offset + items.length). */
  nextOffset: number;
  hasMore: boolean;
}

/** Addresses one task instance (one map index of a mapped task). */
export interface TaskInstanceRef {
  dagId: string;
  runId: string;
  taskId: string;
  /** -1 (the default) for an unmapped task. */
  mapIndex?: number;
}

/**
 * Expiry of a task state store entry, as the REST API takes it:
 * `"default"` = now + `[state_store] default_retention_days`, `null` = never,
 * a timezone-aware ISO 8601 string, a `Date` or a number of seconds since the epoch = that instant.
 */
export type ExpiresAtInput = "default" | null | string | Date | number;

/** Per-call options. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-request timeout (milliseconds, 0 = none). */
  timeoutMs?: number;
}

export interface PageParams {
  limit?: number;
  offset?: number;
}

export interface ListDagsParams extends PageParams {
  /** SQL LIKE pattern on dag_id (Airflow's `dag_id_pattern`, `%`/`_` wildcards, case-insensitive). */
  dagIdPattern?: string;
  paused?: boolean;
  orderBy?: string;
}

export interface ListDagRunsParams extends PageParams {
  /** e.g. `"-run_after"` for the most recent first. */
  orderBy?: string;
  state?: string[];
}

export interface ListTaskInstancesParams extends PageParams {
  orderBy?: string;
}

export interface ListAssetsParams extends PageParams {
  namePattern?: string;
  orderBy?: string;
}

export type AuthConfig =
  | { kind: "password"; username: string; password: string }
  | { kind: "token"; token: string }
  | { kind: "none" };

export type FetchLike = typeof fetch;

export interface AirflowClientOptions {
  /** e.g. `http://127.0.0.1:28080` (a trailing slash or a path prefix is allowed). */
  baseUrl: string;
  auth?: AuthConfig;
  /** Per-request timeout in milliseconds (default 30 000, 0 = none). */
  timeoutMs?: number;
  /** Maximum number of HTTP requests in flight at once (default 4). */
  maxConcurrency?: number;
  /** Longest JSON text (characters, as the server counts them) a value may have; default 65535, 0 = no limit. */
  maxValueLength?: number;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Replaces the global `fetch` (tests). */
  fetch?: FetchLike;
  /** Told of every HTTP exchange once it ends, without headers or bodies (the extension's log). */
  onExchange?: ExchangeObserver;
  /** Told what each token obtained by signing in says about its user (undefined: not a JWT). */
  onSession?: (session: SessionInfo | undefined) => void;
}
