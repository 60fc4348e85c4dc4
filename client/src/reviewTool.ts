/**
 * The language model tool `airflowStateStore_reviewDag` (package.json `languageModelTools`): chat
 * agents in VS Code ask it to review an Airflow DAG file for state store misuse and get the
 * language server's review (`airflowStateStore/review`, what "Review this DAG" shows and what
 * `airflow-state-lint --format review` writes), computed with the workspace's settings, Airflow pin
 * and cross-module classes.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { requestReview } from "./reviewCommand";

export const REVIEW_TOOL = "airflowStateStore_reviewDag";

export interface ReviewToolInput {
  /** An absolute path, or one relative to a workspace folder; without it, the active editor's file. */
  filePath?: string;
}

/** The server reviews open documents; one just opened for the tool may reach it a moment after the request. */
const NOT_OPEN_RETRIES = 10;
const RETRY_DELAY_MS = 100;

export function activateReviewTool(context: vscode.ExtensionContext, languageClient: () => LanguageClient | undefined): void {
  context.subscriptions.push(
    vscode.lm.registerTool<ReviewToolInput>(REVIEW_TOOL, {
      prepareInvocation: ({ input }) => ({ invocationMessage: `Reviewing ${input.filePath ? path.basename(input.filePath) : "the active file"} for state store misuse` }),
      invoke: async ({ input }, token) => {
        let file: vscode.Uri;
        try {
          file = await fileOf(input);
        } catch (error) {
          // A wrong path is the agent's to correct, not a failure of the tool: it reads why.
          if (error instanceof InputProblem) return textResult(error.message);
          throw error;
        }
        const document = await vscode.workspace.openTextDocument(file);
        if (document.languageId !== "python") return textResult(`${document.uri.fsPath} is not a Python file; the review is for Airflow DAG files.`);
        return textResult(await review(languageClient, document.uri, token));
      },
    }),
  );
}

/** The input names no file the tool can review. */
class InputProblem extends Error {}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

async function fileOf({ filePath }: ReviewToolInput): Promise<vscode.Uri> {
  if (typeof filePath !== "string" || filePath.trim() === "") {
    const active = vscode.window.activeTextEditor?.document.uri;
    if (!active) throw new InputProblem("No file given and no editor is active: pass filePath, the DAG file to review.");
    return active;
  }
  if (path.isAbsolute(filePath)) return vscode.Uri.file(filePath);
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const candidate = vscode.Uri.joinPath(folder.uri, ...filePath.split(/[\\/]/));
    try {
      await vscode.workspace.fs.stat(candidate);
      return candidate;
    } catch {
      // Not in this folder; try the next.
    }
  }
  throw new InputProblem(`${filePath} was not found in the workspace folders; pass an absolute path or one relative to a workspace folder.`);
}

async function review(languageClient: () => LanguageClient | undefined, uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const client = languageClient();
    if (!client?.isRunning()) throw new Error("The Airflow State Store language server is not running yet; try again in a moment.");
    try {
      return (await requestReview(client, uri, token)).markdown;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (attempt >= NOT_OPEN_RETRIES || token.isCancellationRequested || !message.includes("is not open")) throw new Error(`The review could not be made: ${message}`);
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
}
