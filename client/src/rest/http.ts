/**
 * One HTTP exchange with Airflow: URL building, per-request timeout, cancellation, bounded
 * concurrency, and the mapping of failures and error statuses onto typed errors.
 * Knows nothing about authentication (see auth.ts) or about the API's resources.
 */
import {
  AirflowHttpError,
  CancelledError,
  ForbiddenError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  TimeoutError,
  UnprocessableEntityError,
  ValueValidationError,
} from "./errors";
import { JsonTooDeepError, MAX_VALUE_DEPTH, parseLossless, stringifyLossless } from "./json";
import { Semaphore } from "./semaphore";
import type { FetchLike } from "./types";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface HttpRequest {
  method: HttpMethod;
  /** Path below the base URL, already percent-encoded, starting with `/`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Serialised as JSON when present (LosslessNumbers as their exact text). */
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Milliseconds; 0 = none; undefined = the transport's default. */
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  text: string;
  contentType: string;
  /** Method and path+query, for messages. */
  method: string;
  target: string;
}

/** One exchange as a log may show it: no headers and no bodies, so no credential and no value. */
export interface ExchangeRecord {
  method: HttpMethod;
  /** Path and query below the base URL. */
  target: string;
  /** Absent when no response came (no connection, a timeout, a cancellation). */
  status?: number;
  /** From sending (a concurrency slot taken) to the whole body read, or the failure. */
  durationMs: number;
  /** Why no response came. */
  error?: CancelledError | TimeoutError | NetworkError;
}

export type ExchangeObserver = (record: ExchangeRecord) => void;

export interface HttpTransportOptions {
  baseUrl: string;
  timeoutMs?: number;
  maxConcurrency?: number;
  headers?: Record<string, string>;
  fetch?: FetchLike;
  /** Told of every exchange once it ends (the extension's log). */
  onExchange?: ExchangeObserver;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONCURRENCY = 4;

export class HttpTransport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  private readonly semaphore: Semaphore;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: FetchLike;
  private readonly onExchange: ExchangeObserver | undefined;

  constructor(options: HttpTransportOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs < 0) {
      throw new ValueValidationError("parameter", `timeoutMs must be ≥ 0, got ${options.timeoutMs}.`);
    }
    const concurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new ValueValidationError("parameter", `maxConcurrency must be an integer ≥ 1, got ${options.maxConcurrency}.`);
    }
    this.semaphore = new Semaphore(concurrency);
    this.headers = { ...(options.headers ?? {}) };
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.onExchange = options.onExchange;
  }

  /** Requests waiting for a free slot. */
  get queued(): number {
    return this.semaphore.pending;
  }

  /** Requests currently on the wire. */
  get inFlight(): number {
    return this.semaphore.inUse;
  }

  /**
   * Sends one request and reads the whole body. Resolves for every HTTP status; rejects only with
   * CancelledError, TimeoutError or NetworkError. The timeout starts once a concurrency slot is taken.
   * An idempotent request whose connection was closed under it is sent once more (see STALE_CONNECTION).
   */
  send(req: HttpRequest): Promise<HttpResponse> {
    return this.semaphore.run(async () => {
      try {
        return await this.observedExchange(req);
      } catch (err) {
        if (!(err instanceof NetworkError) || !err.code || !STALE_CONNECTION.has(err.code) || !IDEMPOTENT.has(req.method)) throw err;
        return this.observedExchange(req);
      }
    }, req.signal);
  }

  /** One exchange, told to the observer (the extension's log) when there is one. */
  private observedExchange(req: HttpRequest): Promise<HttpResponse> {
    return this.onExchange ? this.observed(req, this.onExchange) : this.exchange(req);
  }

  private async observed(req: HttpRequest, observe: ExchangeObserver): Promise<HttpResponse> {
    const started = performance.now();
    const record = (outcome: Pick<ExchangeRecord, "status" | "error">) => {
      try {
        observe({ method: req.method, target: req.path + buildQuery(req.query), durationMs: performance.now() - started, ...outcome });
      } catch {
        // A failing log must not fail the request.
      }
    };
    try {
      const res = await this.exchange(req);
      record({ status: res.status });
      return res;
    } catch (error) {
      record({ error: error as ExchangeRecord["error"] });
      throw error;
    }
  }

  private async exchange(req: HttpRequest): Promise<HttpResponse> {
    const target = req.path + buildQuery(req.query);
    const url = this.baseUrl + target;
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs)
        : undefined;
    const onAbort = () => controller.abort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    const headers: Record<string, string> = { Accept: "application/json", ...this.headers, ...(req.headers ?? {}) };
    let body: string | undefined;
    if (req.json !== undefined) {
      body = stringifyLossless(req.json);
      headers["Content-Type"] = "application/json";
    }
    try {
      if (req.signal?.aborted) throw new CancelledError();
      const res = await this.fetchImpl(url, { method: req.method, headers, body, signal: controller.signal });
      const text = await res.text();
      return { status: res.status, text, contentType: res.headers.get("content-type") ?? "", method: req.method, target };
    } catch (err) {
      if (err instanceof CancelledError || req.signal?.aborted) throw new CancelledError();
      if (timedOut) throw new TimeoutError(timeoutMs, req.method, target);
      throw toNetworkError(err, this.baseUrl, req.method, target);
    } finally {
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    }
  }
}

export function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new ValueValidationError("parameter", `"${baseUrl}" is not a valid URL (expected e.g. http://localhost:8080).`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ValueValidationError("parameter", `The Airflow URL must start with http:// or https://, got "${baseUrl}".`);
  }
  if (url.username || url.password) {
    throw new ValueValidationError("parameter", "The Airflow URL must not contain a username or password; use the authentication settings.");
  }
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/+$/, "");
}

function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Errors of a connection that broke before any answer came: what a kept-alive connection gives
 * when Airflow restarted since its last request. A new connection usually works; the request may
 * have reached the server, so only idempotent ones are sent again.
 */
const STALE_CONNECTION = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
const IDEMPOTENT = new Set<string>(["GET", "PUT", "DELETE"]);

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

function toNetworkError(err: unknown, baseUrl: string, method: string, target: string): NetworkError {
  const code = errorCode(err);
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
  const message =
    code && UNREACHABLE.has(code)
      ? `Cannot reach Airflow at ${baseUrl} (${code})`
      : `The connection to Airflow at ${baseUrl} failed during ${method} ${target} (${code ?? cause})`;
  return new NetworkError(message, code, err);
}

/** Parses a success body as JSON. */
export function parseJson(res: HttpResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw notJson(res);
  }
}

/** Parses a success body keeping each number's exact text (LosslessNumber): for bodies that carry state store values. */
export function parseJsonLossless(res: HttpResponse): unknown {
  try {
    return parseLossless(res.text);
  } catch (err) {
    if (err instanceof JsonTooDeepError) {
      throw new InvalidResponseError(
        `Airflow's answer to ${res.method} ${res.target} holds a value nested deeper than ${MAX_VALUE_DEPTH} levels; it is not read`,
        res.status,
        res.text,
      );
    }
    throw notJson(res);
  }
}

function notJson(res: HttpResponse): InvalidResponseError {
  const html = htmlSummary(res);
  if (html) {
    return new InvalidResponseError(
      `The server answered ${res.method} ${res.target} (status ${res.status}) with ${html}`,
      res.status,
      html,
    );
  }
  return new InvalidResponseError(
    `Airflow sent a response that is not valid JSON for ${res.method} ${res.target} (status ${res.status})`,
    res.status,
    res.text,
  );
}

/** The `detail` of an error body, or the body text when it is not JSON (an HTML page is summarised). */
export function errorDetail(res: HttpResponse): unknown {
  if (!res.text) return undefined;
  try {
    const body = JSON.parse(res.text) as unknown;
    if (body && typeof body === "object" && "detail" in body) return (body as { detail: unknown }).detail;
    return body;
  } catch {
    const html = htmlSummary(res);
    if (html) return html;
    const text = res.text.trim();
    return text.length > 300 ? text.slice(0, 300) + "…" : text;
  }
}

const TITLE_LENGTH = 120;

/**
 * One line for an HTML page where Airflow's JSON was expected (a proxy's error page, a sign-on
 * page): its title, not its markup. Undefined when the body is not HTML.
 */
export function htmlSummary(res: Pick<HttpResponse, "text" | "contentType">): string | undefined {
  const head = res.text.slice(0, 1024).trimStart().toLowerCase();
  const isHtml = res.contentType.toLowerCase().includes("text/html") || head.startsWith("<!doctype html") || head.startsWith("<html");
  if (!isHtml) return undefined;
  const title = elementText(res.text, "title") ?? elementText(res.text, "h1");
  const from = "not Airflow's JSON: a proxy or gateway in front of Airflow may have answered";
  return title ? `an HTML page titled "${title}", ${from}` : `an HTML page, ${from}`;
}

/** The text inside the first `<name …>…</name>`, tags removed, spaces collapsed, shortened. */
function elementText(html: string, name: string): string | undefined {
  const lower = html.toLowerCase();
  const open = lower.indexOf(`<${name}`);
  if (open < 0) return undefined;
  const start = lower.indexOf(">", open);
  const end = lower.indexOf(`</${name}`, start);
  if (start < 0 || end < 0) return undefined;
  const text = html.slice(start + 1, end).replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  if (!text) return undefined;
  return text.length > TITLE_LENGTH ? `${text.slice(0, TITLE_LENGTH - 1)}…` : text;
}

/** The typed error for a non-2xx response (401 is handled by the caller, which knows the auth kind). */
export function errorFromResponse(res: HttpResponse): AirflowHttpError {
  const detail = errorDetail(res);
  switch (res.status) {
    case 403:
      return new ForbiddenError(403, detail, res.method, res.target);
    case 404:
      return new NotFoundError(404, detail, res.method, res.target);
    case 422:
      return new UnprocessableEntityError(detail, res.method, res.target);
    default:
      return new AirflowHttpError(res.status, detail, res.method, res.target);
  }
}
