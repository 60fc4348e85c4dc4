/**
 * The connection thread's lint workers, one per lane (workerLanes.ts): the quick worker runs from the
 * start; the slow one is started when a document first needs it and stopped a while after its last
 * document left. Each open document's text and tree live in exactly one of them; document messages and
 * requests go to that one, workspace messages to every running worker. After each lint the document's
 * lane is reconsidered, and a document that changes lane is closed in one worker and opened in the
 * other from the connection thread's copy of its text.
 */
import type { Position } from "../engine";
import type { OpenDocuments } from "./documents";
import { LintOutcome, LintWorkerClient } from "./lintWorkerClient";
import type { Logger } from "./logger";
import { Lane, LaneAssignment } from "./workerLanes";
import { SizedYoungGenerationStarter } from "./youngGenerations";
import type { CodeActionsResult, CompletionResult, DagOutlineResult, FindingReference, FixAllResult, HoverResult, ReviewResult, ToWorker, WorkerLintOptions, WorkerRequest } from "./workerProtocol";

export type WorkerMessage = Exclude<ToWorker, WorkerRequest>;

/** How long the slow worker stays up without documents, in case another large one is opened soon. */
export const SLOW_WORKER_LINGER_MS = 30_000;

/**
 * The slow worker's young generation, per semi-space. It lints large documents, whose lints keep
 * most of what they allocate alive until they end: at the starting size its thread scavenged 131
 * times to lint a 20,000-line DAG (190-200 ms of a 1,015-1,083 ms lint), at 8 MB 33 times
 * (140-150 ms of 948-966). The quick worker stays at the starting size, for the memory of many
 * small documents; the slow one runs only while a large document is open.
 */
export const SLOW_WORKER_SEMI_SPACE_MB = 8;

export interface PoolEvents {
  /** A worker started (the slow one on demand, or one replacing a dead one) and knows no workspace file yet. */
  workerStarted(): void;
  /** Documents to lint again: the worker holding them was replaced, or dropped its copy. */
  relint(uris: string[]): void;
  /** Open documents whose imported modules, or pinned Airflow version, changed. */
  dependentsChanged(uris: string[]): void;
  /** A document left a worker, whose workspace index should now hold its file as on disk. */
  moved(uri: string): void;
}

export class LintWorkerPool {
  private readonly lanes = new LaneAssignment();
  private readonly workers = new Map<Lane, LintWorkerClient>();
  /** The last workspace roots posted, for a worker started later. */
  private roots: WorkerMessage | undefined;
  private slowStopTimer: NodeJS.Timeout | undefined;
  private readonly slowThreads = new SizedYoungGenerationStarter(SLOW_WORKER_SEMI_SPACE_MB);
  private disposed = false;

  constructor(
    private readonly script: string,
    private readonly documents: OpenDocuments,
    private readonly log: Logger,
    private readonly events: PoolEvents,
  ) {
    this.start("quick");
  }

  /** Document messages go to the document's worker; workspace messages to every running worker. */
  post(message: WorkerMessage): void {
    switch (message.type) {
      case "open":
        this.workerFor(this.lanes.opened(message.uri, message.text.length))?.post(message);
        break;
      case "change":
        this.workers.get(this.lanes.laneOf(message.uri))?.post(message);
        break;
      case "close":
        this.workers.get(this.lanes.laneOf(message.uri))?.post(message);
        this.lanes.closed(message.uri);
        this.stopSlowWorkerWhenUnused();
        break;
      default:
        if (message.type === "workspaceRoots") this.roots = message;
        for (const worker of this.workers.values()) worker.post(message);
    }
  }

  /** The lane the document lives in now. */
  laneOf(uri: string): Lane {
    return this.lanes.laneOf(uri);
  }

  /** Resolves to undefined when the worker's copy is no longer at `version`. */
  async lint(uri: string, version: number, options: WorkerLintOptions): Promise<LintOutcome | undefined> {
    const lane = this.lanes.laneOf(uri);
    const result = await this.running(lane).lint(uri, version, options);
    const document = this.documents.get(uri);
    if (result && document && this.lanes.laneOf(uri) === lane) {
      const moveTo = this.lanes.linted(uri, result.elapsedMs, document.text.length);
      if (moveTo) this.move(uri, lane, moveTo);
    }
    return result;
  }

  codeActions(uri: string, version: number, findings: FindingReference[]): Promise<CodeActionsResult | undefined> {
    return this.running(this.lanes.laneOf(uri)).codeActions(uri, version, findings);
  }

  fixAll(uri: string, version: number, options: WorkerLintOptions): Promise<FixAllResult | undefined> {
    return this.running(this.lanes.laneOf(uri)).fixAll(uri, version, options);
  }

  review(uri: string, version: number, options: WorkerLintOptions): Promise<ReviewResult | undefined> {
    return this.running(this.lanes.laneOf(uri)).review(uri, version, options);
  }

  hover(uri: string, version: number, position: Position): Promise<HoverResult | undefined> {
    return this.running(this.lanes.laneOf(uri)).hover(uri, version, position);
  }

  dagOutline(uri: string, version: number): Promise<DagOutlineResult | undefined> {
    return this.running(this.lanes.laneOf(uri)).dagOutline(uri, version);
  }

  completion(uri: string, version: number, position: Position): Promise<CompletionResult | undefined> {
    return this.running(this.lanes.laneOf(uri)).completion(uri, version, position);
  }

  /** Stops every worker; resolves once they have left. */
  dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.slowStopTimer);
    const stopped = [...this.workers.values()].map((worker) => worker.dispose());
    this.workers.clear();
    return Promise.all(stopped).then(() => undefined);
  }

  private move(uri: string, from: Lane, to: Lane): void {
    const document = this.documents.get(uri);
    if (!document) return;
    this.log.info(`Linting ${uri} in the ${to} worker from now on (its last lint ${to === "slow" ? "was slow" : "was quick again"}).`);
    this.workers.get(from)?.post({ type: "close", uri });
    this.workerFor(to)?.post({ type: "open", uri, text: document.text, version: document.version });
    this.events.moved(uri);
    this.stopSlowWorkerWhenUnused();
  }

  /** The worker of `lane`, started if it is not running. */
  private workerFor(lane: Lane): LintWorkerClient | undefined {
    if (this.disposed) return undefined;
    if (lane === "slow") {
      clearTimeout(this.slowStopTimer);
      this.slowStopTimer = undefined;
    }
    return this.workers.get(lane) ?? this.start(lane);
  }

  /** Requests fail (as they did with a single dead worker) rather than start a worker for a document it does not hold. */
  private running(lane: Lane): Pick<LintWorkerClient, "lint" | "codeActions" | "fixAll" | "review" | "hover" | "completion" | "dagOutline"> {
    const worker = this.workers.get(lane);
    if (worker) return worker;
    const notRunning = () => Promise.reject(new Error(`the ${lane} lint worker is not running`));
    return { lint: notRunning, codeActions: notRunning, fixAll: notRunning, review: notRunning, hover: notRunning, completion: notRunning, dagOutline: notRunning };
  }

  private start(lane: Lane): LintWorkerClient {
    const worker: LintWorkerClient = new LintWorkerClient(
      this.script,
      this.log,
      {
        restarted: () => this.restarted(lane, worker),
        lost: (uri) => this.lost(lane, uri),
        dependentsChanged: (uris) => this.events.dependentsChanged(uris),
      },
      lane === "slow" ? (create) => this.slowThreads.start(create) : undefined,
    );
    this.workers.set(lane, worker);
    if (this.roots) worker.post(this.roots);
    // The quick worker starts before initialize, and is fed the workspace once its folders are known.
    if (lane === "slow") this.events.workerStarted();
    return worker;
  }

  /** The same client runs a new thread that knows nothing yet. */
  private restarted(lane: Lane, worker: LintWorkerClient): void {
    if (this.roots) worker.post(this.roots);
    const uris: string[] = [];
    for (const document of this.documents.all()) {
      if (this.lanes.laneOf(document.uri) !== lane) continue;
      worker.post({ type: "open", uri: document.uri, text: document.text, version: document.version });
      uris.push(document.uri);
    }
    this.events.relint(uris);
    this.events.workerStarted();
  }

  private lost(lane: Lane, uri: string): void {
    const document = this.documents.get(uri);
    if (!document || this.lanes.laneOf(uri) !== lane) return;
    this.workers.get(lane)?.post({ type: "open", uri, text: document.text, version: document.version });
    this.events.relint([uri]);
  }

  private stopSlowWorkerWhenUnused(): void {
    if (this.lanes.hasSlowDocuments() || !this.workers.has("slow") || this.slowStopTimer) return;
    this.slowStopTimer = setTimeout(() => {
      this.slowStopTimer = undefined;
      if (this.lanes.hasSlowDocuments()) return;
      void this.workers.get("slow")?.dispose();
      this.workers.delete("slow");
    }, SLOW_WORKER_LINGER_MS);
    this.slowStopTimer.unref();
  }
}
