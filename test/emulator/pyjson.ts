/**
 * The JSON behaviours of Python that the real server has and JavaScript lacks:
 * - `json.loads` reads an integer literal as an exact int of any size and anything with a fraction
 *   or exponent as a float, and accepts the bare tokens `NaN`, `Infinity`, `-Infinity` (FastAPI
 *   parses bodies with it, so such a body is not a decode error: the value validator rejects it);
 * - `json.dumps` writes ints exactly and floats with repr() (`1.0`, `-0.0`, `1e+16`);
 *   `json.dumps(v, allow_nan=False)` is what the value size limit measures: separators `", "` and
 *   `": "`, ASCII-only output (`\uXXXX` escapes). Responses use Starlette's compact form
 *   (separators `","` and `":"`, non-ASCII kept).
 * Written independently of client/src/rest/validate.ts on purpose: the emulator stands for the server.
 */
import { parse } from "lossless-json";

/**
 * A Python value as `json.loads` returns it: `bigint` is an int, `PyFloat` a float. A plain JS
 * `number` (seed data, tests) is what Python reads from `JSON.stringify(n)`: an int when JavaScript
 * writes it without fraction or exponent, else a float.
 */
export type PyJson = null | boolean | number | bigint | PyFloat | string | PyJson[] | { [key: string]: PyJson };

/** A Python float read from JSON text (so `1.0` stays a float, unlike a JS number). */
export class PyFloat {
  constructor(readonly value: number) {}
}

const SENTINEL = "\u0000pyjson:";

/** How deep `json.loads` nests before Python's recursion limit (1000 by default) stops it, roughly. */
export const PY_RECURSION_LIMIT = 990;

/** Like Python's `json.loads`: exact ints, floats, and NaN / Infinity / -Infinity. Throws `PyJsonDecodeError` or `PyRecursionError`. */
export function pyJsonLoads(text: string): PyJson {
  if (nestingDepth(text) > PY_RECURSION_LIMIT) throw new PyRecursionError("maximum recursion depth exceeded while decoding a JSON array from a unicode string");
  const replaced = replaceNonFiniteTokens(text);
  try {
    return parse(
      replaced,
      (_key, v: unknown) => {
        if (typeof v === "string" && v.startsWith(SENTINEL)) {
          const token = v.slice(SENTINEL.length);
          return new PyFloat(token === "NaN" ? NaN : token === "-Infinity" ? -Infinity : Infinity);
        }
        return v;
      },
      { parseNumber: (t) => (/[.eE]/.test(t) ? new PyFloat(Number(t)) : BigInt(t)), onDuplicateKey: ({ newValue }) => newValue },
    ) as PyJson;
  } catch (err) {
    throw new PyJsonDecodeError(err, text);
  }
}

/** Python's RecursionError: FastAPI answers it 400 "There was an error parsing the body". */
export class PyRecursionError extends Error {}

function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") deepest = Math.max(deepest, ++depth);
    else if (ch === "]" || ch === "}") depth--;
  }
  return deepest;
}

export class PyJsonDecodeError extends Error {
  /** Character offset of the error, as Python's JSONDecodeError.pos (best effort). */
  readonly pos: number;
  constructor(cause: unknown, text: string) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(message);
    const m = /position (\d+)/.exec(message);
    this.pos = m ? Number(m[1]) : text.length === 0 ? 0 : Math.max(0, text.length - 1);
  }
}

function replaceNonFiniteTokens(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === "\\" && i + 1 < text.length) {
        out += text[++i];
      } else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    let matched = false;
    for (const token of ["-Infinity", "Infinity", "NaN"]) {
      if (text.startsWith(token, i)) {
        out += JSON.stringify(SENTINEL + token);
        i += token.length - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out += ch;
  }
  return out;
}

export class NonFiniteError extends Error {}

export interface DumpsOptions {
  /** Python's `allow_nan` (default false: NonFiniteError for NaN / ±Infinity). */
  allowNan?: boolean;
  /** Starlette's response form: separators `","` / `":"`, non-ASCII characters kept. */
  compact?: boolean;
}

/** Python's `json.dumps(value, allow_nan=False)`; throws NonFiniteError for NaN / ±Infinity. */
export function pyJsonDumps(value: PyJson, options: DumpsOptions = {}): string {
  const comma = options.compact ? "," : ", ";
  const colon = options.compact ? ":" : ": ";
  const str = (s: string) => (options.compact ? JSON.stringify(s) : pyString(s));
  const dump = (v: PyJson): string => {
    if (v === null) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "bigint") return v.toString();
    if (v instanceof PyFloat) return pyFloat(v.value, options.allowNan === true);
    if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e21 ? (v === 0 ? "0" : v.toFixed(0)) : pyFloat(v, options.allowNan === true);
    if (typeof v === "string") return str(v);
    if (Array.isArray(v)) return "[" + v.map(dump).join(comma) + "]";
    return "{" + Object.keys(v).map((k) => str(k) + colon + dump(v[k])).join(comma) + "}";
  };
  return dump(value);
}

function pyString(s: string): string {
  let out = '"';
  for (const ch of s) {
    // iterate UTF-16 units so astral characters become surrogate-pair escapes, like Python
    for (let j = 0; j < ch.length; j++) {
      const c = ch.charCodeAt(j);
      switch (c) {
        case 0x22:
          out += '\\"';
          continue;
        case 0x5c:
          out += "\\\\";
          continue;
        case 0x0a:
          out += "\\n";
          continue;
        case 0x0d:
          out += "\\r";
          continue;
        case 0x09:
          out += "\\t";
          continue;
        case 0x08:
          out += "\\b";
          continue;
        case 0x0c:
          out += "\\f";
          continue;
      }
      out += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : "\\u" + c.toString(16).padStart(4, "0");
    }
  }
  return out + '"';
}

/** Python's repr() of a float (`allowNan`: NaN and ±Infinity as json.dumps writes them by default). */
function pyFloat(n: number, allowNan: boolean): string {
  if (!Number.isFinite(n)) {
    if (!allowNan) throw new NonFiniteError("Out of range float values are not JSON compliant");
    return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  }
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  // repr(): shortest round-trip digits; exponent notation when the exponent is < -4 or >= 16
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(n.toExponential());
  if (!m) return String(n);
  const [, sign, lead, rest = "", expText] = m;
  const exp = Number(expText);
  const digits = lead + rest;
  if (exp < -4 || exp >= 16) {
    const mantissa = rest ? `${lead}.${rest}` : lead;
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac || "0"}`;
}
