/** Where the server's own log lines go (the client's output channel, through the connection). */
export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

/** An error as a log line: its stack when it has one, so a failure can be traced to its source. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}
