/**
 * JSON text in and out of the client without changing a number: `9007199254740993`, `1.0` and
 * `-0.0` keep their exact text (as `LosslessNumber`s) from Airflow's answer to the editor and back.
 * `JSON.parse` would round the first and turn the others into `1` and `0`; a value saved back would
 * then silently differ from what the task stored.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from "lossless-json";

export { isLosslessNumber, LosslessNumber };

/**
 * Deepest nesting of lists and objects the client parses, checks, shows or sends. The parser and
 * the checks recurse once per level; this bound keeps them far from the stack limit. Airflow's own
 * Python `json` module stops at its recursion limit (1000 by default), so deeper values cannot be
 * stored there either.
 */
export const MAX_VALUE_DEPTH = 1000;

/** JSON text nested deeper than MAX_VALUE_DEPTH; `position` is the offset of the first bracket too many. */
export class JsonTooDeepError extends Error {
  constructor(readonly position: number) {
    super(`nested deeper than ${MAX_VALUE_DEPTH} levels at position ${position}`);
    this.name = "JsonTooDeepError";
  }
}

/**
 * Parses JSON text with every number as a LosslessNumber. Throws SyntaxError for invalid JSON
 * (its message ends with `at position N`) and JsonTooDeepError before parsing text nested too deep.
 */
export function parseLossless(text: string): unknown {
  const tooDeep = depthExcess(text, MAX_VALUE_DEPTH);
  if (tooDeep !== undefined) throw new JsonTooDeepError(tooDeep);
  return parse(text);
}

/** JSON text of a value that may hold LosslessNumbers (written as their text) and plain numbers. */
export function stringifyLossless(value: unknown, indent?: number): string {
  const text = stringify(value, null, indent);
  if (text === undefined) throw new TypeError("The value has no JSON text.");
  return text;
}

/** Offset of the first `[` or `{` that opens level `max + 1`, outside strings; undefined when none does. */
export function depthExcess(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return i;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return undefined;
}

/**
 * A parsed answer with its LosslessNumbers turned into plain numbers: for the fields around a
 * value (`total_entries`, `map_index`, `try_number`), which are always small integers.
 */
export function withPlainNumbers(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(withPlainNumbers);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withPlainNumbers(v);
    return out;
  }
  return value;
}
