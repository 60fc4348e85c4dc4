/**
 * Diagnostics for the Python files of the workspace that are not open: every file the workspace
 * index reads (workspaceFiles.ts) is checked from disk in background threads
 * (workspaceCheckThreads.ts) and its findings published, when `airflowStateStore.diagnosticMode` is
 * "workspace" or when the "Check Whole Workspace" command asks once. Open documents are left to the
 * diagnostic scheduler, which lints what the editor holds. What was published is kept current: a
 * file changed on disk is checked again, as are the files whose check consulted it (a module they
 * import, the Airflow pin of their project); a deleted file's diagnostics are cleared; a closed
 * document gets its file's diagnostics back in workspace mode. Turning the mode off clears them.
 */
import { pathToFileURL } from "node:url";
import { Diagnostic as LspDiagnostic, FileChangeType, FileEvent } from "vscode-languageserver";
import { isWithin } from "../engine/workspace/modulePaths";
import { projectFileChanges } from "./airflowVersion";
import { toLspDiagnostic } from "./diagnostics";
import { errorText, Logger } from "./logger";
import type { ServerSettings } from "./settings";
import type { DiagnosticMode } from "./diagnosticMode";
import type { CheckWorkspaceResult } from "./workspaceCheckProtocol";
import type { WorkspaceCheckThreads } from "./workspaceCheckThreads";
import { MAX_INDEXED_FILES, workspacePythonFiles } from "./workspaceFiles";
import { filePathOf } from "./workerWorkspace";

/** Files checked at once: enough to keep every thread busy, few enough that a cancellation stops soon. */
const CONCURRENT_CHECKS = 16;

export interface WorkspaceDiagnosticsHost {
  /** The workspace folders' paths. */
  folders(): string[];
  /** The open document of a file, if it is open. */
  openUri(file: string): string | undefined;
  /** Settings apply per workspace folder: asked once per folder and run. */
  settingsFor(folderUri: string): Promise<ServerSettings>;
  publish(uri: string, diagnostics: LspDiagnostic[]): void;
}

export interface CheckProgress {
  report(done: number, total: number): void;
}

export interface Cancellation {
  readonly isCancellationRequested: boolean;
}

export class WorkspaceDiagnostics {
  private mode: DiagnosticMode = "openFiles";
  /** Files whose disk diagnostics are shown (possibly none, after they were fixed), by path: the URI they were published under. */
  private readonly shown = new Map<string, string>();
  /** Bumped by every run, so a run replaced by a newer one stops. */
  private generation = 0;

  constructor(
    private readonly host: WorkspaceDiagnosticsHost,
    private readonly threads: WorkspaceCheckThreads,
    private readonly log: Logger,
  ) {}

  get diagnosticMode(): DiagnosticMode {
    return this.mode;
  }

  /** Turning "workspace" on checks every file in the background; turning it off clears what was shown. */
  setMode(mode: DiagnosticMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.log.info(mode === "workspace" ? "Diagnostic mode \"workspace\": checking every Python file of the workspace in the background." : "Diagnostic mode \"openFiles\": only open documents are checked.");
    if (mode === "workspace") void this.checkAll();
    else this.clear();
  }

  /** Settings changed: every file is checked again with them in workspace mode, else the files a one-off check showed. */
  settingsChanged(): void {
    if (this.mode === "workspace") void this.checkAll();
    else for (const file of [...this.shown.keys()]) void this.recheck(file);
  }

  /** Checks every Python file of the workspace that is not open, publishing as it goes; a newer run replaces this one. */
  checkAll(progress?: CheckProgress, token?: Cancellation): Promise<CheckWorkspaceResult> {
    const generation = ++this.generation;
    this.threads.cancelQueued();
    const run = this.runAll(generation, progress, token).catch((error: unknown): CheckWorkspaceResult => {
      this.log.error(`Checking the workspace failed: ${errorText(error)}`);
      return { files: 0, checked: 0, withFindings: 0, findings: 0, failed: 0, cancelled: true };
    });
    return run;
  }

  /** workspace/didChangeWatchedFiles: Python files and project files changed on disk. */
  filesChanged(changes: readonly FileEvent[]): void {
    const changedPaths: string[] = [];
    const recheck: string[] = [];
    for (const change of changes) {
      const file = filePathOf(change.uri);
      if (!file) continue;
      if (change.type === FileChangeType.Deleted) {
        changedPaths.push(file);
        this.clearBelow(file);
      } else if (file.endsWith(".py")) {
        changedPaths.push(file);
        if (this.mode === "workspace" || this.shown.has(file)) recheck.push(file);
      }
    }
    // The threads forget what they read of these files before the files are checked again.
    this.threads.filesChanged([...new Set([...changedPaths, ...projectFileChanges(changes)])]);
    for (const file of recheck) void this.recheck(file);
  }

  /** Files whose check consulted something that changed since: a file without findings may have some now. */
  stale(uris: readonly string[]): void {
    for (const uri of uris) {
      const file = filePathOf(uri);
      if (file && (this.mode === "workspace" || this.shown.has(file))) void this.recheck(file);
    }
  }

  /** The scheduler publishes the open document's own diagnostics from now on. */
  documentOpened(uri: string): void {
    const file = filePathOf(uri);
    if (!file || !this.shown.delete(file)) return;
    this.threads.forget([pathToFileURL(file).href]);
  }

  /** The scheduler has cleared the closed document's diagnostics: in workspace mode its file's are shown instead. */
  documentClosed(uri: string): void {
    const file = filePathOf(uri);
    if (file && this.mode === "workspace" && this.isInWorkspace(file)) void this.recheck(file, uri);
  }

  dispose(): Promise<void> {
    this.generation++;
    return this.threads.dispose();
  }

  private async runAll(generation: number, progress: CheckProgress | undefined, token: Cancellation | undefined): Promise<CheckWorkspaceResult> {
    const started = Date.now();
    const superseded = () => generation !== this.generation || token?.isCancellationRequested === true;
    const result: CheckWorkspaceResult = { files: 0, checked: 0, withFindings: 0, findings: 0, failed: 0, cancelled: false };
    const files = await this.workspaceFiles(superseded);
    // Stopped while the folders were searched: the files found so far are not all there are.
    const searchStopped = superseded();
    result.files = files.length;
    progress?.report(0, files.length);
    const settings = new Map<string, Promise<ServerSettings>>();
    const seen = new Set<string>();
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < files.length && !superseded()) {
        const { file, folder } = files[next++];
        seen.add(file);
        if (this.host.openUri(file) === undefined) {
          const folderUri = pathToFileURL(folder).href;
          if (!settings.has(folderUri)) settings.set(folderUri, this.host.settingsFor(folderUri));
          const outcome = await this.checkAndShow(file, undefined, await settings.get(folderUri)!, () => generation === this.generation);
          if (outcome === "failed") result.failed++;
          else if (outcome !== "skipped") {
            result.checked++;
            result.findings += outcome;
            if (outcome > 0) result.withFindings++;
          }
        }
        progress?.report(++done, files.length);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_CHECKS }, worker));
    result.cancelled = searchStopped || (superseded() && done < files.length);
    if (!result.cancelled) {
      // Files shown before that this run did not find any more (outside the folders now, or over the limit).
      for (const file of [...this.shown.keys()]) if (!seen.has(file)) this.clearFile(file);
    }
    this.log.info(
      `${result.cancelled ? "Stopped checking" : "Checked"} the workspace: ${result.checked} of ${result.files} Python file(s) checked from disk in ${Date.now() - started} ms, ${result.findings} finding(s)${result.failed > 0 ? `, ${result.failed} could not be checked (see above)` : ""}.`,
    );
    return result;
  }

  /** The Python files of every folder, as the workspace index reads them, with the folder each belongs to. */
  private async workspaceFiles(cancelled: () => boolean): Promise<{ file: string; folder: string }[]> {
    const files: { file: string; folder: string }[] = [];
    for await (const found of workspacePythonFiles(this.host.folders(), cancelled)) {
      if (files.length >= MAX_INDEXED_FILES) {
        this.log.info(`Stopped at ${MAX_INDEXED_FILES} files: the rest of the workspace is not checked.`);
        return files;
      }
      files.push(found);
    }
    return files;
  }

  private async recheck(file: string, uri?: string): Promise<void> {
    const folder = this.host.folders().find((candidate) => isWithin(candidate, file));
    if (!folder || this.host.openUri(file) !== undefined) return;
    const generation = this.generation;
    const settings = await this.host.settingsFor(pathToFileURL(folder).href);
    // A newer run (or the mode turned off) decides what is shown instead.
    await this.checkAndShow(file, uri, settings, () => generation === this.generation);
  }

  /** Checks one file from disk and publishes its diagnostics unless it was opened meanwhile; answers how many it has. */
  private async checkAndShow(file: string, knownUri: string | undefined, settings: ServerSettings, current: () => boolean): Promise<number | "failed" | "skipped"> {
    const uri = knownUri ?? this.shown.get(file) ?? pathToFileURL(file).href;
    if (!settings.enable) {
      this.clearFile(file);
      return "skipped";
    }
    let diagnostics;
    try {
      const outcome = await this.threads.check(uri, file, { severities: settings.severities, preference: settings.configurationPreference });
      if (outcome.problem === "cancelled") return "skipped";
      if (outcome.problem) this.log.info(`Not checking ${file}: ${outcome.problem}.`);
      diagnostics = outcome.diagnostics ?? [];
    } catch (error) {
      this.log.error(`Checking ${file} failed: ${errorText(error)}`);
      return "failed";
    }
    if (!current() || this.host.openUri(file) !== undefined) return "skipped";
    // A file never shown with findings needs no empty publication.
    if (diagnostics.length > 0 || this.shown.has(file)) {
      this.shown.set(file, uri);
      this.host.publish(uri, diagnostics.map((diagnostic) => toLspDiagnostic(uri, diagnostic)));
    }
    return diagnostics.length;
  }

  private clear(): void {
    this.generation++;
    this.threads.cancelQueued();
    for (const file of [...this.shown.keys()]) this.clearFile(file);
  }

  private clearFile(file: string): void {
    const uri = this.shown.get(file);
    if (uri === undefined) return;
    this.shown.delete(file);
    this.threads.forget([uri]);
    if (this.host.openUri(file) === undefined) this.host.publish(uri, []);
  }

  /** A deleted file, or every file below a deleted folder. */
  private clearBelow(deleted: string): void {
    for (const file of [...this.shown.keys()]) if (file === deleted || isWithin(deleted, file)) this.clearFile(file);
  }

  private isInWorkspace(file: string): boolean {
    return this.host.folders().some((folder) => isWithin(folder, file));
  }
}
