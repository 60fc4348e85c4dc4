/**
 * Request validation the way FastAPI + pydantic answer it: a 422 whose `detail` is a list of
 * `{type, loc, msg}` issues. Rules follow Airflow's datamodels (state-store.md §7).
 */
import { NonFiniteError, PyFloat, pyJsonDumps, type PyJson } from "./pyjson";

export interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export function issue(type: string, loc: (string | number)[], msg: string, extra: Partial<Issue> = {}): Issue {
  return { type, loc, msg, ...extra };
}

/** Integer query/path parameter (pydantic lax mode: a decimal string). */
export function parseIntParam(
  raw: string | null,
  loc: ["query" | "path", string],
  options: { default?: number; min?: number },
  issues: Issue[],
): number {
  if (raw === null) {
    if (options.default !== undefined) return options.default;
    issues.push(issue("missing", loc, "Field required"));
    return NaN;
  }
  const text = raw.trim();
  if (!/^[+-]?\d+$/.test(text)) {
    issues.push(issue("int_parsing", loc, "Input should be a valid integer, unable to parse string as an integer", { input: raw }));
    return NaN;
  }
  const n = Number(text);
  if (options.min !== undefined && n < options.min) {
    issues.push(issue("greater_than_equal", loc, `Input should be greater than or equal to ${options.min}`, { input: raw, ctx: { ge: options.min } }));
    return NaN;
  }
  return n;
}

const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);

export function parseBoolParam(raw: string | null, loc: ["query", string], fallback: boolean | undefined, issues: Issue[]): boolean | undefined {
  if (raw === null) return fallback;
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  issues.push(issue("bool_parsing", loc, "Input should be a valid boolean, unable to interpret input", { input: raw }));
  return fallback;
}

export interface ValueRules {
  /** 0 = no limit. */
  maxValueStorageBytes: number;
}

/** The `value` field validator of TaskStateStoreBody / TaskStateStorePatchBody / AssetStateStoreBody. */
export function validateValue(value: PyJson, rules: ValueRules): Issue | undefined {
  const loc = ["body", "value"];
  if (value === null) return issue("value_error", loc, "Value error, value cannot be null", { input: null, ctx: { error: {} } });
  let serialized: string;
  try {
    serialized = pyJsonDumps(value);
  } catch (err) {
    if (err instanceof NonFiniteError) {
      return issue("value_error", loc, "Value error, value contains non-finite numbers; NaN and Inf are not JSON representable", { ctx: { error: {} } });
    }
    throw err;
  }
  const limit = rules.maxValueStorageBytes;
  if (limit > 0 && serialized.length > limit) {
    return issue(
      "value_error",
      loc,
      `Value error, value exceeds max_value_storage_bytes (${limit}); raise [state_store] max_value_storage_bytes or set it to 0 to disable the limit`,
      { ctx: { error: {} } },
    );
  }
  return undefined;
}

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

export type ExpiresAt = { kind: "default" } | { kind: "never" } | { kind: "at"; date: Date };

/**
 * pydantic's datetime from a number (or a numeric string): seconds since the epoch, or milliseconds
 * when its magnitude is above 2e10; always UTC, so it counts as aware.
 */
function epochDate(raw: unknown): Date | undefined {
  let n: number | undefined;
  if (typeof raw === "bigint" || typeof raw === "number") n = Number(raw);
  else if (raw instanceof PyFloat) n = raw.value;
  else if (typeof raw === "string" && /^-?\d+(\.\d+)?$/.test(raw)) n = Number(raw);
  if (n === undefined || !Number.isFinite(n)) return undefined;
  const ms = Math.abs(n) > 2e10 ? n : n * 1000;
  const date = new Date(Math.round(ms));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** `expires_at: AwareDatetime | None | Literal["default"] = "default"` */
export function parseExpiresAt(raw: unknown, present: boolean, issues: Issue[]): ExpiresAt {
  const loc = ["body", "expires_at"];
  if (!present || raw === "default") return { kind: "default" };
  if (raw === null) return { kind: "never" };
  const epoch = epochDate(raw);
  if (epoch) return { kind: "at", date: epoch };
  if (typeof raw === "string") {
    const m = DATETIME.exec(raw);
    if (m) {
      const [, y, mo, d, h, mi, s = "0", frac = "", z, sign, oh, om = "0"] = m;
      if (!z && !sign) {
        issues.push(issue("timezone_aware", loc, "Input should have timezone info", { input: raw }));
        return { kind: "default" };
      }
      const utc = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, frac ? Math.floor(Number(`0${frac}`) * 1000) : 0);
      const check = new Date(Date.UTC(+y, +mo - 1, +d));
      const valid =
        check.getUTCFullYear() === +y && check.getUTCMonth() === +mo - 1 && check.getUTCDate() === +d && +h < 24 && +mi < 60 && +s < 60 && +(oh ?? 0) < 24 && +om < 60;
      if (valid) {
        const offsetMin = sign ? (sign === "-" ? -1 : 1) * (+oh * 60 + +om) : 0;
        return { kind: "at", date: new Date(utc - offsetMin * 60_000) };
      }
      issues.push(issue("datetime_from_date_parsing", loc, "Input should be a valid datetime or date, day value is outside expected range", { input: raw }));
      return { kind: "default" };
    }
  }
  issues.push(issue("literal_error", loc, "Input should be 'default' or a timezone-aware datetime", { input: raw, ctx: { expected: "'default'" } }));
  return { kind: "default" };
}

/** Checks the body's shape: an object with exactly the allowed fields, `value` required. */
export function checkBodyFields(body: unknown, hasBody: boolean, allowed: readonly string[], issues: Issue[]): body is Record<string, PyJson> {
  if (!hasBody) {
    issues.push(issue("missing", ["body"], "Field required", { input: null }));
    return false;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    issues.push(issue("model_attributes_type", ["body"], "Input should be a valid dictionary or object to extract fields from", { input: body }));
    return false;
  }
  if (!("value" in body)) issues.push(issue("missing", ["body", "value"], "Field required", { input: body }));
  for (const [k, v] of Object.entries(body)) {
    if (!allowed.includes(k)) issues.push(issue("extra_forbidden", ["body", k], "Extra inputs are not permitted", { input: v }));
  }
  return true;
}

/** Python's `repr()` of a str, for messages such as `Task state store key 'k' not found`. */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) out += "\\x" + ch.charCodeAt(0).toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + quote;
}
