/**
 * *Fix All Safely Fixable Problems* from the Command Palette: the same source action fix-all on save
 * runs, applied to the active Python file, with a message when there is nothing to fix.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { FIX_ALL_KIND } from "../../server/src/lsp/codeActionProtocol";
import type { ExtensionLog } from "./log";

export async function fixAllInActiveEditor(log: ExtensionLog): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document || document.languageId !== "python") {
    void vscode.window.showInformationMessage("Open a Python file to fix its Airflow State Store problems.");
    return;
  }
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[] | undefined>("vscode.executeCodeActionProvider", document.uri, whole, FIX_ALL_KIND);
  const fixAll = actions?.find((action) => action.kind?.value === FIX_ALL_KIND && action.edit);
  const name = path.basename(document.uri.path);
  if (!fixAll?.edit) {
    void vscode.window.showInformationMessage(`No Airflow State Store problem in ${name} has a safe fix.`);
    return;
  }
  if (!(await vscode.workspace.applyEdit(fixAll.edit))) {
    log.error(`Fix all in ${document.uri.toString()} failed: the editor refused the edit (the file changed meanwhile).`);
    void vscode.window.showWarningMessage(`${name} changed while its fixes were computed; run the command again.`);
  }
}
