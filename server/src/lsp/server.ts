/**
 * The language server's connection thread: routes LSP messages to the open documents, the lint
 * worker, the diagnostic scheduler, the code actions and the review, the reader that feeds the worker's
 * workspace index, and the Airflow version pins (watched project files in, notifications for the
 * client's status bar out). Every handler is guarded: a failure is logged and answered with an
 * empty result, never allowed to end the process.
 */
import {
  CodeAction,
  CodeActionParams,
  CompletionItem,
  CompletionItemKind,
  CompletionParams,
  DidChangeWatchedFilesNotification,
  Hover,
  HoverParams,
  InitializeParams,
  InitializeResult,
  InsertTextFormat,
  MarkupKind,
  MessageType,
  ShowMessageNotification,
  TextDocumentSyncKind,
  WatchKind,
} from "vscode-languageserver/node";
import { AirflowVersionNotifier, PIN_FILE_WATCHERS, projectFileChanges } from "./airflowVersion";
import { AIRFLOW_VERSION_METHOD, AirflowVersionParams } from "./airflowVersionProtocol";
import { BaselineStore } from "./baseline";
import { ConfigurationNotices } from "./configurationNotices";
import { diagnosticActions, EditTarget, fixAllAction, fixAllQuickFix, isFixAllData, isFixAllRequested, isRequested, ownDiagnostics, PROVIDED_KINDS, workspaceEdit } from "./codeActions";
import { DiagnosticScheduler, lintOptions, MAX_LINTED_CHARACTERS } from "./diagnostics";
import { registerDagOutline } from "./dagOutline";
import { registerReview } from "./reviewRequest";
import { OpenDocuments } from "./documents";
import { LintWorkerPool } from "./lintWorkerPool";
import { errorText, LeveledLogger } from "./logger";
import { logLevelOf, type LogInitializationOptions } from "./logProtocol";
import { describeVersions, serverVersions } from "./versions";
import { isObject, SECTION, SettingsStore } from "./settings";
import type { CompletionEntry } from "./workerProtocol";
import { WorkspaceFiles } from "./workspaceFiles";
import { DiagnosticMode, parseDiagnosticMode } from "./diagnosticMode";
import { registerCheckWorkspace } from "./workspaceCheckRequest";
import { WorkspaceCheckThreads } from "./workspaceCheckThreads";
import { WorkspaceDiagnostics } from "./workspaceDiagnostics";
import { filePathOf } from "./workerWorkspace";
import { createServerConnection } from "./serverConnection";

interface Services {
  scheduler: DiagnosticScheduler;
  worker: LintWorkerPool;
  settings: SettingsStore;
  baseline: BaselineStore;
  /** Reads the workspace's Python files into the worker's index of operator classes. */
  files: WorkspaceFiles;
  /** Tells the client the Airflow version each linted document's project pins. */
  pins: AirflowVersionNotifier;
  /** Diagnostics of the workspace's files that are not open (diagnosticMode "workspace", Check Whole Workspace). */
  workspace: WorkspaceDiagnostics;
  /** The `airflowStateStore.diagnosticMode` the client answers now; `pushed` is a didChangeConfiguration payload for clients that cannot be asked. */
  readDiagnosticMode(pushed?: unknown): Promise<DiagnosticMode>;
  /** The client applies versioned `documentChanges`. */
  versionedEdits: boolean;
  /** The client expands snippet tab stops in completions. */
  snippets: boolean;
  /** The client accepts file watchers registered by the server. */
  watchRegistration: boolean;
}

/** `workerScript` is the file its worker threads run (`workerMain.ts`): the lint workers and the workspace check threads. */
export function startServer(workerScript: string): void {
  let shutdownRequested = false;
  const connection = createServerConnection(() => shutdownRequested);
  // Until initialize says otherwise, the setting's default.
  const log = new LeveledLogger(
    {
      error: (message) => connection.console.error(message),
      warn: (message) => connection.console.warn(message),
      info: (message) => connection.console.info(message),
      debug: (message) => connection.console.debug(message),
    },
    logLevelOf(undefined),
  );
  const guard =
    <P extends unknown[], R>(name: string, fallback: R, handler: (...args: P) => R | Promise<R>) =>
    async (...args: P): Promise<R> => {
      try {
        return await handler(...args);
      } catch (error) {
        log.error(`${name} failed: ${errorText(error)}`);
        return fallback;
      }
    };
  process.on("uncaughtException", (error) => log.error(`Uncaught: ${errorText(error)}`));
  process.on("unhandledRejection", (reason) => log.error(`Unhandled rejection: ${errorText(reason)}`));

  const documents = new OpenDocuments();
  let services: Services | undefined;
  registerDagOutline(connection, documents, () => services?.worker, log);
  registerReview(connection, documents, () => services, log);
  registerCheckWorkspace(connection, () => services?.workspace, log);

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const options = params.initializationOptions as ({ trusted?: unknown } & LogInitializationOptions) | undefined;
    const trusted = options?.trusted === true;
    log.level = logLevelOf(options?.logLevel);
    const settings = new SettingsStore(
      params.capabilities.workspace?.configuration ? (scopeUri) => connection.workspace.getConfiguration({ scopeUri, section: SECTION }) : undefined,
      log,
    );
    const baseline = new BaselineStore(trusted, (uri) => services?.scheduler.schedule(uri, 0), log);
    const worker = new LintWorkerPool(workerScript, documents, log, {
      // A new worker knows none of the workspace's modules.
      workerStarted: () => void files.scan(),
      relint: (uris) => {
        for (const uri of uris) services?.scheduler.schedule(uri, 0);
      },
      dependentsChanged: (uris) => {
        for (const uri of uris) if (documents.get(uri)) services?.scheduler.schedule(uri, 0);
      },
      // The worker it left now indexes its file from disk, as for a closed document.
      moved: (uri) => files.documentClosed(uri),
    });
    const files = new WorkspaceFiles(worker, (uri) => documents.get(uri) !== undefined, log);
    const workspaceFolders = params.workspaceFolders?.map((folder) => folder.uri) ?? (params.rootUri ? [params.rootUri] : []);
    files.setFolders(workspaceFolders);
    const folderPaths = workspaceFolders.map(filePathOf).filter((folder): folder is string => folder !== undefined);
    const checkThreads = new WorkspaceCheckThreads(workerScript, log, (uris) => services?.workspace.stale(uris));
    checkThreads.configure(folderPaths, trusted);
    const workspace = new WorkspaceDiagnostics(
      {
        folders: () => folderPaths,
        openUri: (file) => documents.all().find((document) => filePathOf(document.uri) === file)?.uri,
        settingsFor: (folderUri) => settings.forDocument(folderUri),
        publish: (uri, diagnostics) => void connection.sendDiagnostics({ uri, diagnostics }),
      },
      checkThreads,
      log,
    );
    const pull = params.capabilities.workspace?.configuration === true;
    const readDiagnosticMode = async (pushed?: unknown) =>
      parseDiagnosticMode(pull ? await connection.workspace.getConfiguration({ section: SECTION }) : isObject(pushed) ? pushed[SECTION] : undefined, (message) => log.error(message));
    const pins = new AirflowVersionNotifier((params) => void connection.sendNotification(AIRFLOW_VERSION_METHOD, params satisfies AirflowVersionParams), log);
    // A notification, not window.showWarningMessage's request: nothing waits for the user to close it.
    const configurationNotices = new ConfigurationNotices(log, (message) => void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message }));
    const scheduler = new DiagnosticScheduler(
      documents,
      worker,
      settings,
      baseline,
      {
        publish: (uri, version, diagnostics) => void connection.sendDiagnostics({ uri, version, diagnostics }),
        airflowVersion: (uri, pin) => pins.linted(uri, pin),
        configurationProblems: (file, problems) => configurationNotices.report(file, problems),
      },
      log,
    );
    services = {
      scheduler,
      worker,
      settings,
      baseline,
      files,
      pins,
      workspace,
      readDiagnosticMode,
      versionedEdits: params.capabilities.workspace?.workspaceEdit?.documentChanges === true,
      snippets: params.capabilities.textDocument?.completion?.completionItem?.snippetSupport === true,
      watchRegistration: params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true,
    };
    const versions = serverVersions();
    log.info(
      `${describeVersions(versions)} started, log level ${log.level}; ${trusted ? "trusted workspace" : "untrusted workspace: git is not run, so AS301 (external_id_key renamed since the last commit) is off"}.`,
    );
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeActionProvider: { codeActionKinds: PROVIDED_KINDS, resolveProvider: true },
        hoverProvider: true,
        completionProvider: { triggerCharacters: ["="], resolveProvider: false },
      },
      serverInfo: { name: "airflow-state-store", version: versions.server },
    };
  });

  connection.onInitialized(
    guard("initialized", undefined, async () => {
      // In the background: diagnostics of open documents go ahead, and are redone for those whose imported modules turn up.
      void services?.files.scan();
      if (services) services.workspace.setMode(await services.readDiagnosticMode());
      // The client's `**/*.py` watcher says nothing when a whole folder of modules is deleted.
      if (services?.watchRegistration) {
        await connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: "**/*", kind: WatchKind.Delete }] });
        // Where the Airflow version is pinned: a changed pin re-checks the open documents it applies to.
        await connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: PIN_FILE_WATCHERS });
      }
    }),
  );

  connection.onDidChangeWatchedFiles(
    guard("didChangeWatchedFiles", undefined, ({ changes }) => {
      if (!services) return;
      services.files.filesChanged(changes);
      services.workspace.filesChanged(changes);
      const projectFiles = projectFileChanges(changes);
      if (projectFiles.length > 0) services.worker.post({ type: "projectFilesChanged", paths: projectFiles });
    }),
  );

  connection.onDidOpenTextDocument(
    guard("didOpen", undefined, ({ textDocument }) => {
      if (!services) return;
      const document = documents.open(textDocument);
      if (!document) return;
      services.worker.post({ type: "open", uri: document.uri, text: document.text, version: document.version });
      services.workspace.documentOpened(document.uri);
      services.scheduler.schedule(document.uri, 0);
    }),
  );

  connection.onDidChangeTextDocument(
    guard("didChange", undefined, (params) => {
      const document = documents.get(params.textDocument.uri);
      if (!services || !document) return;
      document.apply(params);
      const changes = params.contentChanges.map((change) => ("range" in change ? { range: change.range, text: change.text } : { text: change.text }));
      services.worker.post({ type: "change", uri: document.uri, changes, version: document.version });
      services.scheduler.documentChanged(document.uri);
    }),
  );

  connection.onDidSaveTextDocument(
    guard("didSave", undefined, ({ textDocument }) => {
      if (documents.get(textDocument.uri)) services?.baseline.refresh(textDocument.uri);
    }),
  );

  connection.onDidCloseTextDocument(
    guard("didClose", undefined, ({ textDocument }) => {
      const { uri } = textDocument;
      if (!services || !documents.close(uri)) return;
      services.worker.post({ type: "close", uri });
      services.files.documentClosed(uri);
      services.baseline.forget(uri);
      services.settings.forget(uri);
      services.scheduler.forget(uri);
      services.pins.forget(uri);
      services.workspace.documentClosed(uri);
    }),
  );

  connection.onDidChangeConfiguration(
    guard("didChangeConfiguration", undefined, async ({ settings }) => {
      if (!services) return;
      const section = (settings as { airflowStateStore?: { logLevel?: unknown } } | null)?.airflowStateStore;
      if (section) log.level = logLevelOf(section.logLevel);
      services.settings.changed(settings);
      services.scheduler.scheduleAll();
      const { workspace } = services;
      const mode = await services.readDiagnosticMode(settings);
      if (mode === workspace.diagnosticMode) workspace.settingsChanged();
      else workspace.setMode(mode);
    }),
  );

  connection.onCodeAction(
    guard("codeAction", [] as CodeAction[], async (params: CodeActionParams) => {
      const document = documents.get(params.textDocument.uri);
      if (!services || !document) return [];
      const { uri, version } = document;
      const settings = await services.settings.forDocument(uri);
      if (!settings.enable || document.version !== version) return [];
      const target: EditTarget = { uri, version, versioned: services.versionedEdits };
      const only = params.context.only;
      // Fixes exist only for diagnostics of this very version; older ones get none until re-linted.
      const shown = services.scheduler.isPublished(uri, version) ? ownDiagnostics(params.context.diagnostics) : [];
      const findings = shown.map((d) => ({ code: String(d.code), range: d.range }));
      const answer = shown.length > 0 ? await services.worker.codeActions(uri, version, findings) : undefined;
      const current = document.version === version && documents.get(uri) === document;
      const actions = answer && current ? diagnosticActions(target, answer, shown) : [];
      if (isFixAllRequested(only) && document.text.length <= MAX_LINTED_CHARACTERS) {
        const fixed = await services.worker.fixAll(uri, version, lintOptions(uri, settings, services.baseline.textFor(uri)));
        if (fixed?.edit && document.version === version && documents.get(uri) === document) actions.push(fixAllAction(target, fixed.edit));
      } else if (answer && current) {
        const fixAll = fixAllQuickFix(target, answer, shown);
        if (fixAll) actions.push(fixAll);
      }
      return actions.filter((action) => isRequested(action.kind!, only));
    }),
  );

  // The lightbulb's fix-all gets its edit only once chosen, for the version it was offered on.
  connection.onCodeActionResolve(async (action: CodeAction) => {
    try {
      return await resolveFixAll(action);
    } catch (error) {
      log.error(`codeAction/resolve failed: ${errorText(error)}`);
      return action;
    }
  });
  const resolveFixAll = async (action: CodeAction): Promise<CodeAction> => {
    if (!isFixAllData(action.data)) return action;
    const { uri, version } = action.data.fixAll;
    const document = documents.get(uri);
    if (!services || !document || document.version !== version) return action;
    const settings = await services.settings.forDocument(uri);
    const fixed = await services.worker.fixAll(uri, version, lintOptions(uri, settings, services.baseline.textFor(uri)));
    if (fixed?.edit && document.version === version) action.edit = workspaceEdit({ uri, version, versioned: services.versionedEdits }, [fixed.edit]);
    return action;
  };

  connection.onHover(
    guard("hover", null as Hover | null, async (params: HoverParams) => {
      const document = documents.get(params.textDocument.uri);
      if (!services || !document) return null;
      const { uri, version } = document;
      if (!(await services.settings.forDocument(uri)).enable) return null;
      const hover = await services.worker.hover(uri, version, params.position);
      return hover ? { contents: { kind: MarkupKind.Markdown, value: hover.markdown }, range: hover.range } : null;
    }),
  );

  connection.onCompletion(
    guard("completion", [] as CompletionItem[], async (params: CompletionParams) => {
      const document = documents.get(params.textDocument.uri);
      if (!services || !document) return [];
      const { uri, version } = document;
      if (!(await services.settings.forDocument(uri)).enable) return [];
      const result = await services.worker.completion(uri, version, params.position);
      const snippets = services.snippets;
      return (result?.items ?? []).map((entry) => completionItem(entry, snippets));
    }),
  );

  connection.onShutdown(async () => {
    shutdownRequested = true;
    services?.scheduler.dispose();
    services?.baseline.dispose();
    await services?.workspace.dispose();
    // The reply waits until the workers have left, so the exit that follows finds none at work.
    await services?.worker.dispose();
  });

  connection.listen();
}

function completionItem(entry: CompletionEntry, snippets: boolean): CompletionItem {
  const newText = entry.snippet && !snippets ? withoutTabStops(entry.edit.newText) : entry.edit.newText;
  return {
    label: entry.label,
    kind: entry.snippet ? CompletionItemKind.Snippet : CompletionItemKind.Constant,
    detail: entry.detail,
    documentation: { kind: MarkupKind.Markdown, value: entry.documentation },
    filterText: entry.filterText,
    sortText: entry.sortText,
    insertTextFormat: entry.snippet && snippets ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
    textEdit: { range: entry.edit.range, newText },
    additionalTextEdits: entry.additionalEdits.map((edit) => ({ range: edit.range, newText: edit.newText })),
  };
}

/** `timedelta(days=${1:7})` → `timedelta(days=7)`, for clients without snippet support. */
function withoutTabStops(snippet: string): string {
  return snippet.replace(/\$\{\d+:([^}]*)\}/g, "$1").replace(/\$\d+/g, "");
}

