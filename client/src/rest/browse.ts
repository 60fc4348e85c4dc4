/** Read-only browsing: version, DAGs, DAG runs, task instances, assets. */
import { ApiCaller, seg } from "./caller";
import { InvalidResponseError } from "./errors";
import { parseJson } from "./http";
import { pageQuery, toPage } from "./paging";
import type {
  Asset,
  Dag,
  DagRun,
  ListAssetsParams,
  ListDagRunsParams,
  ListDagsParams,
  ListTaskInstancesParams,
  Page,
  RequestOptions,
  TaskInstance,
  VersionInfo,
} from "./types";

/** `GET /api/v2/version` (no authentication needed). */
export async function getVersion(api: ApiCaller, options: RequestOptions = {}): Promise<VersionInfo> {
  const res = await api.send({ method: "GET", path: "/api/v2/version", authenticated: false, ...options });
  const body = parseJson(res) as VersionInfo | null;
  if (!body || typeof body !== "object" || typeof body.version !== "string") {
    throw new InvalidResponseError("GET /api/v2/version answered without a version", res.status, res.text);
  }
  return body;
}

/** True when the version has the state store REST API (Airflow ≥ 3.3). */
export function supportsStateStore(version: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major > 3 || (major === 3 && minor >= 3);
}

/** `GET /api/v2/dags` */
export async function listDags(api: ApiCaller, params: ListDagsParams & RequestOptions = {}): Promise<Page<Dag>> {
  const res = await api.send({
    method: "GET",
    path: "/api/v2/dags",
    query: { ...pageQuery(params), dag_id_pattern: params.dagIdPattern, paused: params.paused, order_by: params.orderBy },
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  return toPage<Dag>(parseJson(res), "dags", params.offset ?? 0, res);
}

/** `GET /api/v2/dags/{dag_id}/dagRuns` */
export async function listDagRuns(api: ApiCaller, dagId: string, params: ListDagRunsParams & RequestOptions = {}): Promise<Page<DagRun>> {
  const res = await api.send({
    method: "GET",
    path: `/api/v2/dags/${seg(dagId)}/dagRuns`,
    query: { ...pageQuery(params), order_by: params.orderBy, state: params.state },
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  return toPage<DagRun>(parseJson(res), "dag_runs", params.offset ?? 0, res);
}

/** `GET /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances` — mapped tasks appear once per map index. */
export async function listTaskInstances(
  api: ApiCaller,
  dagId: string,
  runId: string,
  params: ListTaskInstancesParams & RequestOptions = {},
): Promise<Page<TaskInstance>> {
  const res = await api.send({
    method: "GET",
    path: `/api/v2/dags/${seg(dagId)}/dagRuns/${seg(runId)}/taskInstances`,
    query: { ...pageQuery(params), order_by: params.orderBy },
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  return toPage<TaskInstance>(parseJson(res), "task_instances", params.offset ?? 0, res);
}

/** `GET /api/v2/assets` */
export async function listAssets(api: ApiCaller, params: ListAssetsParams & RequestOptions = {}): Promise<Page<Asset>> {
  const res = await api.send({
    method: "GET",
    path: "/api/v2/assets",
    query: { ...pageQuery(params), name_pattern: params.namePattern, order_by: params.orderBy },
    signal: params.signal,
    timeoutMs: params.timeoutMs,
  });
  return toPage<Asset>(parseJson(res), "assets", params.offset ?? 0, res);
}
