/**
 * Task and asset state store endpoints (state-store.md §7). Values, keys and expiries are checked
 * before anything is sent; keys are percent-encoded as one segment (they may contain `/`).
 */
import { ApiCaller, seg } from "./caller";
import { InvalidResponseError, NotFoundError, ValueValidationError } from "./errors";
import { parseJsonLossless, type HttpResponse } from "./http";
import { withPlainNumbers } from "./json";
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
  return entriesPage<TaskStateEntry>(res, "task_state_store", params.offset ?? 0);
}

/** `GET …/state-store/{key}` — NotFoundError when the key is absent (or its task instance does not exist). */
export async function getTaskStateEntry(
  api: ApiCaller,
  ti: TaskInstanceRef,
  key: string,
  options: RequestOptions = {},
): Promise<TaskStateEntry> {
  const path = `${taskBase(ti)}/${seg(checkKey(key))}`;
  const mapIndex = mapIndexOf(ti);
  try {
    return entryOf<TaskStateEntry>(await api.send({ method: "GET", path, query: { map_index: mapIndex }, ...options }));
  } catch (err) {
    throw absentKey(err, ti, key);
  }
}

/** `dag_id="…", run_id="…", task_id="…"[, map_index=N]`: a task instance as a message names it. */
export function taskInstanceText(ti: TaskInstanceRef): string {
  const mapIndex = ti.mapIndex ?? -1;
  return `dag_id=${JSON.stringify(ti.dagId)}, run_id=${JSON.stringify(ti.runId)}, task_id=${JSON.stringify(ti.taskId)}${mapIndex >= 0 ? `, map_index=${mapIndex}` : ""}`;
}

/**
 * Airflow's routes for one key do not look the task instance up: a key of a DAG, run or task
 * instance that does not exist is answered like an absent key. The message says both.
 */
function absentKey(err: unknown, ti: TaskInstanceRef, key: string): unknown {
  if (!(err instanceof NotFoundError) || /task instance not found/i.test(err.detail)) return err;
  return new NotFoundError(
    err.status,
    err.rawDetail,
    err.method,
    err.path,
    `No key ${JSON.stringify(key)} in the task state store of ${taskInstanceText(ti)}. ` +
      `Airflow answers the same when that task instance does not exist (unknown DAG, run or task, or another map index), so check it too.`,
  );
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
  try {
    await api.ignoreBody({ method: "PATCH", path, query: { map_index: mapIndex }, json: { value }, ...options });
  } catch (err) {
    throw absentKey(err, ti, key);
  }
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
  return entriesPage<AssetStateEntry>(res, "asset_state_store", params.offset ?? 0);
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
  const entry = readEntry<T>(parseJsonLossless(res));
  if (!entry) {
    throw new InvalidResponseError(`Airflow's answer to ${res.method} ${res.target} is not a state store entry`, res.status, res.text);
  }
  return entry;
}

function entriesPage<T extends { key: string }>(res: HttpResponse, field: string, offset: number): Page<T> {
  const body = parseJsonLossless(res);
  if (!body || typeof body !== "object") return toPage<T>(body, field, offset, res);
  const list = (body as Record<string, unknown>)[field];
  const entries = Array.isArray(list) ? list.map((item) => readEntry<T>(item)) : undefined;
  if (entries?.some((e) => e === undefined)) {
    throw new InvalidResponseError(`Airflow's answer to ${res.method} ${res.target} lists something that is not a state store entry`, res.status, res.text);
  }
  const { [field]: _items, ...rest } = body as Record<string, unknown>;
  return toPage<T>({ ...(withPlainNumbers(rest) as object), [field]: entries }, field, offset, res);
}

/** An entry whose value keeps its numbers' exact text; the fields around it get plain numbers. */
function readEntry<T extends { key: string }>(item: unknown): T | undefined {
  if (!item || typeof item !== "object" || Array.isArray(item)) return undefined;
  const { value, ...rest } = item as Record<string, unknown>;
  if (typeof rest.key !== "string" || !("value" in item)) return undefined;
  return { ...(withPlainNumbers(rest) as object), value } as unknown as T;
}
