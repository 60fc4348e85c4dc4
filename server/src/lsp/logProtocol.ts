/**
 * The `airflowStateStore.logLevel` setting, which the extension and its language server both
 * follow through one `LeveledLogger`: a line is written when its level is at least the setting's. (VS Code's own level for
 * the output channel, *Developer: Set Log Level…*, filters on top of it.)
 */

export const LOG_LEVELS = ["error", "warning", "info", "debug"] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_LOG_LEVEL: LogLevel = "info";

/** The setting's value, or the default for anything else (a typo in settings.json). */
export function logLevelOf(value: unknown): LogLevel {
  return LOG_LEVELS.includes(value as LogLevel) ? (value as LogLevel) : DEFAULT_LOG_LEVEL;
}

/** Whether a line at `level` is written under the setting `threshold`. */
export function isLogged(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

/** How the client tells a starting server the setting: in `initializationOptions.logLevel`; changes come with didChangeConfiguration. */
export interface LogInitializationOptions {
  logLevel?: LogLevel;
}

/** The four levels' writers: a VS Code LogOutputChannel, the LSP connection's console, a test's array. */
export interface LogSink {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Writes to its sink what its threshold lets through (errors always); the setting can change the threshold while it runs. */
export class LeveledLogger implements LogSink {
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
