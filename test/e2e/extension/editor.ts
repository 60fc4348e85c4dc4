/**
 * Helpers for suites running inside the editor: open workspace files, wait for the language
 * server's diagnostics, change settings, photograph the editor with its problems.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { harnessFolder, screenshot } from "./harness";

/** The `source` of the language server's diagnostics. */
const SOURCE = "airflow-state-store";
const WAIT_MS = 30_000;

export function workspaceUri(relativePath: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error("The real-editor tests need a workspace folder (the harness opens one)");
  return vscode.Uri.joinPath(folder.uri, ...relativePath.split("/"));
}

export async function openInEditor(relativePath: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(workspaceUri(relativePath));
  return vscode.window.showTextDocument(document, { preview: false });
}

export function ourDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source === SOURCE);
}

export function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return String(typeof code === "object" ? code.value : code);
}

/**
 * Resolves with the file's diagnostics once `accept` holds for them; checked now and on every
 * diagnostics change, so it does not matter whether the server answered before the call.
 */
export function waitForDiagnostics(
  uri: vscode.Uri,
  accept: (diagnostics: vscode.Diagnostic[]) => boolean,
  what: string,
  timeoutMs = WAIT_MS,
): Promise<vscode.Diagnostic[]> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const diagnostics = ourDiagnostics(uri);
      if (!accept(diagnostics)) return;
      finish();
      resolve(diagnostics);
    };
    const subscription = vscode.languages.onDidChangeDiagnostics((event) => {
      if (event.uris.some((changed) => changed.toString() === uri.toString())) check();
    });
    const timer = setTimeout(() => {
      finish();
      const seen = ourDiagnostics(uri).map((d) => `${codeOf(d)}@${d.range.start.line + 1}:${d.range.start.character + 1}`);
      reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what} in ${path.basename(uri.fsPath)}; diagnostics now: [${seen.join(", ")}]`));
    }, timeoutMs);
    function finish(): void {
      clearTimeout(timer);
      subscription.dispose();
    }
    check();
  });
}

/** Severities per rule, written to the workspace settings as a user would. */
export async function setRuleSeverities(severities: Record<string, string> | undefined): Promise<void> {
  await vscode.workspace.getConfiguration("airflowStateStore").update("rules", severities, vscode.ConfigurationTarget.Workspace);
}

/**
 * A screenshot of the editor with the Problems panel open, when a harness browser is there
 * (npm run test:e2e); nothing otherwise.
 */
export async function screenshotWithProblems(name: string): Promise<void> {
  if (!harnessFolder()) return;
  // Opens the Problems panel (workbench.actions.view.problems would toggle it shut when open).
  await vscode.commands.executeCommand("workbench.panel.markers.view.focus");
  // Lets the workbench paint squiggles and the panel before the picture is taken.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await screenshot(name);
  // Back to the editor, where the tests' commands (save, ...) act.
  await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
}
