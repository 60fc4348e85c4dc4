/**
 * The server's connection to its client. Over stdio (how the protocol tests, the benchmark and
 * most editors other than VS Code start it) it writes through `StreamFrameWriter`, which
 * serialises each diagnostic of a long list once; vscode-languageserver then no longer sets up stdio
 * itself, so this module does what it would: the process ends when stdin does, and console output,
 * which would corrupt the messages on stdout, goes to the client's log instead. Every other
 * transport (--node-ipc, VS Code's, whose messages Node's IPC channel serialises) is left to
 * vscode-languageserver.
 */
import { format } from "node:util";
import { createConnection, ProposedFeatures, StreamMessageReader } from "vscode-languageserver/node";
import { StreamFrameWriter } from "./messageEncoder";

/** `shutdownRequested` says whether the client asked the server to shut down: ending then is a clean exit. */
export function createServerConnection(shutdownRequested: () => boolean, argv: readonly string[] = process.argv) {
  if (!argv.slice(2).includes("--stdio")) return createConnection(ProposedFeatures.all);
  const connection = createConnection(ProposedFeatures.all, new StreamMessageReader(process.stdin), new StreamFrameWriter(process.stdout));
  const clientGone = () => process.exit(shutdownRequested() ? 0 : 1);
  process.stdin.on("end", clientGone);
  process.stdin.on("close", clientGone);
  const toLog =
    (write: (message: string) => void) =>
    (...args: unknown[]) =>
      write(format(...args));
  console.log = console.info = console.debug = console.trace = toLog((message) => connection.console.log(message));
  console.warn = toLog((message) => connection.console.warn(message));
  console.error = toLog((message) => connection.console.error(message));
  return connection;
}
