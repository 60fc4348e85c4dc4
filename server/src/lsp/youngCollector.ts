/**
 * Collects a lint worker's young generation between two lints. A lint of a 1,000-line DAG
 * allocates more than the quick worker's young generation holds (it stays at its starting size: youngGenerations.ts),
 * so V8 scavenged every second or third lint in the middle of it, and those lints' diagnostics
 * arrived milliseconds after the others': most of the keystroke's p95. Collected right after a
 * lint's reply is posted, while the connection thread publishes it and nothing else waits, the
 * young generation holds little but that lint's garbage, and the next lint starts with it empty.
 */

export class YoungCollector {
  private scheduled = false;

  /**
   * `collect` undefined: V8's collector is not exposed in this thread, and nothing is done.
   * `idle` says whether the worker still has nothing to do when the collection would run.
   */
  constructor(
    private readonly collect: (() => void) | undefined,
    private readonly idle: () => boolean,
    private readonly defer: (callback: () => void) => void = (callback) => void setImmediate(callback),
  ) {}

  /** The last queued lint was answered: collect once the messages that arrived meanwhile were handled, unless one of them was work. */
  lintsAnswered(): void {
    const collect = this.collect;
    if (!collect || this.scheduled) return;
    this.scheduled = true;
    this.defer(() => {
      this.scheduled = false;
      if (this.idle()) collect();
    });
  }
}

/** A scavenge of V8's young generation, in a worker started after `exposeCollectorToWorkers()`; undefined elsewhere. */
export function workerYoungCollector(): (() => void) | undefined {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof gc === "function" ? () => (gc as (options: { type: "minor" }) => void)({ type: "minor" }) : undefined;
}
