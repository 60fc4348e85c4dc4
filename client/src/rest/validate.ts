/**
 * Client-side checks run before a value, key or expiry is sent, so the user gets a precise message
 * instead of a 422. They mirror Airflow's validators (see state-store.md §2, §7):
 * the value must be JSON, not null, contain no NaN/Infinity, and its JSON text — as Python's
 * `json.dumps(value)` writes it, which is what the server measures — must not be longer than
 * `[state_store] max_value_storage_bytes` characters (65535 by default, 0 = no limit).
 */
import { ValueValidationError } from "./errors";
import { isLosslessNumber, JsonTooDeepError, MAX_VALUE_DEPTH, parseLossless, stringifyLossless, type LosslessNumber } from "./json";
import type { ExpiresAtInput, JsonValue } from "./types";

export const DEFAULT_MAX_VALUE_LENGTH = 65535;
/** The key column of the metadata database is 512 characters. */
export const MAX_KEY_LENGTH = 512;

export interface ValueCheckOptions {
  /** Longest allowed JSON text in characters; 0 = no limit. Default 65535. */
  maxLength?: number;
}

/**
 * Checks that `value` can be stored and returns the JSON text to send (numbers read from Airflow
 * keep their exact text).
 * Throws `ValueValidationError` with a message that says what is wrong and where.
 */
export function checkStateValue(value: unknown, options: ValueCheckOptions = {}): string {
  if (value === undefined) {
    throw new ValueValidationError("undefined", "The value is missing (undefined is not a JSON value).");
  }
  if (value === null) {
    throw new ValueValidationError("null", "The value cannot be null: Airflow rejects null values. Delete the key instead.");
  }
  walk(value, "$", new Set(), 0);
  const maxLength = options.maxLength ?? DEFAULT_MAX_VALUE_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength < 0) {
    throw new ValueValidationError("parameter", `maxLength must be a non-negative integer, got ${maxLength}.`);
  }
  if (maxLength > 0) {
    const length = pythonJsonLength(value as JsonValue);
    if (length > maxLength) {
      throw new ValueValidationError(
        "too-long",
        `The value is too large: its JSON text is ${length} characters, over the limit of ${maxLength} ` +
          `([state_store] max_value_storage_bytes). Store a smaller value or a reference to external storage.`,
      );
    }
  }
  return stringifyLossless(value);
}

/** Python refuses to convert integers with more digits than this (`sys.int_info.default_max_str_digits`). */
const PYTHON_MAX_INT_DIGITS = 4300;

function tooDeep(): ValueValidationError {
  return new ValueValidationError(
    "too-deep",
    `The value is nested deeper than ${MAX_VALUE_DEPTH} levels (lists and objects inside each other); ` +
      `a value nested that deep is neither checked nor sent. Store a flatter value.`,
  );
}

function checkLosslessNumber(n: LosslessNumber, at: string): void {
  const text = n.value;
  if (/[.eE]/.test(text)) {
    if (!Number.isFinite(Number(text))) {
      throw new ValueValidationError(
        "non-finite",
        `${text} at ${at} is too large for a float: Python reads it as inf, and Airflow rejects NaN and Infinity.`,
        at,
      );
    }
    return;
  }
  const digits = text.replace("-", "").length;
  if (digits > PYTHON_MAX_INT_DIGITS) {
    throw new ValueValidationError(
      "not-json",
      `The integer at ${at} has ${digits} digits; Python, and so Airflow, refuses integers longer than ${PYTHON_MAX_INT_DIGITS} digits.`,
      at,
    );
  }
}

function walk(value: unknown, at: string, seen: Set<object>, depth: number): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) {
        throw new ValueValidationError(
          "non-finite",
          `${String(value)} at ${at} is not allowed: NaN and Infinity are not JSON and Airflow rejects them.`,
          at,
        );
      }
      return;
    case "object": {
      if (value === null) return; // null inside a list or object is valid JSON
      if (isLosslessNumber(value)) return checkLosslessNumber(value, at);
      if (depth >= MAX_VALUE_DEPTH) throw tooDeep();
      if (seen.has(value)) {
        throw new ValueValidationError("cycle", `The value refers to itself at ${at}; it cannot be written as JSON.`, at);
      }
      if (Array.isArray(value)) {
        seen.add(value);
        for (let i = 0; i < value.length; i++) {
          if (value[i] === undefined) {
            throw new ValueValidationError("not-json", `undefined at ${at}[${i}] is not a JSON value.`, `${at}[${i}]`);
          }
          walk(value[i], `${at}[${i}]`, seen, depth + 1);
        }
        seen.delete(value);
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        const kind = value instanceof Date ? "a Date (store its ISO string instead)" : `a ${proto?.constructor?.name ?? "non-plain"} object`;
        throw new ValueValidationError("not-json", `${at} is ${kind}, which is not a JSON value.`, at);
      }
      seen.add(value);
      for (const [k, v] of Object.entries(value)) {
        const child = /^[A-Za-z_$][\w$]*$/.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`;
        if (v === undefined) {
          throw new ValueValidationError("not-json", `undefined at ${child} is not a JSON value.`, child);
        }
        walk(v, child, seen, depth + 1);
      }
      seen.delete(value);
      return;
    }
    default:
      throw new ValueValidationError("not-json", `${at} is a ${typeof value}, which is not a JSON value.`, at);
  }
}

/**
 * Length of `json.dumps(value)` in Python: separators `", "` and `": "`, every character outside
 * printable ASCII escaped (`\uXXXX`, 6 characters per UTF-16 unit), floats in Python's repr.
 */
export function pythonJsonLength(value: JsonValue): number {
  if (value === null) return 4;
  if (isLosslessNumber(value)) return pythonLosslessNumberText(value).length;
  switch (typeof value) {
    case "boolean":
      return value ? 4 : 5;
    case "number":
      return pythonNumberText(value).length;
    case "string":
      return pythonStringLength(value);
    default:
      break;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return 2;
    let n = 2 + 2 * (value.length - 1);
    for (const item of value) n += pythonJsonLength(item);
    return n;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return 2;
  let n = 2 + 2 * (entries.length - 1);
  for (const [k, v] of entries) n += pythonStringLength(k) + 2 + pythonJsonLength(v);
  return n;
}

function pythonStringLength(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c) n += 2;
    else if (c >= 0x20 && c <= 0x7e) n += 1;
    else n += 6;
  }
  return n;
}

/**
 * How Python writes back a number that arrived as `JSON.stringify(n)`: integers below 1e21 are
 * sent without exponent and stay Python ints; everything else becomes a float printed with repr().
 */
export function pythonNumberText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return Object.is(n, -0) ? "0" : String(n);
  return pythonFloatRepr(n);
}

/**
 * How Python writes back a number sent as this exact text: an integer literal stays an int
 * (`-0` becomes `0`); anything with a fraction or exponent is a float printed with repr(), so
 * `1.0` stays `1.0`, `-0.0` stays `-0.0` and `1e5` becomes `100000.0`.
 */
export function pythonLosslessNumberText(n: LosslessNumber): string {
  if (/[.eE]/.test(n.value)) return pythonFloatRepr(Number(n.value));
  return BigInt(n.value).toString();
}

/** Python's repr() of a finite float: shortest round-trip digits, exponent below 1e-4 and from 1e16. */
function pythonFloatRepr(n: number): string {
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = n.toExponential().split("e");
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  const exp = Number(expText);
  const decpt = exp + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp);
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
}

/**
 * Parses JSON text typed by a user and checks it like `checkStateValue`. NaN / Infinity tokens,
 * which JSON.parse reports as a bare syntax error, get their own message.
 */
export function parseStateValue(text: string, options: ValueCheckOptions = {}): JsonValue {
  let value: unknown;
  try {
    value = parseLossless(text);
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw tooDeep();
    const token = findNonFiniteToken(text);
    if (token) {
      throw new ValueValidationError(
        "non-finite",
        `${token.token} (line ${token.line}, column ${token.column}) is not allowed: NaN and Infinity are not JSON and Airflow rejects them.`,
      );
    }
    const detail = err instanceof Error ? err.message : String(err);
    throw new ValueValidationError("syntax", `The value is not valid JSON: ${detail}`);
  }
  checkStateValue(value, options);
  return value as JsonValue;
}

/** Finds a bare `NaN`, `Infinity` or `-Infinity` outside strings. */
function findNonFiniteToken(text: string): { token: string; line: number; column: number } | undefined {
  let inString = false;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") {
      line++;
      lineStart = i + 1;
    }
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      continue;
    }
    for (const token of ["-Infinity", "Infinity", "NaN"]) {
      if (text.startsWith(token, i)) return { token, line, column: i - lineStart + 1 };
    }
  }
  return undefined;
}

/**
 * Keys must be non-empty (an empty key would address the whole store), not `.` or `..`, and at most
 * 512 characters.
 */
export function checkKey(key: unknown): string {
  if (typeof key !== "string") {
    throw new ValueValidationError("key", `The key must be a string, got ${key === null ? "null" : typeof key}.`);
  }
  if (key.length === 0) throw new ValueValidationError("key", "The key cannot be empty.");
  if (key === "." || key === "..") {
    // URLs resolve "." and ".." path segments (even percent-encoded), so such a key cannot be addressed.
    throw new ValueValidationError("key", `The key "${key}" cannot be used: "." and ".." cannot be addressed in a URL.`);
  }
  if (key.length > MAX_KEY_LENGTH) {
    throw new ValueValidationError("key", `The key is ${key.length} characters long; Airflow stores at most ${MAX_KEY_LENGTH}.`);
  }
  return key;
}

const AWARE_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|z|[+-]\d{2}(?::?\d{2})?)$/;
const NAIVE_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/;

/** Turns an expiry into what the API takes: `"default"`, `null`, or an aware ISO 8601 string. */
export function normalizeExpiresAt(expiresAt: ExpiresAtInput | undefined): "default" | null | string {
  if (expiresAt === undefined || expiresAt === "default") return "default";
  if (expiresAt === null) return null;
  if (typeof expiresAt === "number") {
    // Seconds since the epoch, sent as the instant's ISO text: the server would read a number above
    // 2e10 as milliseconds (pydantic's rule), the client never means that.
    const date = new Date(expiresAt * 1000);
    if (!Number.isFinite(expiresAt) || Number.isNaN(date.getTime())) {
      throw new ValueValidationError("expires-at", `The expiry ${expiresAt} is not a number of seconds since 1970-01-01T00:00:00Z.`);
    }
    return date.toISOString();
  }
  if (expiresAt instanceof Date) {
    if (Number.isNaN(expiresAt.getTime())) throw new ValueValidationError("expires-at", "The expiry date is not a valid date.");
    return expiresAt.toISOString();
  }
  if (typeof expiresAt !== "string") {
    throw new ValueValidationError("expires-at", `expires_at must be "default", null, a Date, seconds since the epoch or an ISO 8601 string.`);
  }
  const text = expiresAt.trim();
  const m = AWARE_DATETIME.exec(text);
  if (!m) {
    if (NAIVE_DATETIME.test(text)) {
      throw new ValueValidationError(
        "expires-at",
        `The expiry "${expiresAt}" has no time zone; add one, e.g. "${text.length === 10 ? `${text}T00:00:00` : text}Z" or "+02:00".`,
      );
    }
    throw new ValueValidationError(
      "expires-at",
      `The expiry "${expiresAt}" is not "default", null or an ISO 8601 date-time with a time zone (e.g. 2026-01-31T12:00:00Z).`,
    );
  }
  const [, y, mo, d, h, mi, s] = m;
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +(s ?? 0)));
  if (
    date.getUTCFullYear() !== +y ||
    date.getUTCMonth() !== +mo - 1 ||
    date.getUTCDate() !== +d ||
    +h > 23 ||
    +mi > 59 ||
    +(s ?? 0) > 59
  ) {
    throw new ValueValidationError("expires-at", `The expiry "${expiresAt}" is not a valid date-time.`);
  }
  return text;
}

/**
 * Checks a paging parameter before it is sent. `limit` 0 is allowed, as Airflow allows it: the
 * server uses min(limit, [api] maximum_page_limit), which answers no items for 0.
 */
export function checkPageParam(name: "limit" | "offset", value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) {
    throw new ValueValidationError("parameter", `${name} must be an integer ≥ 0, got ${value}.`);
  }
  return value;
}
