/**
 * Task and asset state store endpoints (state-store.md §7). Values, keys and expiries are checked
 * before anything is sent; keys are percent-encoded as one segment (they may contain `/`).
 */
import { ApiCaller, seg } from "./caller";
import { InvalidResponseError, ValueValidationError } from "./errors";
import { parseJson, type HttpResponse } from "./http";
import { pageQuery, toPage } from "./paging";
import type {
  AssetStateEntry,
  ExpiresAtInput,
  Page,
  PageParams,
  RequestOptions,
  TaskInstanceRef,
  TaskStateEntry,
} from "./types";
import { checkKey, checkStateValue, normalizeExpiresAt } from "./validate";

// ---- task state store -------------------------------------------------------------------------

function mapIndexOf(ti: TaskInstanceRef): number {
  const mapIndex = ti.mapIndex ?? -1;
  if (!Number.isInteger(mapIndex) || mapIndex < -1) {
    throw new ValueValidationError("parameter", `map_index must be an integer ≥ -1, got ${ti.mapIndex}.`);
  }
  return mapIndex;
}

function taskBase(ti: TaskInstanceRef): string {
  for (const [name, value] of [
    ["dag_id", ti.dagId],
    ["run_id", ti.runId],
    ["task_id", ti.taskId],
  ] as const) {
    if (typeof value !== "string" || value === "") {
      throw new ValueValidationError("parameter", `The task instance needs a non-empty ${name}.`);
    }
  }
  return `/api/v2/dags/${seg(ti.dagId)}/dagRuns/${seg(ti.runId)}/taskInstances/${seg(ti.taskId)}/state-store`;
}

/** `GET …/state-store?map_index=&limit=&offset=` — entries sorted by key; an unknown task instance gives an empty page. */
export async function listTaskStateEntries(
  api: ApiCaller,
  ti: TaskInstanceRef,
  params: PageParams & RequestOptions = {},
): Promise<Page<TaskStateEntry>> {
  const res = await api.send({
    method: "GET",
    path: taskBase(ti),
    query: { map_index: mapIndexOf(ti), ...pageQuery(params) },
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  return toPage<TaskStateEntry>(parseJson(res), "task_state_store", params.offset ?? 0, res);
}

/** `GET …/state-store/{key}` — NotFoundError when the key is absent. */
export async function getTaskStateEntry(
  api: ApiCaller,
  ti: TaskInstanceRef,
  key: string,
  options: RequestOptions = {},
): Promise<TaskStateEntry> {
  const res = await api.send({
    method: "GET",
    path: `${taskBase(ti)}/${seg(checkKey(key))}`,
    query: { map_index: mapIndexOf(ti) },
    ...options,
  });
  return entryOf<TaskStateEntry>(res);
}

export interface PutTaskStateOptions extends RequestOptions {
  /** `"default"` (the default), `null` = never, or an aware date-time. */
  expiresAt?: ExpiresAtInput;
}

/** `PUT …/state-store/{key}` — creates or replaces the entry (204). NotFoundError for an unknown task instance. */
export async function putTaskStateEntry(
  api: ApiCaller,
  ti: TaskInstanceRef,
  key: string,
  value: unknown,
  options: PutTaskStateOptions = {},
): Promise<void> {
  const path = `${taskBase(ti)}/${seg(checkKey(key))}`;
  const mapIndex = mapIndexOf(ti);
  checkStateValue(value, { maxLength: api.maxValueLength });
  const expiresAt = normalizeExpiresAt(options.expiresAt);
  await api.ignoreBody({
    method: "PUT",
    path,
    query: { map_index: mapIndex },
    json: { value, expires_at: expiresAt },
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
}

/** `PATCH …/state-store/{key}` — replaces the value, keeps `expires_at`. NotFoundError when the key is absent. */
export async function patchTaskStateEntry(
  api: ApiCaller,
  ti: TaskInstanceRef,
  key: string,
  value: unknown,
  options: RequestOptions = {},
): Promise<void> {
  const path = `${taskBase(ti)}/${seg(checkKey(key))}`;
  const mapIndex = mapIndexOf(ti);
  checkStateValue(value, { maxLength: api.maxValueLength });
  await api.ignoreBody({ method: "PATCH", path, query: { map_index: mapIndex }, json: { value }, ...options });
}

/** `DELETE …/state-store/{key}` — no-op when the key is absent. */
export async function deleteTaskStateEntry(
  api: ApiCaller,
  ti: TaskInstanceRef,
  key: string,
  options: RequestOptions = {},
): Promise<void> {
  await api.ignoreBody({
    method: "DELETE",
    path: `${taskBase(ti)}/${seg(checkKey(key))}`,
    query: { map_index: mapIndexOf(ti) },
    ...options,
  });
}

export interface ClearTaskStateOptions extends RequestOptions {
  /** Clear every map index of the task, not only `ti.mapIndex`. */
  allMapIndices?: boolean;
}

/** `DELETE …/state-store` — removes every entry of the task instance (or of all its map indices). */
export async function clearTaskStateStore(api: ApiCaller, ti: TaskInstanceRef, options: ClearTaskStateOptions = {}): Promise<void> {
  await api.ignoreBody({
    method: "DELETE",
    path: taskBase(ti),
    query: { map_index: mapIndexOf(ti), all_map_indices: options.allMapIndices ? true : undefined },
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
}

// ---- asset state store ------------------------------------------------------------------------

function assetBase(assetId: number): string {
  if (!Number.isSafeInteger(assetId)) {
    throw new ValueValidationError("parameter", `The asset id must be an integer, got ${String(assetId)}.`);
  }
  return `/api/v2/assets/${seg(assetId)}/state-store`;
}

/** `GET /api/v2/assets/{id}/state-store` — NotFoundError for an unknown asset. */
export async function listAssetStateEntries(
  api: ApiCaller,
  assetId: number,
  params: PageParams & RequestOptions = {},
): Promise<Page<AssetStateEntry>> {
  const res = await api.send({
    method: "GET",
    path: assetBase(assetId),
    query: pageQuery(params),
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  return toPage<AssetStateEntry>(parseJson(res), "asset_state_store", params.offset ?? 0, res);
}

/** `GET /api/v2/assets/{id}/state-store/{key}` */
export async function getAssetStateEntry(api: ApiCaller, assetId: number, key: string, options: RequestOptions = {}): Promise<AssetStateEntry> {
  const res = await api.send({ method: "GET", path: `${assetBase(assetId)}/${seg(checkKey(key))}`, ...options });
  return entryOf<AssetStateEntry>(res);
}

/** `PUT /api/v2/assets/{id}/state-store/{key}` — body `{"value": …}` only (assets have no expiry). */
export async function putAssetStateEntry(
  api: ApiCaller,
  assetId: number,
  key: string,
  value: unknown,
  options: RequestOptions = {},
): Promise<void> {
  const path = `${assetBase(assetId)}/${seg(checkKey(key))}`;
  checkStateValue(value, { maxLength: api.maxValueLength });
  await api.ignoreBody({ method: "PUT", path, json: { value }, ...options });
}

/** `DELETE /api/v2/assets/{id}/state-store/{key}` — no-op when the key is absent. */
export async function deleteAssetStateEntry(api: ApiCaller, assetId: number, key: string, options: RequestOptions = {}): Promise<void> {
  await api.ignoreBody({ method: "DELETE", path: `${assetBase(assetId)}/${seg(checkKey(key))}`, ...options });
}

/** `DELETE /api/v2/assets/{id}/state-store` — removes every entry of the asset. */
export async function clearAssetStateStore(api: ApiCaller, assetId: number, options: RequestOptions = {}): Promise<void> {
  await api.ignoreBody({ method: "DELETE", path: assetBase(assetId), ...options });
}

function entryOf<T extends { key: string }>(res: HttpResponse): T {
  const body = parseJson(res) as T | null;
  if (!body || typeof body !== "object" || typeof body.key !== "string" || !("value" in body)) {
    throw new InvalidResponseError(`Airflow's answer to ${res.method} ${res.target} is not a state store entry`, res.status, res.text);
  }
  return body;
}
