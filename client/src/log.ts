/**
 * The extension's log, as ruff's and ESLint's: one output channel with levels, at the threshold of
 * `airflowStateStore.logLevel`. What it writes: at start the versions, the settings in effect and
 * the workspace's trust (info); each REST call's method, path, status and duration (debug); every
 * failure with its reason (error). Never a credential or a value: REST lines come from exchange
 * records, which hold no headers and no bodies, and the settings summary leaves out what a user
 * could have typed a secret into. Plain Node (no vscode import), so tests can read what it writes.
 */
import { LeveledLogger, type LogSink } from "../../server/src/lsp/logProtocol";
import type { ExchangeRecord } from "./rest/http";
import { statusText } from "./rest/errors";

/** What a VS Code LogOutputChannel offers; the tests pass an array-backed one. */
export type LogChannel = LogSink;

export class ExtensionLog extends LeveledLogger {
  /** A failed action, at error: what failed, then why ("Saving key x on emulator failed: 403 Forbidden"). */
  failure(what: string, error: unknown): void {
    this.error(`${what} failed: ${reasonOf(error)}`);
  }

  /** One REST call of an environment. */
  exchange(environment: string, record: ExchangeRecord): void {
    const line = exchangeLine(environment, record);
    this[line.level](line.text);
  }
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A REST call's line: at debug when Airflow answered with success (or the call was cancelled, which
 * the user did), at warn for a 401 (a password session is then renewed once, and a refusal that
 * stays is reported by the action), at error for any other error status and for no answer at all.
 */
export function exchangeLine(environment: string, record: ExchangeRecord): { level: "debug" | "warn" | "error"; text: string } {
  const call = `REST ${environment}: ${record.method} ${record.target}`;
  const took = `${Math.round(record.durationMs)} ms`;
  if (record.status === undefined) {
    const reason = record.error ? reasonOf(record.error) : "no response";
    if (record.error?.name === "CancelledError") return { level: "debug", text: `${call} cancelled after ${took}` };
    return { level: "error", text: `${call} failed after ${took}: ${reason}` };
  }
  const text = `${call} ${record.status}${record.status >= 400 ? ` ${statusText(record.status)}` : ""} (${took})`;
  if (record.status < 400) return { level: "debug", text };
  return { level: record.status === 401 ? "warn" : "error", text };
}

/** The settings of the `airflowStateStore` section as read, by key without the section's prefix. */
export type SettingValues = Readonly<Record<string, unknown>>;

/**
 * "Settings in effect: enable true; rules {"AS103":"warning"}; …". Environments are summarised by
 * name, address, authentication and TLS check: their other fields are not needed to follow a log,
 * and a value typed in the wrong field could be a secret.
 */
export function settingsLine(section: string, values: SettingValues): string {
  const parts = Object.keys(values)
    .sort()
    .map((key) => `${key} ${key === "environments" ? environmentsSummary(values[key]) : JSON.stringify(values[key]) ?? "unset"}`);
  return `Settings in effect (${section}.*): ${parts.join("; ")}`;
}

function environmentsSummary(value: unknown): string {
  if (!Array.isArray(value)) return "none";
  if (value.length === 0) return "[]";
  const described = value.map((entry) => {
    if (typeof entry !== "object" || entry === null) return "(not an object)";
    const { name, baseUrl, auth, verifyTls } = entry as Record<string, unknown>;
    const facts = [typeof auth === "string" ? `auth ${auth}` : undefined, verifyTls === false ? "TLS not verified" : undefined].filter(Boolean);
    return `${typeof name === "string" ? name : "(no name)"} ${typeof baseUrl === "string" ? safeUrl(baseUrl) : "(no baseUrl)"}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}`;
  });
  return `[${described.join(", ")}]`;
}

/** The URL without a user or password someone put into it (the REST client refuses such URLs, but the setting holds them). */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = "";
    parsed.password = "";
    return `${parsed.toString()} (credentials in the URL left out)`;
  } catch {
    return JSON.stringify(url);
  }
}
