/**
 * The language client of the LSP benchmark: starts the built server (dist/server.js) over stdio as
 * VS Code does (a trusted workspace, versioned diagnostics), sends documents and edits, and waits
 * for the `publishDiagnostics` of a given version. Unlike test/lsp/session.ts it knows the server's
 * process id (for its memory) and never fails on a slow server: a wait ends at its time limit.
 */
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { pathToFileURL } from "node:url";
import {
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ProtocolConnection,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentContentChangeEvent,
} from "vscode-languageserver-protocol/node";
import { fromRoot } from "../support/paths";

const SERVER = fromRoot("dist", "server.js");

interface Waiter {
  version: number;
  resolve(arrived: boolean): void;
}

export class BenchLspClient {
  /** Documents that have received diagnostics at least once. */
  readonly published = new Set<string>();
  /** The number of diagnostics last published for each document. */
  readonly findings = new Map<string, number>();
  /** Called after each publishDiagnostics is recorded. */
  onPublish: (() => void) | undefined;
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly child: ChildProcess;
  private readonly connection: ProtocolConnection;

  private constructor(settings: Record<string, unknown>) {
    if (!fs.existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first`);
    this.child = spawn(process.execPath, [SERVER, "--stdio"], { stdio: ["pipe", "pipe", "ignore"] });
    this.connection = createProtocolConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    this.connection.onRequest(ConfigurationRequest.type, (params) => params.items.map((item) => (item.section === "airflowStateStore" ? settings : null)));
    this.connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.add(params.uri);
      this.findings.set(params.uri, params.diagnostics.length);
      const waiting = this.waiters.get(params.uri) ?? [];
      // Diagnostics without a version, or of a later version, answer every earlier wait too.
      const answered = waiting.filter((w) => params.version === undefined || w.version <= params.version);
      this.waiters.set(params.uri, waiting.filter((w) => !answered.includes(w)));
      for (const waiter of answered) waiter.resolve(true);
      this.onPublish?.();
    });
    this.connection.onRequest(RegistrationRequest.type, () => undefined);
    this.connection.listen();
  }

  /** `workspaceFolder`: the one folder opened (none by default); `settings`: the `airflowStateStore` section. */
  static async start({ workspaceFolder, settings = {} }: { workspaceFolder?: string; settings?: Record<string, unknown> } = {}): Promise<BenchLspClient> {
    const client = new BenchLspClient(settings);
    await client.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: workspaceFolder ? [{ uri: pathToFileURL(workspaceFolder).href, name: "bench" }] : null,
      initializationOptions: { trusted: true },
      capabilities: { workspace: { configuration: true }, textDocument: { publishDiagnostics: { versionSupport: true } } },
    });
    await client.connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  /** The server process's resident memory in MB (its worker threads share the process). */
  rssMb(): number {
    const status = fs.readFileSync(`/proc/${this.child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  }

  /** Resolves true when diagnostics of `version` (or later) arrive for `uri`, false after `timeoutMs`. Call before sending. */
  diagnostics(uri: string, version: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.set(uri, (this.waiters.get(uri) ?? []).filter((w) => w !== waiter));
        resolve(false);
      }, timeoutMs);
      const waiter: Waiter = {
        version,
        resolve: (arrived) => {
          clearTimeout(timer);
          resolve(arrived);
        },
      };
      this.waiters.set(uri, [...(this.waiters.get(uri) ?? []), waiter]);
    });
  }

  open(uri: string, text: string, version = 1): void {
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "python", version, text } });
  }

  change(uri: string, version: number, changes: TextDocumentContentChangeEvent[]): void {
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: changes });
  }

  /** Any request, by method name (the server's own ones, such as airflowStateStore/checkWorkspace). */
  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  /** Asks the server to shut down, and kills it if it is too busy to answer within a second. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => (this.child.exitCode !== null ? resolve() : this.child.once("exit", () => resolve())));
    const graceful = (async () => {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
      await exited;
    })().catch(() => undefined);
    await Promise.race([graceful, new Promise((resolve) => setTimeout(resolve, 1000))]);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
    await exited;
    this.connection.dispose();
  }
}
