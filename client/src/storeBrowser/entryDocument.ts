/**
 * An entry opened for editing: a JSONC document whose leading `//` lines say what it is and carry
 * the expiry (`// expires_at: ...`), followed by the value as indented JSON. Saving checks the value
 * as the server would and sends PATCH (the value only), or PUT when the expiry line was changed;
 * asset entries have no expiry and are always PUT. The VS Code side serves these documents from a
 * file system provider, so a failed save leaves the user's text open with the reason.
 */
import type { AirflowClient } from "../rest/client";
import { NotFoundError, ValueValidationError } from "../rest/errors";
import type { AssetStateEntry, JsonValue, TaskInstanceRef, TaskStateEntry } from "../rest/types";
import { parseStateValue } from "../rest/validate";
import { parseCustomExpiry } from "./entryInput";
import { valueText } from "./format";

export type EntryAddress =
  | { store: "task"; env: string; dagId: string; runId: string; taskId: string; mapIndex: number; key: string }
  | { store: "asset"; env: string; assetId: number; assetName: string; key: string };

export type StoredEntry = TaskStateEntry | AssetStateEntry;

/** What saving a document sends. */
export type SavePlan =
  | { method: "PATCH"; value: JsonValue }
  | { method: "PUT"; value: JsonValue; expiresAt?: "default" | null | string };

/** The document cannot be saved as typed; `line` is 0-based when known. */
export class EntryDocumentError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = "EntryDocumentError";
  }
}

const EXPIRY_LINE = /^\s*\/\/\s*expires_at:\s*(.*?)\s*$/;
const NEVER = "never";

export function taskRefOf(address: Extract<EntryAddress, { store: "task" }>): Required<TaskInstanceRef> {
  return { dagId: address.dagId, runId: address.runId, taskId: address.taskId, mapIndex: address.mapIndex };
}

/** How an expiry is written on the `expires_at` line. */
export function expiryToken(expiresAt: string | null): string {
  return expiresAt === null ? NEVER : expiresAt;
}

/** The document text for an entry. */
export function renderEntryDocument(address: EntryAddress, entry: StoredEntry): string {
  const lines =
    address.store === "task"
      ? [
          `// Airflow task state store · ${address.env}`,
          `// ${address.dagId} / ${address.runId} / ${address.taskId}${address.mapIndex >= 0 ? ` [map index ${address.mapIndex}]` : ""}`,
          `// key: ${oneLine(address.key)}`,
          `// Saving sends the value below to Airflow. Change expires_at to "default", "never" or a date-time`,
          `// with a time zone (e.g. 2026-06-01T00:00:00Z) to set a new expiry as well.`,
          `// expires_at: ${expiryToken((entry as TaskStateEntry).expires_at ?? null)}`,
        ]
      : [
          `// Airflow asset state store · ${address.env}`,
          `// asset ${address.assetId}: ${oneLine(address.assetName)}`,
          `// key: ${oneLine(address.key)}`,
          `// Saving sends the value below to Airflow (asset entries have no expiry).`,
        ];
  return `${lines.join("\n")}\n${valueText(entry.value)}\n`;
}

/**
 * What saving `text` sends. `originalExpiry` is the token the document was opened with; a changed
 * token means PUT with that expiry. Throws EntryDocumentError for a value that must not be sent.
 */
export function planSave(
  address: EntryAddress,
  text: string,
  originalExpiry: string | undefined,
  maxLength: number,
  now: Date,
): SavePlan {
  const lines = text.split(/\r?\n/);
  let header = 0;
  let expiryLine: { token: string; line: number } | undefined;
  while (header < lines.length && /^\s*(\/\/.*)?$/.test(lines[header])) {
    const m = EXPIRY_LINE.exec(lines[header]);
    if (m) expiryLine = { token: m[1], line: header };
    header++;
  }
  const valueSource = lines.slice(header).join("\n");
  let value: JsonValue;
  try {
    value = parseStateValue(valueSource, { maxLength });
  } catch (error) {
    const message = error instanceof ValueValidationError ? error.message : String(error);
    const hint = /\/\//.test(valueSource) ? ' Comments ("//") are allowed only above the value.' : "";
    throw new EntryDocumentError(`${inDocumentLines(message, valueSource, header)}${hint}`, header);
  }
  if (address.store === "asset") return { method: "PUT", value };
  if (!expiryLine || expiryLine.token === originalExpiry) return { method: "PATCH", value };
  return { method: "PUT", value, expiresAt: parseExpiryToken(expiryLine.token, expiryLine.line, now) };
}

/**
 * Positions in a value message count from the value's first line; the user reads them in the
 * document, below `header` lines of comments. `(line 1, column 10)` and JSON.parse's `at position 9`
 * both become document lines.
 */
function inDocumentLines(message: string, value: string, header: number): string {
  const shifted = message.replace(/\(line (\d+), column (\d+)\)/, (_, line: string, column: string) => `(line ${Number(line) + header}, column ${column})`);
  return shifted.replace(/ at position (\d+)/, (_, position: string) => {
    const before = value.slice(0, Number(position)).split("\n");
    return ` at line ${before.length + header}, column ${before[before.length - 1].length + 1}`;
  });
}

function parseExpiryToken(token: string, line: number, now: Date): "default" | null | string {
  const lower = token.toLowerCase();
  if (lower === "default") return "default";
  if (lower === NEVER || lower === "null") return null;
  const parsed = parseCustomExpiry(token, now);
  if ("problem" in parsed) throw new EntryDocumentError(`expires_at: ${parsed.problem} Use "default", "never" or a date-time.`, line);
  return parsed.expiresAt;
}

/** Reads the entry the document shows. NotFoundError when the key is gone. */
export async function readEntry(client: AirflowClient, address: EntryAddress, signal?: AbortSignal): Promise<StoredEntry> {
  return address.store === "task"
    ? client.getTaskStateEntry(taskRefOf(address), address.key, { signal })
    : client.getAssetStateEntry(address.assetId, address.key, { signal });
}

/** Sends the plan, then reads the entry back (its new `updated_at` and expiry). */
export async function saveEntry(client: AirflowClient, address: EntryAddress, plan: SavePlan): Promise<StoredEntry> {
  try {
    if (address.store === "asset") await client.putAssetStateEntry(address.assetId, address.key, plan.value);
    else if (plan.method === "PATCH") await client.patchTaskStateEntry(taskRefOf(address), address.key, plan.value);
    else await client.putTaskStateEntry(taskRefOf(address), address.key, plan.value, { expiresAt: plan.expiresAt });
  } catch (error) {
    if (error instanceof NotFoundError && address.store === "task" && plan.method === "PATCH") {
      throw new EntryDocumentError(
        `The key "${address.key}" no longer exists in Airflow (deleted, expired, or its task instance was cleared). ` +
          `To create it again, set the expires_at line to "default" and save.`,
      );
    }
    throw error;
  }
  return readEntry(client, address);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}

// ---- where a document lives ----

export const ENTRY_SCHEME = "airflow-state";
const SUFFIX = ".jsonc";

/**
 * The document's path names the entry, readable in the editor's tab and breadcrumbs:
 * `/{env}/{dag_id}/{run_id}/{task_id}[{map_index}]/{key}.jsonc` or
 * `/{env}/assets/{asset_id} {asset name}/{key}.jsonc`. Inside a segment `%` and `/` are written
 * `%25` and `%2F` (a key like `input_file/s3://…` stays one segment); task ids cannot contain `[`.
 */
export function entryPath(address: EntryAddress): string {
  const segments =
    address.store === "task"
      ? [address.env, address.dagId, address.runId, `${address.taskId}${address.mapIndex >= 0 ? `[${address.mapIndex}]` : ""}`]
      : [address.env, "assets", `${address.assetId} ${address.assetName}`];
  return `/${[...segments, address.key + SUFFIX].map(escapeSegment).join("/")}`;
}

/** The entry a document path names; undefined when it is not a path entryPath wrote. */
export function addressOfPath(path: string): EntryAddress | undefined {
  const parts = path.split("/").slice(1);
  if (!parts.every((p) => p.length > 0) || !parts[parts.length - 1]?.endsWith(SUFFIX)) return undefined;
  let segments: string[];
  try {
    segments = parts.map(unescapeSegment);
  } catch {
    return undefined;
  }
  const key = segments[segments.length - 1].slice(0, -SUFFIX.length);
  if (segments.length === 4 && segments[1] === "assets") {
    const asset = /^(\d+) ([\s\S]*)$/.exec(segments[2]);
    if (!asset || !Number.isSafeInteger(Number(asset[1]))) return undefined;
    return { store: "asset", env: segments[0], assetId: Number(asset[1]), assetName: asset[2], key };
  }
  if (segments.length !== 5) return undefined;
  const [env, dagId, runId, task] = segments;
  const mapped = /^([^[]+)\[(\d+)\]$/.exec(task);
  return { store: "task", env, dagId, runId, taskId: mapped ? mapped[1] : task, mapIndex: mapped ? Number(mapped[2]) : -1, key };
}

function escapeSegment(text: string): string {
  return text.replace(/%/g, "%25").replace(/\//g, "%2F");
}

function unescapeSegment(text: string): string {
  if (/%(?!25|2F)/i.test(text)) throw new Error("not an escaped segment");
  return text.replace(/%2F/gi, "/").replace(/%25/g, "%");
}
