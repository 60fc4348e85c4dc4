/**
 * Typed errors of the REST client. Every error thrown by the client is an `AirflowError`;
 * errors coming from an HTTP response carry the status and the server's `detail`.
 */

/** Base class of every error the REST client throws. */
export class AirflowError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One item of a FastAPI / pydantic 422 `detail` list. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type?: string;
  [extra: string]: unknown;
}

/** The server answered with a non-2xx status. */
export class AirflowHttpError extends AirflowError {
  /** HTTP status code. */
  readonly status: number;
  /** The server's `detail`, rendered as readable text. */
  readonly detail: string;
  /** The server's `detail` as it was sent (string, list of issues, or anything else). */
  readonly rawDetail: unknown;
  readonly method: string;
  /** Path and query of the request (no host). */
  readonly path: string;

  constructor(status: number, rawDetail: unknown, method: string, path: string, message?: string) {
    const detail = formatDetail(rawDetail);
    super(message ?? `${status} ${statusText(status)}${detail ? `: ${detail}` : ""}`);
    this.status = status;
    this.detail = detail;
    this.rawDetail = rawDetail;
    this.method = method;
    this.path = path;
  }
}

export type AuthFailure = "invalid-credentials" | "token-rejected" | "not-authenticated";

/**
 * Authentication failed: wrong username/password, a static token that was rejected, a 401 that
 * persisted after signing in again, or a server that wants credentials when none were configured.
 */
export class AuthError extends AirflowHttpError {
  readonly reason: AuthFailure;
  constructor(reason: AuthFailure, message: string, status: number, rawDetail: unknown, method: string, path: string) {
    super(status, rawDetail, method, path, message);
    this.reason = reason;
  }
}

/** `POST /auth/token` answered an error other than a refusal of the credentials (e.g. 500): they were not checked. */
export class SignInError extends AirflowHttpError {}

/** 403: the user is signed in but not allowed to do this (e.g. a read-only user writing). */
export class ForbiddenError extends AirflowHttpError {}

/** 404: unknown DAG, run, task instance, asset, or an absent key. */
export class NotFoundError extends AirflowHttpError {}

/** 422: the server rejected the request body or parameters. */
export class UnprocessableEntityError extends AirflowHttpError {
  /** The structured issues when the server sent a list, else empty. */
  readonly issues: ValidationIssue[];
  constructor(rawDetail: unknown, method: string, path: string) {
    super(422, rawDetail, method, path);
    this.issues = Array.isArray(rawDetail) ? rawDetail.filter(isIssue) : [];
  }
}

/** The server could not be reached, or the connection broke (refused, reset, DNS...). */
export class NetworkError extends AirflowError {
  /** System or undici error code when known, e.g. `ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`. */
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined, cause?: unknown) {
    super(message, { cause });
    this.code = code;
  }
}

/** No complete answer within the per-request timeout. */
export class TimeoutError extends AirflowError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, method: string, path: string) {
    super(`${method} ${path} timed out after ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired. */
export class CancelledError extends AirflowError {
  constructor(message = "The request was cancelled") {
    super(message);
  }
}

/** The server answered with a success status but a body that is not the expected JSON. */
export class InvalidResponseError extends AirflowError {
  readonly status: number;
  /** The first characters of the body. */
  readonly bodySnippet: string;
  constructor(message: string, status: number, body: string) {
    super(message);
    this.status = status;
    this.bodySnippet = body.length > 200 ? body.slice(0, 200) + "…" : body;
  }
}

export type ValueProblem =
  | "undefined"
  | "null"
  | "non-finite"
  | "not-json"
  | "cycle"
  | "too-deep"
  | "too-long"
  | "syntax"
  | "key"
  | "expires-at"
  | "parameter";

/** A value, key or parameter was rejected by the client before anything was sent. */
export class ValueValidationError extends AirflowError {
  readonly problem: ValueProblem;
  /** JSON path of the offending part, e.g. `$.rows[3].score`, when it applies. */
  readonly at: string | undefined;
  constructor(problem: ValueProblem, message: string, at?: string) {
    super(message);
    this.problem = problem;
    this.at = at;
  }
}

function isIssue(x: unknown): x is ValidationIssue {
  return typeof x === "object" && x !== null && Array.isArray((x as ValidationIssue).loc) && typeof (x as ValidationIssue).msg === "string";
}

/**
 * Renders a FastAPI `detail` as text. A 422 list becomes
 * `value: Value error, value cannot be null (loc body.value)`, items joined with `; `.
 */
export function formatDetail(detail: unknown): string {
  if (detail === undefined || detail === null) return "";
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item) => {
        if (!isIssue(item)) return typeof item === "string" ? item : JSON.stringify(item);
        const names = item.loc.filter((part): part is string => typeof part === "string");
        const field = names.length > 0 ? names[names.length - 1] : "request";
        return `${field}: ${item.msg} (loc ${item.loc.join(".")})`;
      })
      .join("; ");
  }
  if (typeof detail === "object" && typeof (detail as { msg?: unknown }).msg === "string") {
    return (detail as { msg: string }).msg;
  }
  return JSON.stringify(detail);
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? "HTTP error";
}
