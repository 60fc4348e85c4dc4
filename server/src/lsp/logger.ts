/**
 * Where the server's own log lines go (the client's output channel, through the connection), at
 * the levels of `airflowStateStore.logLevel`: errors always, warnings, what the server found (info),
 * and each lint and request (debug).
 */
import type { LogSink } from "./logProtocol";

export { LeveledLogger } from "./logProtocol";

export type Logger = LogSink;

/** An error as a log line: its stack when it has one, so a failure can be traced to its source. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}
