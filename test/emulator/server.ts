/**
 * An Airflow 3.3 REST API emulator (the subset in state-store.md §7) on node:http.
 *
 *   const emu = await startEmulator();            // 127.0.0.1, a free port, demo data
 *   emu.url                                        // http://127.0.0.1:PORT
 *   emu.setFault({ type: "delay", ms: 200 }, { path: /state-store/ });
 *   await emu.close();
 *
 * Order of checks follows FastAPI: undecodable JSON body (422) → authentication (401) →
 * permission (403) → path/query parameters (422) → existence dependencies (404) → body (422) →
 * the handler (404 for an absent key, 2xx).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { PyFloat, pyJsonDumps, pyJsonLoads, PyJsonDecodeError, PyRecursionError, type PyJson } from "./pyjson";
import { seedDemo } from "./seed";
import { EmulatorState, writer, type EmulatorConfig, type RecordedRequest, type TaskScope, type TaskStateRow, type AssetStateRow } from "./state";
import { DEFAULT_API_TOKENS, DEFAULT_USERS, TokenIssuer, type EmulatorUser } from "./tokens";
import {
  checkBodyFields,
  issue,
  parseBoolParam,
  parseExpiresAt,
  parseIntParam,
  pyRepr,
  validateValue,
  type Issue,
} from "./validation";

export interface EmulatorOptions extends Partial<EmulatorConfig> {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** `"demo"` (default), `"empty"`, or a function that fills the state. */
  seed?: "demo" | "empty" | ((state: EmulatorState) => void);
  users?: EmulatorUser[];
  /** Long-lived bearer tokens → username (default: emulator-admin-token, emulator-viewer-token). */
  apiTokens?: Record<string, string>;
  /** Clock (tests of expiry). */
  now?: () => Date;
}

export type FaultMode =
  /** Wait before handling the request normally. */
  | { type: "delay"; ms: number }
  /** Answer with this status (default 500) and `{"detail": ...}` without handling the request. */
  | { type: "status"; status?: number; detail?: unknown }
  /** Reset the TCP connection without answering. */
  | { type: "reset" }
  /**
   * Close the connection without answering, as a kept-alive connection to an Airflow that has
   * restarted meanwhile does (the client sees `UND_ERR_SOCKET`, "other side closed").
   */
  | { type: "close" }
  /** Answer with this status (default 502) and an HTML error page, as a proxy in front of Airflow does. */
  | { type: "html"; status?: number }
  /** Answer with this status (default 200), a JSON content type and a truncated JSON body. */
  | { type: "malformed"; status?: number };

export interface FaultMatch {
  /** Decoded request path: a string matches that path and everything below it; or a RegExp. */
  path?: string | RegExp;
  method?: string;
  /** Apply to this many requests, then disappear (default: until cleared). */
  times?: number;
}

export interface EmulatorHandle {
  url: string;
  host: string;
  port: number;
  state: EmulatorState;
  users: EmulatorUser[];
  apiTokens: Record<string, string>;
  /** Adds a fault rule; `null` removes every rule. Delays add up; the first other matching rule wins. */
  setFault(mode: FaultMode | null, match?: FaultMatch): void;
  clearFaults(): void;
  /** Every token issued so far by `POST /auth/token` is expired from now on. */
  expireTokens(): void;
  /** A new JWT signing key (Airflow's JWT secret changed): tokens issued so far are answered 403 "Invalid JWT token". */
  rotateJwtSecret(): void;
  /** A valid session token for a user, without a request. */
  issueToken(username: string): string;
  /** Requests received (same array as `state.requests`). */
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  close(): Promise<void>;
}

interface FaultRule {
  mode: FaultMode;
  match: FaultMatch;
  remaining: number;
}

interface Reply {
  status: number;
  /** JSON body; undefined = no body. */
  body?: unknown;
  /** Raw body text instead of JSON. */
  raw?: string;
}

interface Ctx {
  method: string;
  path: string;
  query: URLSearchParams;
  hasBody: boolean;
  body: PyJson | undefined;
  contentType: string;
  bodyText: string;
  authorization: string | undefined;
}

const json = (status: number, body: unknown): Reply => ({ status, body });
const detail = (status: number, text: unknown): Reply => ({ status, body: { detail: text } });
const unprocessable = (issues: Issue[]): Reply => ({ status: 422, body: { detail: issues } });
const noContent = (): Reply => ({ status: 204 });

/** A value's JSON text, placed into a response as it is (Python ints and floats keep their text). */
class RawJson {
  constructor(readonly text: string) {}
}

/** The stored JSON text of a value as the API answers it: parsed as Python does and written the way Starlette writes responses. */
function storedValue(dbText: string): RawJson {
  return new RawJson(pyJsonDumps(pyJsonLoads(dbText), { compact: true, allowNan: true }));
}

/**
 * A response body as JSON text. Values are RawJson (their text as stored); Python ints and floats
 * that a request echoes back (in a 422's `input`) are written as numbers.
 */
function responseJson(body: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(body, (_key, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u0000raw:${raws.length - 1}`;
    }
    if (typeof v === "bigint") {
      raws.push(v.toString());
      return `\u0000raw:${raws.length - 1}`;
    }
    if (v instanceof PyFloat) return Number.isFinite(v.value) ? v.value : null;
    return v;
  });
  return raws.length === 0 ? text : text.replace(/"\\u0000raw:(\d+)"/g, (_, i: string) => raws[Number(i)]);
}

/** Python's unquote(): percent-decodes UTF-8, invalid sequences become U+FFFD. */
function unquote(raw: string): string {
  return raw.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ""), "hex").toString("utf8"));
}

const ROUTES = {
  token: /^\/auth\/token$/,
  version: /^\/api\/v2\/version$/,
  dags: /^\/api\/v2\/dags$/,
  runs: /^\/api\/v2\/dags\/([^/]+)\/dagRuns$/,
  tis: /^\/api\/v2\/dags\/([^/]+)\/dagRuns\/([^/]+)\/taskInstances$/,
  taskStore: /^\/api\/v2\/dags\/([^/]+)\/dagRuns\/([^/]+)\/taskInstances\/([^/]+)\/state-store(?:\/([\s\S]*))?$/,
  assets: /^\/api\/v2\/assets$/,
  assetStore: /^\/api\/v2\/assets\/([^/]+)\/state-store(?:\/([\s\S]*))?$/,
};

const WRITE_METHODS = new Set(["PUT", "PATCH", "DELETE", "POST"]);

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const { host = "127.0.0.1", port = 0, seed = "demo", users, apiTokens, now, ...config } = options;
  const state = new EmulatorState(config, now);
  if (seed === "demo") seedDemo(state);
  else if (typeof seed === "function") seed(state);

  const userList = users ?? DEFAULT_USERS.map((u) => ({ ...u }));
  const tokenMap = apiTokens ?? { ...DEFAULT_API_TOKENS };
  const tokens = new TokenIssuer(userList, tokenMap, () => state.config.tokenTtlMs, state.now);
  let faults: FaultRule[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let closing = false;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      timers.add(entry);
    });
  }

  function matches(rule: FaultRule, method: string, path: string): boolean {
    const { match } = rule;
    if (match.method && match.method.toUpperCase() !== method) return false;
    if (match.path instanceof RegExp) return match.path.test(path);
    if (typeof match.path === "string") return path === match.path || path.startsWith(match.path.endsWith("/") ? match.path : match.path + "/");
    return true;
  }

  function takeFaults(method: string, path: string): { delayMs: number; fault: FaultMode | undefined } {
    let delayMs = 0;
    let fault: FaultMode | undefined;
    for (const rule of faults) {
      if (!matches(rule, method, path)) continue;
      if (rule.mode.type === "delay") {
        delayMs += rule.mode.ms;
        rule.remaining--;
      } else if (!fault) {
        fault = rule.mode;
        rule.remaining--;
      }
    }
    faults = faults.filter((r) => r.remaining > 0);
    return { delayMs, fault };
  }

  const server = http.createServer((req, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on("close", () => {
      state.inFlight--;
    });
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) write(res, detail(500, `Emulator error: ${err instanceof Error ? err.message : String(err)}`));
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bodyText = Buffer.concat(chunks).toString("utf8");
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const rawPath = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
    const query = new URLSearchParams(q >= 0 ? rawUrl.slice(q + 1) : "");
    const path = unquote(rawPath);
    const method = (req.method ?? "GET").toUpperCase();
    const authorization = req.headers.authorization;
    state.requests.push({ method, path, rawPath, query, authorization, body: bodyText, at: state.now() });

    const { delayMs, fault } = takeFaults(method, path);
    if (delayMs > 0) await sleep(delayMs);
    if (closing || res.destroyed) return;
    if (fault) {
      switch (fault.type) {
        case "reset":
          if (typeof req.socket.resetAndDestroy === "function") req.socket.resetAndDestroy();
          else req.socket.destroy();
          return;
        case "close":
          req.socket.destroy();
          return;
        case "status":
          write(res, detail(fault.status ?? 500, fault.detail ?? "Internal Server Error"));
          return;
        case "html": {
          const status = fault.status ?? 502;
          const page = `<html>\r\n<head><title>${status} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>${status} Bad Gateway</h1></center>\r\n<hr><center>nginx/1.27.4</center>\r\n</body>\r\n</html>\r\n`;
          res.writeHead(status, { "Content-Type": "text/html", "Content-Length": Buffer.byteLength(page) });
          res.end(page);
          return;
        }
        case "malformed":
          write(res, { status: fault.status ?? 200, raw: '{"total_entries": 3, "items": [{"key": "cur' });
          return;
        default:
          break;
      }
    }
    const ctx: Ctx = {
      method,
      path,
      query,
      hasBody: bodyText.length > 0,
      body: undefined,
      contentType: String(req.headers["content-type"] ?? ""),
      bodyText,
      authorization,
    };
    write(res, route(ctx));
  }

  function write(res: http.ServerResponse, reply: Reply): void {
    if (res.destroyed || res.writableEnded) return;
    if (reply.status === 204 || (reply.body === undefined && reply.raw === undefined)) {
      res.writeHead(reply.status);
      res.end();
      return;
    }
    const text = reply.raw ?? responseJson(reply.body);
    res.writeHead(reply.status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
    res.end(text);
  }

  // ---- routing ----

  function route(ctx: Ctx): Reply {
    const { path } = ctx;
    let m: RegExpExecArray | null;
    if (ROUTES.token.test(path)) return only(ctx, ["POST"], () => login(ctx));
    if (ROUTES.version.test(path)) return only(ctx, ["GET"], () => json(200, { version: state.config.version, git_version: `.release:${state.config.version}` }));
    if (ROUTES.dags.test(path)) return only(ctx, ["GET"], () => authed(ctx, () => listDags(ctx)));
    if ((m = ROUTES.runs.exec(path))) {
      const dagId = m[1];
      return only(ctx, ["GET"], () => authed(ctx, () => listRuns(ctx, dagId)));
    }
    if ((m = ROUTES.tis.exec(path))) {
      const [, dagId, runId] = m;
      return only(ctx, ["GET"], () => authed(ctx, () => listTaskInstances(ctx, dagId, runId)));
    }
    if ((m = ROUTES.taskStore.exec(path))) {
      const [, dagId, runId, taskId, key] = m;
      const allowed = key === undefined ? ["GET", "DELETE"] : ["GET", "PUT", "PATCH", "DELETE"];
      return only(ctx, allowed, () => authed(ctx, () => taskStore(ctx, dagId, runId, taskId, key)));
    }
    if (ROUTES.assets.test(path)) return only(ctx, ["GET"], () => authed(ctx, () => listAssets(ctx)));
    if ((m = ROUTES.assetStore.exec(path))) {
      const [, assetId, key] = m;
      const allowed = key === undefined ? ["GET", "DELETE"] : ["GET", "PUT", "DELETE"];
      return only(ctx, allowed, () => authed(ctx, () => assetStore(ctx, assetId, key)));
    }
    return detail(404, "Not Found");
  }

  function only(ctx: Ctx, methods: string[], next: () => Reply): Reply {
    if (!methods.includes(ctx.method)) return detail(405, "Method Not Allowed");
    if ((ctx.method === "PUT" || ctx.method === "PATCH" || ctx.method === "POST") && ctx.hasBody) {
      if (ctx.path === "/auth/token" && ctx.contentType.includes("application/x-www-form-urlencoded")) {
        ctx.body = Object.fromEntries(new URLSearchParams(ctx.bodyText));
      } else {
        try {
          ctx.body = pyJsonLoads(ctx.bodyText);
        } catch (err) {
          // FastAPI turns any failure of json.loads other than a JSONDecodeError into this 400.
          if (err instanceof PyRecursionError) return detail(400, "There was an error parsing the body");
          const pos = err instanceof PyJsonDecodeError ? err.pos : 0;
          return unprocessable([issue("json_invalid", ["body", pos], "JSON decode error", { input: {}, ctx: { error: "Expecting value" } })]);
        }
      }
    }
    return next();
  }

  /**
   * 401 without a token or with an expired one, 403 "Invalid JWT token" for one that does not
   * verify (state-store.md §7), 403 "Forbidden" for a read-only user writing.
   */
  function authed(ctx: Ctx, next: (user: EmulatorUser) => Reply): Reply {
    const check = tokens.check(ctx.authorization);
    if (!check.ok) {
      if (check.reason === "invalid") return detail(403, "Invalid JWT token");
      return detail(401, check.reason === "missing" ? "Not authenticated" : "Token Expired");
    }
    if (WRITE_METHODS.has(ctx.method) && check.user.role !== "admin") return detail(403, "Forbidden");
    return next(check.user);
  }

  function login(ctx: Ctx): Reply {
    const body = ctx.body as Record<string, unknown> | undefined;
    const issues: Issue[] = [];
    if (!ctx.hasBody || typeof body !== "object" || body === null || Array.isArray(body)) {
      issues.push(issue("missing", ["body"], "Field required", { input: null }));
    } else {
      for (const field of ["username", "password"]) {
        if (typeof body[field] !== "string") issues.push(issue("missing", ["body", field], "Field required", { input: body }));
      }
    }
    if (issues.length) return unprocessable(issues);
    if (!body!.username || !body!.password) return detail(400, "Username and password must be provided");
    const user = tokens.authenticate(body!.username, body!.password);
    if (!user) return detail(401, "Invalid credentials");
    return json(201, { access_token: tokens.issue(user) });
  }

  // ---- paging and ordering ----

  function page<T>(ctx: Ctx, items: T[], issues: Issue[]): { items: T[]; total: number } | undefined {
    const limit = parseIntParam(ctx.query.get("limit"), ["query", "limit"], { default: state.config.fallbackPageLimit, min: 0 }, issues);
    const offset = parseIntParam(ctx.query.get("offset"), ["query", "offset"], { default: 0, min: 0 }, issues);
    if (issues.length) return undefined;
    const effective = Math.min(limit, state.config.maximumPageLimit);
    return { items: items.slice(offset, offset + effective), total: items.length };
  }

  function ordered<T extends Record<string, unknown>>(items: T[], orderBy: string | null, fallback: string[]): T[] | Reply {
    const fields = orderBy ? [orderBy] : fallback;
    const sample = items[0];
    for (const f of fields) {
      const name = f.replace(/^-/, "");
      if (orderBy && sample && !(name in sample)) {
        return detail(400, `Ordering with '${name}' is disallowed or the attribute does not exist on the model`);
      }
    }
    return [...items].sort((a, b) => {
      for (const f of fields) {
        const desc = f.startsWith("-");
        const name = f.replace(/^-/, "");
        const c = compare(a[name], b[name]);
        if (c !== 0) return desc ? -c : c;
      }
      return 0;
    });
  }

  function compare(a: unknown, b: unknown): number {
    if (a === b) return 0;
    if (a === null || a === undefined) return -1;
    if (b === null || b === undefined) return 1;
    return (a as number | string) < (b as number | string) ? -1 : 1;
  }

  function likePattern(pattern: string): RegExp {
    const body = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/%/g, ".*").replace(/_/g, ".");
    return new RegExp(`^.*${body}.*$`, "is");
  }

  // ---- browsing ----

  function listDags(ctx: Ctx): Reply {
    const issues: Issue[] = [];
    const paused = parseBoolParam(ctx.query.get("paused"), ["query", "paused"], undefined, issues);
    const pattern = ctx.query.get("dag_id_pattern");
    let dags = state.dags.filter((d) => (paused === undefined || d.is_paused === paused) && (!pattern || likePattern(pattern).test(d.dag_id)));
    const sorted = ordered(dags, ctx.query.get("order_by"), ["dag_id"]);
    if (!Array.isArray(sorted)) return sorted;
    dags = sorted;
    const p = page(ctx, dags, issues);
    if (!p) return unprocessable(issues);
    return json(200, { dags: p.items, total_entries: p.total });
  }

  function listRuns(ctx: Ctx, dagId: string): Reply {
    if (!state.findDag(dagId)) return detail(404, `The DAG with dag_id: \`${dagId}\` was not found`);
    const states = ctx.query.getAll("state");
    const runs = state.dagRuns.filter((r) => r.dag_id === dagId && (states.length === 0 || states.includes(r.state)));
    const sorted = ordered(runs, ctx.query.get("order_by"), []);
    if (!Array.isArray(sorted)) return sorted;
    const issues: Issue[] = [];
    const p = page(ctx, sorted, issues);
    if (!p) return unprocessable(issues);
    return json(200, { dag_runs: p.items, total_entries: p.total });
  }

  function listTaskInstances(ctx: Ctx, dagId: string, runId: string): Reply {
    if (!state.findDag(dagId)) return detail(404, `The DAG with dag_id: \`${dagId}\` was not found`);
    if (!state.findRun(dagId, runId)) return detail(404, `The DagRun with dag_id: \`${dagId}\` and run_id: \`${runId}\` was not found`);
    const tis = state.taskInstances.filter((t) => t.dag_id === dagId && t.dag_run_id === runId);
    const sorted = ordered(tis, ctx.query.get("order_by"), []);
    if (!Array.isArray(sorted)) return sorted;
    const issues: Issue[] = [];
    const p = page(ctx, sorted, issues);
    if (!p) return unprocessable(issues);
    return json(200, { task_instances: p.items, total_entries: p.total });
  }

  function listAssets(ctx: Ctx): Reply {
    const name = ctx.query.get("name_pattern");
    const uri = ctx.query.get("uri_pattern");
    const assets = state.assets.filter((a) => (!name || likePattern(name).test(a.name)) && (!uri || likePattern(uri).test(a.uri)));
    const sorted = ordered(assets, ctx.query.get("order_by"), ["id"]);
    if (!Array.isArray(sorted)) return sorted;
    const issues: Issue[] = [];
    const p = page(ctx, sorted, issues);
    if (!p) return unprocessable(issues);
    return json(200, { assets: p.items, total_entries: p.total });
  }

  // ---- task state store ----

  function taskEntry(row: TaskStateRow): Record<string, unknown> {
    return { key: row.key, value: storedValue(row.value), updated_at: row.updated_at.toISOString(), expires_at: row.expires_at ? row.expires_at.toISOString() : null };
  }

  function tiNotFound(scope: TaskScope, anyIndex: boolean): Reply {
    const by = anyIndex ? "all_map_indices=True" : `map_index=${scope.map_index}`;
    return detail(
      404,
      `Task instance not found for dag_id=${pyRepr(scope.dag_id)}, run_id=${pyRepr(scope.run_id)}, task_id=${pyRepr(scope.task_id)}, ${by}`,
    );
  }

  function taskStore(ctx: Ctx, dagId: string, runId: string, taskId: string, key: string | undefined): Reply {
    const issues: Issue[] = [];
    const mapIndex = parseIntParam(ctx.query.get("map_index"), ["query", "map_index"], { default: -1, min: -1 }, issues);
    const scope: TaskScope = { dag_id: dagId, run_id: runId, task_id: taskId, map_index: mapIndex };
    const tiExists = (anyIndex: boolean) => state.findTaskInstance(dagId, runId, taskId, anyIndex ? null : mapIndex) !== undefined;

    if (key === undefined) {
      if (ctx.method === "GET") {
        const p = page(ctx, issues.length ? [] : state.taskEntries(scope), issues);
        if (!p) return unprocessable(issues);
        return json(200, { task_state_store: p.items.map(taskEntry), total_entries: p.total });
      }
      // DELETE: clear
      const all = parseBoolParam(ctx.query.get("all_map_indices"), ["query", "all_map_indices"], false, issues) ?? false;
      if (issues.length) return unprocessable(issues);
      if (!tiExists(all)) return tiNotFound(scope, all);
      state.clearTaskEntries(scope, all);
      return noContent();
    }

    switch (ctx.method) {
      case "GET": {
        if (issues.length) return unprocessable(issues);
        const row = state.getTaskEntry(scope, key);
        if (!row) return detail(404, `Task state store key ${pyRepr(key)} not found`);
        return json(200, taskEntry(row));
      }
      case "PUT": {
        if (!issues.length && !tiExists(false)) return tiNotFound(scope, false);
        const body = ctx.body;
        let expires = parseExpiresAt(undefined, false, []);
        if (checkBodyFields(body, ctx.hasBody, ["value", "expires_at"], issues)) {
          if ("value" in body) {
            const problem = validateValue(body.value, state.config);
            if (problem) issues.push(problem);
          }
          expires = parseExpiresAt(body.expires_at, "expires_at" in body, issues);
        }
        if (issues.length) return unprocessable(issues);
        let expiresAt: Date | null;
        if (expires.kind === "default") {
          const days = state.config.defaultRetentionDays;
          if (days < 0) {
            return detail(400, `[state_store] default_retention_days must be >= 0, got ${days}. Set to 0 to disable expiry.`);
          }
          expiresAt = days === 0 ? null : new Date(state.now().getTime() + days * 86_400_000);
        } else {
          expiresAt = expires.kind === "never" ? null : expires.date;
        }
        state.setTaskEntry(scope, key, (body as Record<string, PyJson>).value, { expiresAt });
        return noContent();
      }
      case "PATCH": {
        if (!issues.length && !tiExists(false)) return tiNotFound(scope, false);
        const body = ctx.body;
        if (checkBodyFields(body, ctx.hasBody, ["value"], issues) && "value" in body) {
          const problem = validateValue(body.value, state.config);
          if (problem) issues.push(problem);
        }
        if (issues.length) return unprocessable(issues);
        const existing = state.getTaskEntry(scope, key);
        if (!existing) return detail(404, `Task state store key ${pyRepr(key)} not found`);
        state.setTaskEntry(scope, key, (body as Record<string, PyJson>).value, { expiresAt: existing.expires_at });
        return json(200, null);
      }
      default: {
        // DELETE one key: no-op when absent
        if (issues.length) return unprocessable(issues);
        if (!tiExists(false)) return tiNotFound(scope, false);
        state.deleteTaskEntry(scope, key);
        return noContent();
      }
    }
  }

  // ---- asset state store ----

  function assetEntry(row: AssetStateRow): Record<string, unknown> {
    return { key: row.key, value: storedValue(row.value), updated_at: row.updated_at.toISOString(), last_updated_by: row.last_updated_by };
  }

  function assetStore(ctx: Ctx, rawId: string, key: string | undefined): Reply {
    const issues: Issue[] = [];
    const assetId = parseIntParam(rawId, ["path", "asset_id"], {}, issues);
    if (!issues.length && !state.findAsset(assetId)) return detail(404, `Asset with id ${assetId} not found`);

    if (key === undefined) {
      if (ctx.method === "GET") {
        const p = page(ctx, issues.length ? [] : state.assetEntries(assetId), issues);
        if (!p) return unprocessable(issues);
        return json(200, { asset_state_store: p.items.map(assetEntry), total_entries: p.total });
      }
      if (issues.length) return unprocessable(issues);
      state.clearAssetEntries(assetId);
      return noContent();
    }

    switch (ctx.method) {
      case "GET": {
        if (issues.length) return unprocessable(issues);
        const row = state.getAssetEntry(assetId, key);
        if (!row) return detail(404, `Asset state store key ${pyRepr(key)} not found`);
        return json(200, assetEntry(row));
      }
      case "PUT": {
        const body = ctx.body;
        if (checkBodyFields(body, ctx.hasBody, ["value"], issues) && "value" in body) {
          const problem = validateValue(body.value, state.config);
          if (problem) issues.push(problem);
        }
        if (issues.length) return unprocessable(issues);
        state.setAssetEntry(assetId, key, (body as Record<string, PyJson>).value, writer("api"));
        return noContent();
      }
      default: {
        if (issues.length) return unprocessable(issues);
        state.deleteAssetEntry(assetId, key);
        return noContent();
      }
    }
  }

  // ---- start ----

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    state,
    users: userList,
    apiTokens: tokenMap,
    setFault(mode, match = {}) {
      if (mode === null) {
        faults = [];
        return;
      }
      faults.push({ mode, match, remaining: match.times ?? Infinity });
    },
    clearFaults() {
      faults = [];
    },
    expireTokens() {
      tokens.expireAll();
    },
    rotateJwtSecret() {
      tokens.rotateSecret();
    },
    issueToken(username) {
      const user = tokens.findUser(username);
      if (!user) throw new Error(`No emulator user ${username}`);
      return tokens.issue(user);
    },
    get requests() {
      return state.requests;
    },
    clearRequests() {
      state.resetStats();
    },
    close() {
      closing = true;
      for (const t of timers) {
        clearTimeout(t.timer);
        t.resolve();
      }
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
