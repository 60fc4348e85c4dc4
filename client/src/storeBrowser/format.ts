/** How entries, runs and task instances read in the tree: one-line previews, expiries, ages. */
import { isLosslessNumber, stringifyLossless } from "../rest/json";
import type { JsonValue, LastUpdatedBy, TaskInstance } from "../rest/types";

export const PREVIEW_LENGTH = 80;

/**
 * A value on one line, as compact JSON (`{"last_id": 184213, "page": 37}`), cut to `maxLength`
 * characters with an ellipsis. Strings show with their quotes, so `"3"` and `3` differ.
 */
export function valuePreview(value: JsonValue, maxLength = PREVIEW_LENGTH): string {
  const text = compactJson(value, maxLength + 1);
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

/** JSON with `, ` and `: ` separators, stopping once `limit` characters are written (a 10 MB value costs no more than its preview). */
function compactJson(value: JsonValue, limit: number): string {
  let out = "";
  const write = (v: JsonValue): void => {
    if (out.length >= limit) return;
    if (isLosslessNumber(v)) {
      out += v.value;
      return;
    }
    if (v === null || typeof v !== "object") {
      out += JSON.stringify(v);
      return;
    }
    if (Array.isArray(v)) {
      out += "[";
      v.forEach((item, i) => {
        if (out.length >= limit) return;
        if (i > 0) out += ", ";
        write(item);
      });
      out += "]";
      return;
    }
    out += "{";
    let first = true;
    for (const [k, item] of Object.entries(v)) {
      if (out.length >= limit) break;
      if (!first) out += ", ";
      first = false;
      out += `${JSON.stringify(k)}: `;
      write(item);
    }
    out += "}";
  };
  write(value);
  return out;
}

/** The text copied by "Copy Value" and opened for editing: indented JSON, every number as Airflow wrote it. */
export function valueText(value: JsonValue): string {
  return stringifyLossless(value, 2);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `3 min`, `5 h`, `27 days`: the coarsest unit that is at least 1. */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < MINUTE) return "less than a minute";
  if (abs < HOUR) return plural(Math.floor(abs / MINUTE), "minute");
  if (abs < DAY) return plural(Math.floor(abs / HOUR), "hour");
  return plural(Math.floor(abs / DAY), "day");
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** `expires in 27 days`, `never expires`, `expired 2 hours ago`. */
export function expiryText(expiresAt: string | null, now: Date): string {
  if (expiresAt === null) return "never expires";
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return `expires ${expiresAt}`;
  const left = at - now.getTime();
  // Rounded to the minute first: an entry written with a 30-day retention is read back a few
  // seconds later, and "expires in 29 days" would be wrong by a day.
  if (left <= 0) return `expired ${duration(left)} ago`;
  return `expires in ${duration(left < MINUTE ? left : Math.round(left / MINUTE) * MINUTE)}`;
}

/** Whether an entry's expiry has passed (Airflow removes it at the next `state-store clean`). */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  if (expiresAt === null) return false;
  const at = Date.parse(expiresAt);
  return !Number.isNaN(at) && at <= now.getTime();
}

/** `updated 3 hours ago`. */
export function updatedText(updatedAt: string, now: Date): string {
  const at = Date.parse(updatedAt);
  if (Number.isNaN(at)) return `updated ${updatedAt}`;
  const ago = now.getTime() - at;
  return ago < MINUTE ? "updated just now" : `updated ${duration(ago)} ago`;
}

/**
 * Who last wrote an asset entry, e.g. `task orders_daily.load_orders [2] try 3 (run scheduled__…)`
 * (the try when Airflow sends it: newer versions do).
 */
export function writerText(by: LastUpdatedBy | null): string {
  if (!by) return "unknown writer";
  switch (by.kind) {
    case "task": {
      const task = [by.dag_id, by.task_id].filter(Boolean).join(".") || "a task";
      const index = typeof by.map_index === "number" && by.map_index >= 0 ? ` [${by.map_index}]` : "";
      const attempt = typeof by.try_number === "number" && by.try_number > 0 ? ` try ${by.try_number}` : "";
      return `task ${task}${index}${attempt}${by.run_id ? ` (run ${by.run_id})` : ""}`;
    }
    case "watcher":
      return "asset watcher";
    case "api":
      return "REST API";
    default:
      return String(by.kind);
  }
}

/** `process_partition [3]` for a mapped task instance, the task id otherwise. */
export function taskInstanceLabel(ti: Pick<TaskInstance, "task_id" | "map_index">): string {
  return ti.map_index >= 0 ? `${ti.task_id} [${ti.map_index}]` : ti.task_id;
}

/** `partition=p3 · up_for_retry · try 2`. */
export function taskInstanceDescription(ti: Pick<TaskInstance, "state" | "try_number" | "rendered_map_index">): string {
  const parts: string[] = [];
  if (ti.rendered_map_index) parts.push(ti.rendered_map_index);
  parts.push(ti.state ?? "no status");
  if (ti.try_number > 0) parts.push(`try ${ti.try_number}`);
  return parts.join(" · ");
}

/** Task instance and run states whose store may still change, refreshed by auto-refresh. */
const ACTIVE_STATES = new Set(["running", "queued", "scheduled", "up_for_retry", "up_for_reschedule", "restarting", "deferred"]);

export function isActiveState(state: string | null | undefined): boolean {
  return state !== null && state !== undefined && ACTIVE_STATES.has(state);
}
