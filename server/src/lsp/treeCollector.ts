/**
 * Frees the syntax trees the worker let go. A tree lives in native memory that V8 does not see: its
 * JavaScript handle is a few bytes, so V8 collects it late, and a burst of lints (a workspace's worth
 * of documents opened at once) leaves hundreds of dropped trees, and their node handles, waiting,
 * which grows the process by ~0.15 MB per document even after they are freed. A full collection every
 * few released trees, and once the lint queue is empty, frees each tree while its memory can still be
 * reused for the next one. Documents being edited keep their trees and cause no collection.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Trees released between two collections during a burst of lints. */
export const RELEASED_TREES_PER_COLLECTION = 10;

export class TreeCollector {
  private released = 0;

  constructor(private readonly collect: (() => void) | undefined = exposedGc()) {}

  /** A document's tree was let go. */
  treeReleased(): void {
    if (++this.released >= RELEASED_TREES_PER_COLLECTION) this.collectNow();
  }

  /** Nothing is waiting: collect what the last lints released. */
  idle(): void {
    if (this.released > 0) this.collectNow();
  }

  private collectNow(): void {
    this.released = 0;
    this.collect?.();
  }
}

/**
 * V8's `gc`, which Node exposes only with --expose-gc; the flag applies to contexts created after it
 * is set, so a fresh context hands it out. Undefined where that fails: trees are then freed whenever
 * V8 collects on its own, as before.
 */
function exposedGc(): (() => void) | undefined {
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    return typeof gc === "function" ? () => (gc as () => void)() : undefined;
  } catch {
    return undefined;
  }
}
