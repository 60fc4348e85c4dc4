/**
 * The messages between the language server's connection thread and its lint workers.
 * Linting a large file takes seconds, so the syntax trees and every engine call live in a worker
 * thread; the connection thread only routes LSP messages and never waits on a rule.
 */
import type { ContentChange, FixKind, Position, Range, RelatedLocations, Severity, SeveritySetting } from "../engine";
import type { AirflowPin, ConfigurationPreference, ConfigurationProblem } from "../engine/project";
import type { DagOutline } from "../engine/features/outline";

export interface WorkerLintOptions {
  /** `airflowStateStore.rules`, combined in the worker with the project's configuration file. */
  severities: Record<string, SeveritySetting>;
  /** `airflowStateStore.configurationPreference` (default `editorFirst`). */
  configurationPreference?: ConfigurationPreference;
  /** Filesystem path of a file:// document. */
  path?: string;
  /** The committed text of the document, for AS301. */
  baselineText?: string;
}

/** A text edit already placed in LSP coordinates of the version it was computed on. */
export interface PlacedEdit {
  range: Range;
  newText: string;
}

/** A fix or rewrite with its edits placed. */
export interface PlacedFix {
  title: string;
  safe: boolean;
  kind: FixKind;
  edits: PlacedEdit[];
}

/**
 * A finding as the editor shows it. Its fixes and suppression edits stay in the worker, which keeps
 * the document's last findings and places their edits only when a code action asks for them.
 */
export interface LintedDiagnostic {
  code: string;
  severity: Severity;
  message: string;
  range: Range;
  /** Other places of the finding (its other calls), shown as related information. */
  related?: RelatedLocations;
}

/** One of the findings the client shows, as a code action request names it. */
export interface FindingReference {
  code: string;
  range: Range;
}

/** What the code actions of one finding edit, placed in the version it was found in. */
export interface FindingActions {
  /** The preferred fix. */
  fix?: PlacedFix;
  /** Other rewrites of the finding, each offered as its own code action. */
  alternatives?: PlacedFix[];
  /** Adds the code to the line's `# noqa:` comment; absent where no comment can go (the line ends inside a string or with a backslash). */
  suppression?: PlacedEdit;
  /** Adds the code to the file's `# airflow-state-lint: noqa:` comment, or adds that comment near the top. */
  fileSuppression?: PlacedEdit;
}

export interface CodeActionsResult {
  version: number;
  /** For each finding asked about, in order: its actions, or null when the last lint found no such finding. */
  findings: (FindingActions | null)[];
  /** Whether any finding of the document has a safe fix, for the lightbulb's fix-all. */
  safelyFixable: boolean;
}

/**
 * A lint's findings as a change to the list the worker sent last for the document
 * (diagnosticUpdates.ts): its first `head` findings kept, then `changed`, then its last `tail`
 * findings moved down by `tailLines` lines (up when negative).
 */
export interface DiagnosticsUpdate {
  /** The number of this list among those sent for the document. */
  id: number;
  /** The number of the list this one changes; absent for a whole list. */
  base?: number;
  head: number;
  tail: number;
  tailLines: number;
  changed: LintedDiagnostic[];
}

export interface LintResult {
  version: number;
  /** Whether the file passed the engine's cheap "could this use Airflow at all" check. */
  relevant: boolean;
  diagnostics: DiagnosticsUpdate;
  /** The Airflow version the document's project pins, as the lint used it; absent when none is known or the document has no path. */
  airflowPin?: AirflowPin;
  /** The git revision AS301 compares with, from the document's configuration (default HEAD). */
  baseline: string;
  /** The configuration file that applies to the document, and its problems (a file with any is not used). */
  configuration?: { file: string; problems: ConfigurationProblem[] };
  /** How long the lint took in the worker: what the next change's pause and the document's worker are chosen by. */
  elapsedMs: number;
}

export interface FixAllResult {
  version: number;
  /** One edit replacing the changed lines; absent when no safe fix applies. */
  edit?: PlacedEdit;
}

export interface ReviewResult {
  version: number;
  /** The engine's Markdown review of the document (`reviewMarkdown`). */
  markdown: string;
}

export interface HoverResult {
  range: Range;
  markdown: string;
}

export interface CompletionEntry {
  label: string;
  filterText: string;
  sortText: string;
  detail: string;
  documentation: string;
  /** Replaces the partly typed word. */
  edit: PlacedEdit;
  /** `edit.newText` holds snippet tab stops. */
  snippet: boolean;
  /** The import the entry needs. */
  additionalEdits: PlacedEdit[];
}

export interface CompletionResult {
  items: CompletionEntry[];
}

/** A Python file of the workspace read from disk, for the workspace index. */
export interface IndexedFile {
  path: string;
  text: string;
}

export type ToWorker =
  | { type: "open"; uri: string; text: string; version: number }
  | { type: "change"; uri: string; changes: ContentChange[]; version: number }
  | { type: "close"; uri: string }
  /** The workspace folders, where module names start. */
  | { type: "workspaceRoots"; roots: string[] }
  /** Files read from disk; an open document's own text takes precedence over its file's. */
  | { type: "index"; files: IndexedFile[] }
  /** Files (or folders) deleted from disk. */
  | { type: "unindex"; paths: string[] }
  /** Files that can pin the Airflow version (requirements, pyproject.toml, Dockerfile, ...) or configure the linter created, changed or deleted, and folders deleted. */
  | { type: "projectFilesChanged"; paths: string[] }
  /** Leave once the current task is done: a thread stopped inside the parser's native code aborts the whole process. */
  | { type: "stop" }
  | { type: "lint"; id: number; uri: string; version: number; options: WorkerLintOptions }
  /** The actions of findings of the document's last lint, which must be of `version`. */
  | { type: "codeActions"; id: number; uri: string; version: number; findings: FindingReference[] }
  | { type: "fixAll"; id: number; uri: string; version: number; options: WorkerLintOptions }
  | { type: "review"; id: number; uri: string; version: number; options: WorkerLintOptions }
  | { type: "hover"; id: number; uri: string; version: number; position: Position }
  | { type: "completion"; id: number; uri: string; version: number; position: Position }
  | { type: "dagOutline"; id: number; uri: string; version: number };

export type WorkerRequest = Extract<ToWorker, { id: number }>;

export type ResultOf<R extends WorkerRequest> =
  | (R extends { type: "lint" }
      ? LintResult
      : R extends { type: "codeActions" }
        ? CodeActionsResult
        : R extends { type: "fixAll" }
          ? FixAllResult
          : R extends { type: "review" }
            ? ReviewResult
            : R extends { type: "hover" }
              ? HoverResult
              : R extends { type: "dagOutline" }
                ? DagOutlineResult
                : CompletionResult)
  | undefined;

export type WorkerResult = LintResult | CodeActionsResult | FixAllResult | ReviewResult | HoverResult | CompletionResult | DagOutlineResult;

/** The DAG ids and task ids of the document, for the store browser's code lens (`dagOutline.ts`). */
export interface DagOutlineResult {
  outline: DagOutline;
}

/** A request's reply. `result` is undefined when the worker's copy of the document is not at the requested version (or a hover finds nothing). */
export type FromWorker =
  | { type: "reply"; id: number; result: WorkerResult | undefined }
  | { type: "failed"; id: number; message: string }
  | { type: "log"; level: "info" | "error"; message: string }
  /** The worker could not apply a change and dropped its copy; the connection thread re-sends the document. */
  | { type: "lost"; uri: string }
  /** Open documents to lint again: a module they import changed in the workspace index, or the Airflow version their project pins did. */
  | { type: "dependentsChanged"; uris: string[] };
