/**
 * The VS Code side: starts the language server (dist/server.js) over IPC for Python files and
 * restarts it when the workspace becomes trusted, since trust decides whether the server may run git.
 * All checking happens in the server; this file wires VS Code to it, and keeps the log
 * (`airflowStateStore.logLevel`) that the server and the store browser write to.
 */
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from "vscode-languageclient/node";
import { logLevelOf, type LogInitializationOptions, type LogLevel } from "../../server/src/lsp/logProtocol";
import { showAirflowVersion } from "./airflowVersionStatus";
import { activateCheckWorkspaceCommand } from "./checkWorkspaceCommand";
import { fixAllInActiveEditor } from "./fixAllCommand";
import { ExtensionLog, reasonOf, settingsLine, type SettingValues } from "./log";
import { activateReviewCommand } from "./reviewCommand";
import { activateReviewTool } from "./reviewTool";
import { registerRuleDocumentation, ruleDocumentationMiddleware } from "./ruleDocumentation";
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
  const log = new ExtensionLog(output, configuredLogLevel());
  logStart(context, log);
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("airflowStateStore.restartServer", () => restartServer(context, output, log)),
    vscode.commands.registerCommand("airflowStateStore.showLogs", () => showLogs(output, log)),
    vscode.commands.registerCommand("airflowStateStore.fixAll", () => fixAllInActiveEditor(log)),
    ...registerRuleDocumentation(context, log),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info("The workspace is now trusted: restarting the language server so AS301 can read git.");
      return restartServer(context, output, log);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(CLIENT_ID)) return;
      // The server follows the same setting through didChangeConfiguration.
      log.level = configuredLogLevel();
      log.info(settingsLine(CLIENT_ID, currentSettings(context)));
    }),
  );
  activateStoreBrowser(context, () => client, log);
  activateReviewCommand(context, () => client);
  activateCheckWorkspaceCommand(context, () => client);
  activateReviewTool(context, () => client);
  await serialized(() => startServer(context, output, log));
}

export function deactivate(): Promise<void> {
  return serialized(stopServer);
}

function configuredLogLevel(): LogLevel {
  return logLevelOf(vscode.workspace.getConfiguration(CLIENT_ID).get("logLevel"));
}

/** The first lines of every session: what runs, with which settings, trusted or not. */
function logStart(context: vscode.ExtensionContext, log: ExtensionLog): void {
  const version = (context.extension.packageJSON as { version?: string }).version ?? "unknown";
  log.info(`Airflow State Store ${version} in ${vscode.env.appName} ${vscode.version} (${vscode.env.appHost}); log level ${log.level}.`);
  log.info(settingsLine(CLIENT_ID, currentSettings(context)));
  log.info(
    vscode.workspace.isTrusted
      ? "Workspace trusted."
      : "Workspace not trusted (Restricted Mode): the language server runs no git, so AS301 is off, and the store browser contacts no Airflow.",
  );
}

/** Every setting the manifest declares, as read now (defaults included), so the log shows what is in effect. */
function currentSettings(context: vscode.ExtensionContext): SettingValues {
  const configuration = vscode.workspace.getConfiguration(CLIENT_ID);
  const declared = (context.extension.packageJSON as { contributes?: { configuration?: unknown } }).contributes?.configuration;
  const sections = (Array.isArray(declared) ? declared : [declared]) as { properties?: Record<string, unknown> }[];
  const values: Record<string, unknown> = {};
  for (const key of sections.flatMap((section) => Object.keys(section?.properties ?? {}))) {
    const name = key.slice(CLIENT_ID.length + 1);
    values[name] = configuration.get(name);
  }
  return values;
}

/** VS Code's level for a channel, by the setting it must show. */
const CHANNEL_LEVEL: Record<LogLevel, vscode.LogLevel> = {
  error: vscode.LogLevel.Error,
  warning: vscode.LogLevel.Warning,
  info: vscode.LogLevel.Info,
  debug: vscode.LogLevel.Debug,
};

/**
 * Shows the channel. VS Code filters a log channel by its own level too (Info unless changed with
 * *Developer: Set Log Level…*); when that would hide lines the setting asks for, the channel's
 * level is lowered to the setting's, as the Output view's level menu does.
 */
async function showLogs(output: vscode.LogOutputChannel, log: ExtensionLog): Promise<void> {
  output.show(true);
  const wanted = CHANNEL_LEVEL[log.level];
  if (output.logLevel === vscode.LogLevel.Off || output.logLevel <= wanted) return;
  // The Output view's level command acts on the channel it shows, which it shows a moment after show().
  let failure = "";
  for (let attempt = 1; attempt <= CHANNEL_LEVEL_ATTEMPTS && output.logLevel > wanted; attempt++) {
    await delay(100 * attempt);
    try {
      await vscode.commands.executeCommand(`workbench.action.output.activeOutputLogLevel.${wanted}`);
    } catch (error) {
      failure = ` (${reasonOf(error)})`;
    }
    await delay(50);
  }
  if (output.logLevel <= wanted) log.info(`This channel now shows ${vscode.LogLevel[wanted]} lines and above, as airflowStateStore.logLevel asks.`);
  else log.warn(`airflowStateStore.logLevel is ${log.level}, but this channel shows ${vscode.LogLevel[output.logLevel]} and above: set its level with Developer: Set Log Level…${failure}.`);
}

const CHANNEL_LEVEL_ATTEMPTS = 5;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function startServer(context: vscode.ExtensionContext, output: vscode.LogOutputChannel, log: ExtensionLog): Promise<void> {
  const serverModule = context.asAbsolutePath("dist/server.js");
  // Over stdio the server serialises each published diagnostic once (lsp/messageEncoder.ts); over
  // IPC Node's channel would serialise every message whole, 4 MB for a large DAG on each keystroke.
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.stdio },
    debug: { module: serverModule, transport: TransportKind.stdio, options: { execArgv: ["--nolazy", "--inspect=6009"] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    // Python files changing on disk keep the server's workspace index (cross-module operator classes) current.
    synchronize: { configurationSection: CLIENT_ID, fileEvents: vscode.workspace.createFileSystemWatcher("**/*.py") },
    // Read when the server starts, so a restart after trust is granted sees the new value.
    initializationOptions: () => ({ trusted: vscode.workspace.isTrusted, logLevel: log.level }) satisfies LogInitializationOptions & { trusted: boolean },
    // One channel for every server started in this window, so restarts do not open new ones.
    outputChannel: output,
    middleware: ruleDocumentationMiddleware(context),
  };
  const started = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  client = started;
  showAirflowVersion(context, started);
  try {
    await started.start();
  } catch (error) {
    log.failure("Starting the Airflow State Store language server", error);
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

function restartServer(context: vscode.ExtensionContext, output: vscode.LogOutputChannel, log: ExtensionLog): Promise<void> {
  return serialized(async () => {
    log.info("Restarting the Airflow State Store language server.");
    await stopServer();
    await startServer(context, output, log);
  });
}
