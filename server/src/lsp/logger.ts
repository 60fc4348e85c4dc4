/**
 * Where the server's own log lines go (the client's output channel, through the connection), at
 * the levels of `airflowStateStore.logLevel`: errors always, warnings, what the server found (info),
 * and each lint and request (debug).
 */
import { isLogged, type LogLevel } from "./logProtocol";

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Where lines that pass the level are written. */
export type LogSink = Record<keyof Logger, (message: string) => void>;

/** A logger whose threshold the user's setting can change while it runs. */
export class LeveledLogger implements Logger {
  constructor(
    private readonly sink: LogSink,
    public level: LogLevel,
  ) {}

  error(message: string): void {
    this.sink.error(message);
  }

  warn(message: string): void {
    if (isLogged("warning", this.level)) this.sink.warn(message);
  }

  info(message: string): void {
    if (isLogged("info", this.level)) this.sink.info(message);
  }

  debug(message: string): void {
    if (isLogged("debug", this.level)) this.sink.debug(message);
  }
}

/** An error as a log line: its stack when it has one, so a failure can be traced to its source. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}
