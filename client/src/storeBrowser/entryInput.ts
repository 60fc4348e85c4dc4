/**
 * Checks of what the user types when adding or editing an entry, before anything is sent: the key,
 * the JSON value (valid JSON, not null, no NaN, no longer than the limit) and the expiry, chosen as
 * in the Airflow UI: Default, Never or a custom date.
 */
import { ValueValidationError } from "../rest/errors";
import type { JsonValue } from "../rest/types";
import { checkKey, normalizeExpiresAt, parseStateValue } from "../rest/validate";

export interface InputProblem {
  message: string;
  /** A warning still lets the user go on. */
  severity: "error" | "warning";
}

/** Why a key cannot be used (error), or should better not be (warning). */
export function keyProblem(text: string, existingKeys: ReadonlySet<string> = new Set()): InputProblem | undefined {
  try {
    checkKey(text);
  } catch (error) {
    return { message: messageOf(error), severity: "error" };
  }
  if (existingKeys.has(text)) return { message: `"${text}" already exists: adding it replaces its value.`, severity: "warning" };
  if (/[./]/.test(text)) return { message: "Keys are easier to work with without dots and slashes (Airflow's guidance).", severity: "warning" };
  return undefined;
}

/** The value typed as JSON, or why it cannot be stored. */
export function parseValueInput(text: string, maxLength: number): { value: JsonValue } | { problem: string } {
  if (!text.trim()) return { problem: 'Type a JSON value, e.g. "text", 42, true, [1, 2] or {"page": 3}.' };
  try {
    return { value: parseStateValue(text, { maxLength }) };
  } catch (error) {
    return { problem: messageOf(error) };
  }
}

export type ExpiryChoice = "default" | "never" | "custom";

/** The expiry picker's options, in the Airflow UI's order. */
export const EXPIRY_CHOICES: readonly { choice: ExpiryChoice; label: string; detail: string }[] = [
  { choice: "default", label: "Default", detail: "now + [state_store] default_retention_days (30 days unless configured)" },
  { choice: "never", label: "Never", detail: "the entry stays until it is deleted or its task instance is cleared" },
  { choice: "custom", label: "Custom date…", detail: "a date and time; the entry is removed by the first cleanup after it" },
];

const RELATIVE = /^(\d+)\s*(d|days?|h|hours?|m|min|minutes?)$/i;
const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A custom expiry typed by the user: `2026-06-01` or `2026-06-01 18:30` in local time, an ISO 8601
 * date-time with a time zone, or a delay such as `7d` / `12h`. Answers the time-zone-aware ISO
 * string to send, or why the text is not usable (including a time that has passed).
 */
export function parseCustomExpiry(text: string, now: Date): { expiresAt: string } | { problem: string } {
  const trimmed = text.trim();
  if (!trimmed) return { problem: "Type a date such as 2026-06-01, 2026-06-01 18:30, or a delay such as 7d or 12h." };
  let at: Date;
  let typed: string | undefined;
  const relative = RELATIVE.exec(trimmed);
  const local = LOCAL_DATE.exec(trimmed);
  if (relative) {
    const n = Number(relative[1]);
    const unit = relative[2][0].toLowerCase();
    at = new Date(now.getTime() + n * (unit === "d" ? 86_400_000 : unit === "h" ? 3_600_000 : 60_000));
  } else if (local) {
    const [, y, mo, d, h = "0", mi = "0", s = "0"] = local;
    at = new Date(+y, +mo - 1, +d, +h, +mi, +s);
    if (at.getFullYear() !== +y || at.getMonth() !== +mo - 1 || at.getDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
      return { problem: `"${trimmed}" is not a valid date.` };
    }
  } else {
    try {
      typed = normalizeExpiresAt(trimmed) as string;
      at = new Date(typed);
    } catch (error) {
      return { problem: messageOf(error) };
    }
  }
  if (at.getTime() <= now.getTime()) return { problem: `${trimmed} has already passed: the entry would be removed by the next cleanup.` };
  // A date-time typed with its own zone is sent as typed; the others in the local zone.
  return { expiresAt: typed ?? localIso(at) };
}

/** `2026-06-01T18:30:00+02:00`: the instant in the local time zone, with its offset. */
export function localIso(date: Date): string {
  const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}

function messageOf(error: unknown): string {
  return error instanceof ValueValidationError || error instanceof Error ? error.message : String(error);
}
