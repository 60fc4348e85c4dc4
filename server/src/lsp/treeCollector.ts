/**
 * Frees the syntax trees the lint worker let go. A tree lives in native memory that V8 does not
 * see: its JavaScript handle is a few bytes, so V8 collects it late, and node-tree-sitter frees the
 * native tree only when the handle is collected. A burst of lints (a workspace's documents opened at
 * once) otherwise leaves hundreds of dropped trees waiting, about 0.15 MB per 60-line DAG, and the
 * process keeps that memory even after they are freed. So the worker collects every few released
 * trees during a burst, and once it has been idle for a moment after any. Never on the path of a
 * keystroke: the idle collection waits until no lint has been asked for for IDLE_COLLECTION_MS, and
 * a document being edited keeps its tree and releases nothing.
 */
import { setFlagsFromString } from "node:v8";

/** Trees released between two collections during a burst of lints. */
export const RELEASED_TREES_PER_COLLECTION = 25;

/** How long the worker must have had nothing to lint before it collects what it released. */
export const IDLE_COLLECTION_MS = 1_000;

export interface Timers {
  setTimeout(callback: () => void, ms: number): { unref?: () => unknown };
  clearTimeout(handle: unknown): void;
}

export class TreeCollector {
  private released = 0;
  private idleTimer: ReturnType<Timers["setTimeout"]> | undefined;

  /** `collect` undefined: V8's collector is not exposed here, and trees are freed whenever V8 collects on its own. */
  constructor(
    private readonly collect: (() => void) | undefined,
    private readonly timers: Timers = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
  ) {}

  /** A document's tree was let go. */
  treeReleased(): void {
    if (++this.released >= RELEASED_TREES_PER_COLLECTION) this.collectNow();
  }

  /** A lint was asked for: the worker is busy, so an idle collection waits. */
  busy(): void {
    if (this.idleTimer !== undefined) this.timers.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** The lint queue is empty: collect what the last lints released, unless work arrives first. */
  idle(): void {
    if (this.released === 0 || this.idleTimer !== undefined) return;
    this.idleTimer = this.timers.setTimeout(() => {
      this.idleTimer = undefined;
      if (this.released > 0) this.collectNow();
    }, IDLE_COLLECTION_MS);
    this.idleTimer.unref?.();
  }

  dispose(): void {
    this.busy();
  }

  private collectNow(): void {
    this.released = 0;
    this.collect?.();
  }
}

/**
 * Lets worker threads started from now on call V8's collector. Worker threads refuse V8 flags in
 * their own `execArgv`, but an isolate reads the flags when it is created, so setting the flag in
 * the main thread before the first worker starts gives every worker a `gc` (the main thread's own
 * context, created earlier, is unaffected).
 */
export function exposeCollectorToWorkers(): void {
  try {
    setFlagsFromString("--expose-gc");
  } catch {
    // Without it the workers' trees are freed whenever V8 collects on its own.
  }
}

/** V8's `gc` in a worker whose isolate was created after `exposeCollectorToWorkers()`; undefined elsewhere. */
export function workerCollector(): (() => void) | undefined {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof gc === "function" ? () => (gc as () => void)() : undefined;
}
