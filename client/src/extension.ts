/**
 * The VS Code side: starts the language server (dist/server.js) over IPC for Python files and
 * restarts it when the workspace becomes trusted, since trust decides whether the server may run git.
 * All checking happens in the server; this file only wires VS Code to it.
 */
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from "vscode-languageclient/node";
import { showAirflowVersion } from "./airflowVersionStatus";
import { activateCheckWorkspaceCommand } from "./checkWorkspaceCommand";
import { activateReviewCommand } from "./reviewCommand";
import { activateReviewTool } from "./reviewTool";
import { activateStoreBrowser } from "./storeBrowser/vscode";

const CLIENT_ID = "airflowStateStore";
const CLIENT_NAME = "Airflow State Store";

let client: LanguageClient | undefined;
/** Starts, stops and restarts run one after another, so a trust grant during a restart cannot start two servers. */
let lifecycle: Promise<void> = Promise.resolve();

function serialized(step: () => Promise<void>): Promise<void> {
  lifecycle = lifecycle.then(step, step);
  return lifecycle;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("airflowStateStore.restartServer", () => restartServer(context, output)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restartServer(context, output)),
  );
  activateStoreBrowser(context, () => client);
  activateReviewCommand(context, () => client);
  activateCheckWorkspaceCommand(context, () => client);
  activateReviewTool(context, () => client);
  await serialized(() => startServer(context, output));
}

export function deactivate(): Promise<void> {
  return serialized(stopServer);
}

async function startServer(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
  const serverModule = context.asAbsolutePath("dist/server.js");
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ["--nolazy", "--inspect=6009"] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    // Python files changing on disk keep the server's workspace index (cross-module operator classes) current.
    synchronize: { configurationSection: CLIENT_ID, fileEvents: vscode.workspace.createFileSystemWatcher("**/*.py") },
    // Read when the server starts, so a restart after trust is granted sees the new value.
    initializationOptions: () => ({ trusted: vscode.workspace.isTrusted }),
    // One channel for every server started in this window, so restarts do not open new ones.
    outputChannel: output,
  };
  const started = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  client = started;
  showAirflowVersion(context, started);
  try {
    await started.start();
  } catch (error) {
    output.error(`The Airflow State Store language server did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function stopServer(): Promise<void> {
  const running = client;
  client = undefined;
  if (!running) return;
  try {
    await running.stop();
  } catch {
    // A server that already died cannot be stopped; it is replaced all the same.
  }
}

function restartServer(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
  return serialized(async () => {
    output.info("Restarting the Airflow State Store language server.");
    await stopServer();
    await startServer(context, output);
  });
}
