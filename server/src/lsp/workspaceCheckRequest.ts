/**
 * Answers `airflowStateStore/checkWorkspace` (the "Check Whole Workspace" command): one check of every
 * Python file of the workspace, whatever the diagnostic mode, with its progress shown as
 * window/workDoneProgress ("120 of 4,000 files") and a Cancel button that stops it, as does
 * cancelling the request.
 */
import { Connection, ErrorCodes, ResponseError } from "vscode-languageserver";
import { errorText, Logger } from "./logger";
import { CHECK_WORKSPACE_METHOD, CheckWorkspaceResult } from "./workspaceCheckProtocol";
import type { WorkspaceDiagnostics } from "./workspaceDiagnostics";

/** Progress notifications at most this often: one per file would flood the client. */
const PROGRESS_INTERVAL_MS = 100;

export function registerCheckWorkspace(connection: Connection, workspace: () => WorkspaceDiagnostics | undefined, log: Logger): void {
  connection.onRequest(CHECK_WORKSPACE_METHOD, async (_params: unknown, token): Promise<CheckWorkspaceResult> => {
    const diagnostics = workspace();
    if (!diagnostics) throw new ResponseError(ErrorCodes.ServerNotInitialized, "The Airflow State Store language server is still starting.");
    const progress = await connection.window.createWorkDoneProgress();
    progress.begin("Airflow State Store: checking the workspace", 0, "Finding Python files…", true);
    let reported = 0;
    try {
      return await diagnostics.checkAll(
        {
          report: (done, total) => {
            const now = Date.now();
            if (done < total && now - reported < PROGRESS_INTERVAL_MS) return;
            reported = now;
            progress.report(total === 0 ? 100 : Math.floor((done * 100) / total), `${done.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} files`);
          },
        },
        { get isCancellationRequested() { return token.isCancellationRequested || progress.token.isCancellationRequested; } },
      );
    } catch (error) {
      log.error(`${CHECK_WORKSPACE_METHOD} failed: ${errorText(error)}`);
      throw new ResponseError(ErrorCodes.InternalError, `Checking the workspace failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      progress.done();
    }
  });
}
