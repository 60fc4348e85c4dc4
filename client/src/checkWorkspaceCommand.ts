/**
 * "Airflow State Store: Check Whole Workspace": asks the language server to check every Python file
 * of the workspace once (`airflowStateStore/checkWorkspace`). The server shows the progress, with
 * a Cancel button, as window/workDoneProgress; this command only reports the outcome.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { CHECK_WORKSPACE_METHOD, CheckWorkspaceResult } from "../../server/src/lsp/workspaceCheckProtocol";

export const CHECK_WORKSPACE_COMMAND = "airflowStateStore.checkWorkspace";

export function activateCheckWorkspaceCommand(context: vscode.ExtensionContext, languageClient: () => LanguageClient | undefined): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(CHECK_WORKSPACE_COMMAND, async (): Promise<CheckWorkspaceResult | undefined> => {
      const client = languageClient();
      if (!client?.isRunning()) {
        void vscode.window.showWarningMessage("The Airflow State Store language server is not running yet; try again in a moment.");
        return undefined;
      }
      try {
        const result = await client.sendRequest<CheckWorkspaceResult>(CHECK_WORKSPACE_METHOD, {});
        void vscode.window.showInformationMessage(summary(result));
        return result;
      } catch (error) {
        void vscode.window.showErrorMessage(`Checking the workspace failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
  );
}

function summary(result: CheckWorkspaceResult): string {
  const files = (count: number) => `${count.toLocaleString()} file${count === 1 ? "" : "s"}`;
  if (result.cancelled) return `Stopped: ${files(result.checked)} checked, ${result.findings.toLocaleString()} finding(s) so far.`;
  const failed = result.failed > 0 ? ` ${files(result.failed)} could not be checked (see the output channel).` : "";
  return `Checked ${files(result.files)}: ${result.findings === 0 ? "no findings" : `${result.findings.toLocaleString()} finding(s) in ${files(result.withFindings)}`} — see the Problems panel.${failed}`;
}
