/**
 * The messages between the connection thread and the threads that check the workspace's files
 * from disk (workspaceCheckWorker.ts). Those threads are separate from the lint workers of open
 * documents, so a check of the whole workspace never queues in front of a keystroke's lint.
 */
import type { Range, RelatedLocations, Severity } from "../engine";
import type { ConfigurationOverrides } from "../engine/project";

/** Passed as the thread's workerData: the language server's bundle runs as this kind of thread. */
export const WORKSPACE_CHECK_ROLE = "workspaceCheck";

export function isWorkspaceCheckThread(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as { role?: unknown }).role === WORKSPACE_CHECK_ROLE;
}

/** What a published diagnostic of a file on disk needs: its fixes are computed when the file is opened. */
export interface CheckedDiagnostic {
  code: string;
  severity: Severity;
  message: string;
  range: Range;
  /** Other places of the finding (AS401–AS404: a key's other calls), shown as related information. */
  related?: RelatedLocations;
}

export type ToCheckThread =
  /** The workspace folders (module names start there) and whether git may be run for AS301's baselines. */
  | { type: "setup"; roots: string[]; trusted: boolean }
  /** `overrides`: the editor's settings, combined with the file's project configuration as the lint worker does. */
  | { type: "check"; id: number; uri: string; path: string; overrides: ConfigurationOverrides }
  /** Files or folders created, changed or deleted on disk (Python modules and the files that pin Airflow). */
  | { type: "filesChanged"; paths: string[] }
  /** Files no longer checked by this thread: what their last check consulted can go. */
  | { type: "forget"; uris: string[] }
  /** Leave between two checks: a thread stopped inside the parser's native code aborts the whole process. */
  | { type: "stop" };

export type FromCheckThread =
  /** `diagnostics` is undefined when the file could not be read, was too large or vanished. */
  | { type: "checked"; id: number; diagnostics: CheckedDiagnostic[] | undefined; problem?: string }
  | { type: "failed"; id: number; message: string }
  /** Files whose findings may have changed: a module their check consulted, or the Airflow pin they used, changed. */
  | { type: "stale"; uris: string[] }
  | { type: "log"; message: string };
