/**
 * The extension's log in the real editor: *Show Logs* opens the channel, which starts with the
 * versions, the settings in effect and the workspace's trust, and at `logLevel: debug` shows each
 * REST call of the store browser (method, path, status, duration). The lines are read from the
 * channel's log file and from the Output view as shown.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { EMULATOR_URL_ENV, EXTENSION_ID, EXTENSION_LOGS_ENV } from "../protocol";
import { ask, screenshot } from "./harness";

const ENVIRONMENT = "e2e-log";
const WAIT_MS = 20_000;

function logFile(): string {
  const folder = process.env[EXTENSION_LOGS_ENV];
  if (!folder) throw new Error(`${EXTENSION_LOGS_ENV} is not set: the harness's driver extension sets it`);
  return path.join(folder, EXTENSION_ID, "Airflow State Store.log");
}

async function logContaining(text: string): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const log = fs.existsSync(logFile()) ? fs.readFileSync(logFile(), "utf8") : "";
    if (log.includes(text)) return log;
    if (Date.now() > deadline) throw new Error(`The log never showed "${text}"; it holds:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

suite("The extension's log", () => {
  const settings = () => vscode.workspace.getConfiguration("airflowStateStore");

  suiteTeardown(async () => {
    for (const key of ["environments", "activeEnvironment", "logLevel"]) await settings().update(key, undefined, vscode.ConfigurationTarget.Workspace);
  });

  test("starts with the versions, the settings in effect and the trust", async () => {
    const version = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { version: string }).version;
    const log = await logContaining("language server");
    assert.match(log, new RegExp(`\\[info\\] Airflow State Store ${version.replace(/\./g, "\\.")} in `));
    assert.match(log, /\[info\] Settings in effect \(airflowStateStore\.\*\): .*enable true; .*logLevel "info"/);
    assert.match(log, /\[info\] Workspace trusted\./);
    assert.match(log, new RegExp(`\\[info\\] Airflow State Store language server ${version.replace(/\./g, "\\.")} \\(tree-sitter \\d+\\.\\d+\\.\\d+, tree-sitter-python \\d+\\.\\d+\\.\\d+, Node `));
  });

  test("at logLevel debug, Show Logs shows each REST call with its method, path, status and duration", async () => {
    await settings().update("logLevel", "debug", vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand("airflowStateStore.showLogs");
    const url = process.env[EMULATOR_URL_ENV];
    assert.ok(url, `${EMULATOR_URL_ENV} is set by the harness`);
    // An environment without credentials: the status bar asks its version at once.
    await settings().update("environments", [{ name: ENVIRONMENT, baseUrl: url, auth: "none" }], vscode.ConfigurationTarget.Workspace);
    await settings().update("activeEnvironment", ENVIRONMENT, vscode.ConfigurationTarget.Workspace);
    const log = await logContaining(`REST ${ENVIRONMENT}: GET /api/v2/version 200 (`);
    assert.match(log, new RegExp(`\\[debug\\] REST ${ENVIRONMENT}: GET /api/v2/version 200 \\(\\d+ ms\\)`));
    assert.match(log, /\[info\] Settings in effect .*logLevel "debug"/, "a changed setting is logged");
    const shown = await ask({ action: "text", selector: '[id="workbench.panel.output"] .view-lines', contains: `REST ${ENVIRONMENT}: GET /api/v2/version 200` });
    assert.ok(shown.text?.includes("[debug]"), `the Output view shows the debug line:\n${shown.text}`);
    await screenshot("log");
  });
});
