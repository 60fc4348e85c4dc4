/**
 * The two JSON behaviours of Python that the real server has and JavaScript lacks:
 * - `json.loads` accepts the bare tokens `NaN`, `Infinity`, `-Infinity` (FastAPI parses bodies with it,
 *   so such a body is not a decode error: the value validator rejects it afterwards);
 * - `json.dumps(v, allow_nan=False)` is what the value size limit measures: separators `", "` and
 *   `": "`, ASCII-only output (`\uXXXX` escapes), floats written with repr().
 * Written independently of client/src/rest/validate.ts on purpose: the emulator stands for the server.
 */

export type PyJson = null | boolean | number | string | PyJson[] | { [key: string]: PyJson };

const SENTINEL = "\u0000pyjson:";

/** Like Python's `json.loads`: JSON plus NaN / Infinity / -Infinity. Throws `PyJsonDecodeError`. */
export function pyJsonLoads(text: string): PyJson {
  try {
    return JSON.parse(text) as PyJson;
  } catch (first) {
    const replaced = replaceNonFiniteTokens(text);
    if (replaced === text) throw new PyJsonDecodeError(first, text);
    try {
      return JSON.parse(replaced, (_key, v: unknown) => {
        if (typeof v === "string" && v.startsWith(SENTINEL)) {
          const token = v.slice(SENTINEL.length);
          return token === "NaN" ? NaN : token === "-Infinity" ? -Infinity : Infinity;
        }
        return v;
      }) as PyJson;
    } catch (second) {
      throw new PyJsonDecodeError(second, text);
    }
  }
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

/** Python's `json.dumps(value, allow_nan=False)`; throws NonFiniteError for NaN / ±Infinity. */
export function pyJsonDumps(value: PyJson): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") return pyFloatOrInt(value);
  if (typeof value === "string") return pyString(value);
  if (Array.isArray(value)) return "[" + value.map(pyJsonDumps).join(", ") + "]";
  return (
    "{" +
    Object.keys(value)
      .map((k) => pyString(k) + ": " + pyJsonDumps(value[k]))
      .join(", ") +
    "}"
  );
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

/**
 * Python reads an integer literal as int and anything with `.`/`e` as float. JavaScript writes
 * integers below 1e21 without exponent, so those stay ints; the rest are floats printed with repr().
 */
function pyFloatOrInt(n: number): string {
  if (!Number.isFinite(n)) throw new NonFiniteError("Out of range float values are not JSON compliant");
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n === 0 ? "0" : n.toFixed(0);
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
