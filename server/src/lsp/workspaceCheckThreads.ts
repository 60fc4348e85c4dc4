/**
 * The connection thread's handle on the threads that check workspace files from disk: started when
 * a check needs them, fed one file at a time each (a few in flight, so a thread never waits for the
 * next message), and stopped once idle for a while. A thread that dies is replaced at the next
 * check; the checks it held fail, and say so.
 */
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import type { ConfigurationOverrides } from "../engine/project";
import { errorText, Logger } from "./logger";
import { CheckedDiagnostic, FromCheckThread, ToCheckThread, WORKSPACE_CHECK_ROLE } from "./workspaceCheckMessages";
import { SizedYoungGenerationStarter } from "./youngGenerations";

/** Checks sent to one thread ahead of its answers. */
const IN_FLIGHT_PER_THREAD = 4;
/** Idle threads stop after this long; their lazily read modules are read again when next needed. */
const IDLE_STOP_MS = 60_000;
/** How long a stopping thread may take to finish its current check. */
const STOP_GRACE_MS = 3000;
/** The young generation of a check thread, per semi-space: half of the most V8 grows one to by default (16). */
const CHECK_THREAD_SEMI_SPACE_MB = 8;

export interface CheckOutcome {
  diagnostics: CheckedDiagnostic[] | undefined;
  problem?: string;
}

interface Job {
  uri: string;
  path: string;
  overrides: ConfigurationOverrides;
  resolve(outcome: CheckOutcome): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Job>;
}

export class WorkspaceCheckThreads {
  private readonly threads: Thread[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private setup: ToCheckThread = { type: "setup", roots: [], trusted: false };
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private readonly starter = new SizedYoungGenerationStarter(CHECK_THREAD_SEMI_SPACE_MB);

  constructor(
    private readonly script: string,
    private readonly log: Logger,
    /** Files whose findings may have changed since their check. */
    private readonly stale: (uris: string[]) => void,
    private readonly count = Math.max(1, os.availableParallelism()),
  ) {}

  configure(roots: string[], trusted: boolean): void {
    this.setup = { type: "setup", roots, trusted };
    for (const thread of this.threads) thread.worker.postMessage(this.setup);
  }

  check(uri: string, path: string, overrides: ConfigurationOverrides): Promise<CheckOutcome> {
    if (this.disposed) return Promise.reject(new Error("the language server is shutting down"));
    return new Promise((resolve, reject) => {
      this.queue.push({ uri, path, overrides, resolve, reject });
      this.dispatch();
    });
  }

  /** Checks queued but not yet sent are dropped (a newer check of the workspace replaces them). */
  cancelQueued(): void {
    for (const job of this.queue.splice(0)) job.resolve({ diagnostics: undefined, problem: "cancelled" });
    this.scheduleIdleStop();
  }

  /** Python modules or project files changed on disk: the threads read them again when next asked. */
  filesChanged(paths: string[]): void {
    if (paths.length > 0) for (const thread of this.threads) thread.worker.postMessage({ type: "filesChanged", paths } satisfies ToCheckThread);
  }

  forget(uris: string[]): void {
    if (uris.length > 0) for (const thread of this.threads) thread.worker.postMessage({ type: "forget", uris } satisfies ToCheckThread);
  }

  dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.idleTimer);
    this.cancelQueued();
    return Promise.all(this.threads.splice(0).map((thread) => this.stop(thread))).then(() => undefined);
  }

  private dispatch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    while (this.queue.length > 0) {
      const thread = this.leastBusy();
      if (!thread) return;
      const job = this.queue.shift()!;
      const id = this.nextId++;
      thread.pending.set(id, job);
      thread.worker.postMessage({ type: "check", id, uri: job.uri, path: job.path, overrides: job.overrides } satisfies ToCheckThread);
    }
  }

  /** A thread with room for another check, started if fewer than `count` run. */
  private leastBusy(): Thread | undefined {
    const free = this.threads.filter((thread) => thread.pending.size < IN_FLIGHT_PER_THREAD).sort((a, b) => a.pending.size - b.pending.size)[0];
    if (free && free.pending.size === 0) return free;
    if (this.threads.length < this.count) return this.start();
    return free;
  }

  private start(): Thread {
    // stdout: true keeps what the thread might print off the server's stdout, which over stdio carries the protocol.
    const worker = this.starter.start(() => new Worker(this.script, { workerData: { role: WORKSPACE_CHECK_ROLE }, stdout: true }));
    worker.stdout.pipe(process.stderr);
    const thread: Thread = { worker, pending: new Map() };
    worker.on("message", (message: FromCheckThread) => this.receive(thread, message));
    worker.on("error", (error) => this.log.error(`A workspace check thread failed: ${errorText(error)}`));
    worker.on("exit", (code) => this.exited(thread, code));
    worker.postMessage(this.setup);
    this.threads.push(thread);
    return thread;
  }

  private receive(thread: Thread, message: FromCheckThread): void {
    switch (message.type) {
      case "checked":
      case "failed": {
        const job = thread.pending.get(message.id);
        thread.pending.delete(message.id);
        if (message.type === "checked") job?.resolve({ diagnostics: message.diagnostics, problem: message.problem });
        else job?.reject(new Error(message.message));
        this.dispatch();
        this.scheduleIdleStop();
        break;
      }
      case "stale":
        this.stale(message.uris);
        break;
      case "log":
        this.log.error(message.message);
        break;
    }
  }

  private exited(thread: Thread, code: number): void {
    const index = this.threads.indexOf(thread);
    if (index === -1) return;
    this.threads.splice(index, 1);
    if (!this.disposed) this.log.error(`A workspace check thread exited with code ${code}; ${thread.pending.size} file(s) it was checking are not checked.`);
    for (const job of thread.pending.values()) job.reject(new Error(`the workspace check thread exited with code ${code}`));
    thread.pending.clear();
    this.dispatch();
  }

  private scheduleIdleStop(): void {
    if (this.idleTimer || this.queue.length > 0 || this.threads.some((thread) => thread.pending.size > 0)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.queue.length > 0 || this.threads.some((thread) => thread.pending.size > 0)) return;
      for (const thread of this.threads.splice(0)) void this.stop(thread);
    }, IDLE_STOP_MS);
    this.idleTimer.unref();
  }

  private stop(thread: Thread): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => void thread.worker.terminate().then(() => resolve(), () => resolve()), STOP_GRACE_MS);
      thread.worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      thread.worker.postMessage({ type: "stop" } satisfies ToCheckThread);
    });
  }
}
