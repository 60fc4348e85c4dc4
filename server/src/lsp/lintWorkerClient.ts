/**
 * The connection thread's handle on one lint worker thread: posts document changes, turns lint and fix-all
 * requests into promises, and replaces the worker if it dies (for instance out of memory on a huge
 * file) so the server keeps running. It holds each document's diagnostics as the worker sent them
 * last, which the worker's next lint result changes (diagnosticUpdates.ts).
 */
import { Worker } from "node:worker_threads";
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver";
import type { Position } from "../engine";
import { toLspDiagnostic } from "./diagnostics";
import { DiagnosticLists } from "./diagnosticUpdates";
import type { CodeActionsResult, CompletionResult, DagOutlineResult, FindingReference, FixAllResult, FromWorker, HoverResult, LintResult, ReviewResult, ToWorker, WorkerLintOptions, WorkerRequest, WorkerResult } from "./workerProtocol";
import { errorText, Logger } from "./logger";
import { exposeCollectorToWorkers } from "./treeCollector";

/** More deaths than this within the window mean something is systematically wrong: stop restarting. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

export interface WorkerEvents {
  /** A new worker replaced a dead one and knows no document yet. */
  restarted(): void;
  /** The worker dropped its copy of a document and needs it again. */
  lost(uri: string): void;
  /** Open documents whose imported modules changed in the workspace index. */
  dependentsChanged?(uris: string[]): void;
}

/** A lint's result with the document's whole list of diagnostics, ready to publish. */
export interface LintOutcome extends Omit<LintResult, "diagnostics"> {
  diagnostics: LspDiagnostic[];
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  /** Turns the reply into the request's result as it arrives: replies are read in the order the worker sent them. */
  receive?(result: WorkerResult | undefined): unknown;
}

/** How long a stopping worker may take to finish its current task. */
const STOP_GRACE_MS = 3000;

export class LintWorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly lists = new DiagnosticLists(toLspDiagnostic);
  private recentRestarts: number[] = [];
  private disposed = false;

  /** `startThread` starts the thread `create` makes (with a young generation of the size its lane wants: youngGenerations.ts). */
  constructor(
    private readonly script: string,
    private readonly log: Logger,
    private readonly events: WorkerEvents,
    private readonly startThread: (create: () => Worker) => Worker = (create) => create(),
  ) {
    this.worker = this.spawn();
  }

  /** Document lifecycle messages; dropped while no worker runs (a replacement gets every document again). */
  post(message: Exclude<ToWorker, WorkerRequest>): void {
    // The worker forgets a closed document's diagnostics too; it sends a whole list after it is opened again.
    if (message.type === "close") this.lists.forget(message.uri);
    this.worker?.postMessage(message);
  }

  /** Resolves to undefined when the worker's copy is no longer at `version`. */
  lint(uri: string, version: number, options: WorkerLintOptions): Promise<LintOutcome | undefined> {
    const receive = (reply: WorkerResult | undefined): LintOutcome | undefined => {
      const result = reply as LintResult | undefined;
      if (!result) return undefined;
      const diagnostics = this.lists.apply(uri, result.diagnostics, () => {
        this.log.error(`The lint worker's diagnostics of ${uri} no longer matched the connection thread's; reloading the document.`);
        this.events.lost(uri);
      });
      return diagnostics && { ...result, diagnostics };
    };
    return this.request({ type: "lint", id: this.nextId++, uri, version, options }, receive) as Promise<LintOutcome | undefined>;
  }

  /** The actions of the findings of the document's last lint; undefined unless it was of `version`. */
  codeActions(uri: string, version: number, findings: FindingReference[]): Promise<CodeActionsResult | undefined> {
    return this.request({ type: "codeActions", id: this.nextId++, uri, version, findings }) as Promise<CodeActionsResult | undefined>;
  }

  fixAll(uri: string, version: number, options: WorkerLintOptions): Promise<FixAllResult | undefined> {
    return this.request({ type: "fixAll", id: this.nextId++, uri, version, options }) as Promise<FixAllResult | undefined>;
  }

  /** The Markdown review of the document; undefined when the worker's copy is no longer at `version`. */
  review(uri: string, version: number, options: WorkerLintOptions): Promise<ReviewResult | undefined> {
    return this.request({ type: "review", id: this.nextId++, uri, version, options }) as Promise<ReviewResult | undefined>;
  }

  /** Undefined when the version moved on or nothing at the position has a hover. */
  hover(uri: string, version: number, position: Position): Promise<HoverResult | undefined> {
    return this.request({ type: "hover", id: this.nextId++, uri, version, position }) as Promise<HoverResult | undefined>;
  }

  completion(uri: string, version: number, position: Position): Promise<CompletionResult | undefined> {
    return this.request({ type: "completion", id: this.nextId++, uri, version, position }) as Promise<CompletionResult | undefined>;
  }

  /** Undefined when the worker's copy of the document is no longer at `version`. */
  dagOutline(uri: string, version: number): Promise<DagOutlineResult | undefined> {
    return this.request({ type: "dagOutline", id: this.nextId++, uri, version }) as Promise<DagOutlineResult | undefined>;
  }

  /**
   * Stops the worker. It is asked to leave between two tasks, because a thread terminated while it
   * runs the parser's native code aborts the whole process ("terminate called after throwing an
   * instance of 'Napi::Error'"); only one that has not left after `graceMs` (a lint of a huge file)
   * is terminated.
   */
  dispose(graceMs = STOP_GRACE_MS): Promise<void> {
    this.disposed = true;
    this.rejectPending("the language server is shutting down");
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => void worker.terminate().then(() => resolve(), () => resolve()), graceMs);
      worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: "stop" } satisfies ToWorker);
    });
  }

  private request(message: WorkerRequest, receive?: Pending["receive"]): Promise<unknown> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error("the lint worker is not running"));
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject, receive });
      worker.postMessage(message);
    });
  }

  private spawn(): Worker {
    exposeCollectorToWorkers();
    // stdout: true keeps what the thread might print off the server's stdout, which over stdio carries the protocol.
    const worker = this.startThread(() => new Worker(this.script, { stdout: true }));
    worker.stdout.pipe(process.stderr);
    worker.on("message", (message: FromWorker) => this.receive(message));
    worker.on("error", (error) => this.log.error(`The lint worker failed: ${errorText(error)}`));
    worker.on("exit", (code) => this.exited(worker, code));
    return worker;
  }

  private receive(message: FromWorker): void {
    switch (message.type) {
      case "reply":
      case "failed": {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.type === "reply") pending?.resolve(pending.receive ? pending.receive(message.result) : message.result);
        else pending?.reject(new Error(message.message));
        break;
      }
      case "log":
        this.log[message.level](message.message);
        break;
      case "lost":
        this.events.lost(message.uri);
        break;
      case "dependentsChanged":
        this.events.dependentsChanged?.(message.uris);
        break;
    }
  }

  private exited(worker: Worker, code: number): void {
    if (worker !== this.worker || this.disposed) return;
    this.worker = undefined;
    this.rejectPending(`the lint worker exited with code ${code}`);
    const now = Date.now();
    this.recentRestarts = this.recentRestarts.filter((time) => now - time < RESTART_WINDOW_MS);
    if (this.recentRestarts.length >= MAX_RESTARTS) {
      this.log.error(`The lint worker exited with code ${code} ${MAX_RESTARTS + 1} times within a minute; diagnostics are off until the server is restarted.`);
      return;
    }
    this.recentRestarts.push(now);
    this.log.error(`The lint worker exited with code ${code}; starting a new one.`);
    this.lists.clear();
    this.worker = this.spawn();
    this.events.restarted();
  }

  private rejectPending(reason: string): void {
    for (const pending of this.pending.values()) pending.reject(new Error(reason));
    this.pending.clear();
  }
}
