/**
 * A real LSP client driving the built server (dist/server.js) in a child process over stdio.
 * It answers workspace/configuration from `settings`, records every publishDiagnostics and log
 * message, and lets a test wait for the diagnostics of one document version.
 */
import { ChildProcess, fork, spawn } from "node:child_process";
import * as fs from "node:fs";
import { pathToFileURL } from "node:url";
import {
  CodeAction,
  CodeActionParams,
  CodeActionRequest,
  CodeActionResolveRequest,
  Command,
  CompletionItem,
  CompletionList,
  CompletionRequest,
  ConfigurationParams,
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  ExitNotification,
  FileEvent,
  Hover,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  InitializeResult,
  IPCMessageReader,
  IPCMessageWriter,
  LogMessageNotification,
  LogMessageParams,
  Position,
  ProtocolConnection,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  Registration,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentContentChangeEvent,
  WorkspaceEdit,
  CancellationToken,
  ProgressToken,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from "vscode-languageserver-protocol/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { fromRoot } from "../support/paths";

export const SERVER = fromRoot("dist", "server.js");
export const DEFAULT_TIMEOUT_MS = 5000;

export interface SessionOptions {
  /** Sent as initializationOptions; omitted entirely when undefined (the server must then assume untrusted). */
  initializationOptions?: unknown;
  /** The `airflowStateStore` section returned for workspace/configuration. */
  settings?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** How the server is started: `node dist/server.js --stdio` (default) or forked with `--node-ipc`. */
  transport?: "stdio" | "ipc";
  /** Folders opened as the workspace (absolute paths); none by default. */
  workspaceFolders?: string[];
  /** Whether the client accepts snippets in completions (default true, as VS Code). */
  snippetSupport?: boolean;
  /** Whether the client accepts file watchers the server registers (as VS Code does); off by default. */
  watcherRegistration?: boolean;
  /** Called when the server creates a window/workDoneProgress, before the client answers (a test may cancel it right after). */
  onProgressCreated?: (token: ProgressToken) => void;
}

interface DiagnosticsWaiter {
  accepts(params: PublishDiagnosticsParams): boolean;
  resolve(params: PublishDiagnosticsParams): void;
}

export interface WaitOptions {
  timeoutMs?: number;
  matching?: (params: PublishDiagnosticsParams) => boolean;
}

export class LspSession {
  settings: Record<string, unknown>;
  readonly configurationRequests: ConfigurationParams[] = [];
  readonly published: PublishDiagnosticsParams[] = [];
  readonly logs: LogMessageParams[] = [];
  /** What the server registered with client/registerCapability. */
  readonly registrations: Registration[] = [];
  /** The `$/progress` values the server sent, in order, with their tokens. */
  readonly progress: { token: ProgressToken; value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd }[] = [];
  readonly initializeResult: Promise<InitializeResult>;
  /** The client's copy of each open document, updated with every change it sends. */
  private readonly texts = new Map<string, TextDocument>();
  private waiters: DiagnosticsWaiter[] = [];
  private stderr = "";
  private disposed = false;
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly connection: ProtocolConnection;

  constructor(options: SessionOptions = {}) {
    if (!fs.existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first`);
    this.settings = options.settings ?? {};
    const env = options.env ?? process.env;
    if (options.transport === "ipc") {
      // As VS Code starts it with TransportKind.ipc: a forked Node process talking over its IPC channel.
      this.child = fork(SERVER, ["--node-ipc"], { env, stdio: ["ignore", "ignore", "pipe", "ipc"] });
      this.connection = createProtocolConnection(new IPCMessageReader(this.child), new IPCMessageWriter(this.child));
    } else {
      this.child = spawn(process.execPath, [SERVER, "--stdio"], { env });
      this.connection = createProtocolConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    }
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.connection.onRequest(ConfigurationRequest.type, (params) => {
      this.configurationRequests.push(params);
      return params.items.map((item) => (item.section === "airflowStateStore" ? this.settings : null));
    });
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.push(params);
      const [matching, waiting] = partition(this.waiters, (w) => w.accepts(params));
      this.waiters = waiting;
      for (const waiter of matching) waiter.resolve(params);
    });
    this.connection.onRequest(RegistrationRequest.type, (params) => {
      this.registrations.push(...params.registrations);
    });
    this.connection.onNotification(LogMessageNotification.type, (params) => {
      this.logs.push(params);
    });
    this.connection.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      this.connection.onProgress(WorkDoneProgress.type, token, (value) => void this.progress.push({ token, value }));
      options.onProgressCreated?.(token);
    });
    this.connection.listen();
    this.initializeResult = this.connection
      .sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: null,
        workspaceFolders: options.workspaceFolders?.map((folder) => ({ uri: fileUri(folder), name: folder })) ?? null,
        initializationOptions: options.initializationOptions,
        capabilities: {
          workspace: {
            configuration: true,
            workspaceEdit: { documentChanges: true },
            didChangeConfiguration: { dynamicRegistration: false },
            didChangeWatchedFiles: { dynamicRegistration: options.watcherRegistration ?? false },
          },
          window: { workDoneProgress: true },
          textDocument: {
            synchronization: { didSave: true },
            publishDiagnostics: { versionSupport: true, codeDescriptionSupport: true },
            codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix", "refactor.rewrite", "source.fixAll"] } }, isPreferredSupport: true },
            hover: { contentFormat: ["markdown", "plaintext"] },
            completion: { completionItem: { snippetSupport: options.snippetSupport ?? true } },
          },
        },
      })
      .then((result) => {
        void this.unlessDisposed(this.connection.sendNotification(InitializedNotification.type, {}));
        return result;
      });
  }

  static async start(options: SessionOptions = {}): Promise<LspSession> {
    const session = new LspSession(options);
    await session.initializeResult;
    return session;
  }

  text(uri: string): string {
    return this.document(uri).getText();
  }

  /**
   * Resolves with the next publishDiagnostics for `uri` (of `version`, when given, and satisfying
   * `matching`) that arrives after this call; call it before sending what triggers the publish.
   */
  nextDiagnostics(uri: string, version?: number, { timeoutMs = DEFAULT_TIMEOUT_MS, matching }: WaitOptions = {}): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        const seen = this.published.filter((p) => p.uri === uri).map((p) => `v${p.version}: ${p.diagnostics.map((d) => d.code).join(",") || "none"}`);
        reject(new Error(`no matching diagnostics for ${uri}${version === undefined ? "" : ` version ${version}`} within ${timeoutMs} ms; received ${seen.join(" | ") || "nothing"}${this.stderr ? `\nserver stderr:\n${this.stderr}` : ""}`));
      }, timeoutMs);
      const waiter: DiagnosticsWaiter = {
        accepts: (params) => params.uri === uri && (version === undefined || params.version === version) && (!matching || matching(params)),
        resolve: (params) => {
          clearTimeout(timer);
          resolve(params);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * Resolves with the diagnostics for `uri` as soon as they satisfy `matching`: the latest ones
   * published already, or the next that do.
   */
  diagnosticsWhen(uri: string, matching: (params: PublishDiagnosticsParams) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<PublishDiagnosticsParams> {
    const latest = this.published.filter((p) => p.uri === uri).pop();
    if (latest && matching(latest)) return Promise.resolve(latest);
    return this.nextDiagnostics(uri, undefined, { timeoutMs, matching });
  }

  /** Opens a Python document and waits for its first diagnostics. */
  async open(uri: string, text: string, version = 1): Promise<PublishDiagnosticsParams> {
    const published = this.nextDiagnostics(uri, version);
    this.openWithoutWaiting(uri, text, version);
    return published;
  }

  openWithoutWaiting(uri: string, text: string, version = 1, languageId = "python"): void {
    this.texts.set(uri, TextDocument.create(uri, languageId, version, text));
    void this.unlessDisposed(this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version, text } }));
  }

  /** Sends changes as the next version and waits for that version's diagnostics. */
  async change(uri: string, changes: TextDocumentContentChangeEvent[]): Promise<PublishDiagnosticsParams> {
    const version = this.document(uri).version + 1;
    const published = this.nextDiagnostics(uri, version);
    this.changeWithoutWaiting(uri, changes);
    return published;
  }

  changeWithoutWaiting(uri: string, changes: TextDocumentContentChangeEvent[]): number {
    const document = TextDocument.update(this.document(uri), changes, this.document(uri).version + 1);
    this.texts.set(uri, document);
    void this.unlessDisposed(this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: document.version }, contentChanges: changes }));
    return document.version;
  }

  /** Applies a WorkspaceEdit for `uri` to the client's copy and sends the result as the next version. */
  async applyEdit(uri: string, edit: WorkspaceEdit): Promise<PublishDiagnosticsParams> {
    const document = this.document(uri);
    const edits = edit.documentChanges
      ? edit.documentChanges.flatMap((change) => {
          if (!("textDocument" in change) || change.textDocument.uri !== uri) throw new Error(`unexpected document change ${JSON.stringify(change)}`);
          if (change.textDocument.version !== document.version) throw new Error(`edit made for version ${change.textDocument.version}, document is at ${document.version}`);
          return change.edits.map((e) => {
            if (!("newText" in e)) throw new Error("snippet edits are not expected");
            return e;
          });
        })
      : edit.changes?.[uri] ?? [];
    return this.change(uri, [{ text: TextDocument.applyEdits(document, edits) }]);
  }

  save(uri: string): void {
    void this.unlessDisposed(this.connection.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } }));
  }

  close(uri: string): void {
    this.texts.delete(uri);
    void this.unlessDisposed(this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } }));
  }

  /** Replaces the settings the client answers with and tells the server they changed, as VS Code does. */
  changeSettings(settings: Record<string, unknown>): void {
    this.settings = settings;
    void this.unlessDisposed(this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: { airflowStateStore: settings } }));
  }

  codeActions(uri: string, params: Pick<CodeActionParams, "range" | "context">): Promise<(CodeAction | Command)[] | null> {
    return this.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, ...params });
  }

  resolveCodeAction(action: CodeAction): Promise<CodeAction> {
    return this.connection.sendRequest(CodeActionResolveRequest.type, action);
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }

  completion(uri: string, position: Position, triggerCharacter?: string): Promise<CompletionItem[] | CompletionList | null> {
    return this.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position, context: triggerCharacter ? { triggerKind: 2, triggerCharacter } : { triggerKind: 1 } });
  }

  /** workspace/didChangeWatchedFiles, as the client's `**\/*.py` watcher sends it. */
  filesChanged(changes: FileEvent[]): void {
    void this.unlessDisposed(this.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes }));
  }

  /** Any request, by method name (the server's own ones, such as airflowStateStore/checkWorkspace). */
  request<R>(method: string, params: unknown, token?: CancellationToken): Promise<R> {
    // An undefined token would be sent as a second positional parameter.
    return token ? this.connection.sendRequest<R>(method, params, token) : this.connection.sendRequest<R>(method, params);
  }

  /** window/workDoneProgress/cancel: the user pressed Cancel on the progress notification. */
  cancelProgress(token: ProgressToken): void {
    void this.unlessDisposed(this.connection.sendNotification(WorkDoneProgressCancelNotification.type, { token }));
  }

  /** shutdown, then exit; resolves with the process's exit code. */
  async shutdown(): Promise<number | null> {
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.unlessDisposed(this.connection.sendNotification(ExitNotification.type));
    return this.exited;
  }

  /** Ends the child process if a test left it running. */
  dispose(): void {
    this.disposed = true;
    this.connection.dispose();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
  }

  errorLogs(): string[] {
    return this.logs.filter((log) => log.type === 1).map((log) => log.message);
  }

  get serverStderr(): string {
    return this.stderr;
  }

  /** A write that fails after `dispose` is expected (the process is gone); before it, it fails the test. */
  private unlessDisposed(sent: Promise<void>): Promise<void> {
    return sent.catch((error: unknown) => {
      if (!this.disposed) throw error;
    });
  }

  private document(uri: string): TextDocument {
    const document = this.texts.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    return document;
  }
}

function partition<T>(items: T[], predicate: (item: T) => boolean): [T[], T[]] {
  return [items.filter(predicate), items.filter((item) => !predicate(item))];
}

export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}
