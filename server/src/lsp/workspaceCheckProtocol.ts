/**
 * `airflowStateStore/checkWorkspace`: the request the "Check Whole Workspace" command sends
 * (client/src/checkWorkspaceCommand.ts); the server checks every Python file of the workspace from
 * disk, publishes their diagnostics, shows its progress with window/workDoneProgress and stops
 * when either the request or the progress is cancelled. Both ends import this file, so it imports
 * nothing.
 */

export const CHECK_WORKSPACE_METHOD = "airflowStateStore/checkWorkspace";

export interface CheckWorkspaceResult {
  /** Python files of the workspace found (open documents included: they are linted as they are in the editor). */
  files: number;
  /** Files checked from disk by this run. */
  checked: number;
  /** Files checked from disk with at least one diagnostic. */
  withFindings: number;
  /** Diagnostics of the files checked from disk. */
  findings: number;
  /** Files that could not be read or checked. */
  failed: number;
  /** The run was cancelled, or replaced by a newer one, before every file was checked. */
  cancelled: boolean;
}
