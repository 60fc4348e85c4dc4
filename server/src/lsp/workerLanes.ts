/**
 * Which lint worker a document lives in. Most documents lint in milliseconds and share the
 * "quick" worker; a document that is large when opened, or whose lint turned out slow, moves to
 * the "slow" worker, so its seconds-long lints never queue in front of another document's lint,
 * hover or completion. One slow lint may be a pause of the machine rather than of the document
 * (a garbage collection, another process), so a document moves after two slow lints in a row, or
 * at once after a very slow one. It moves back once its lints are quick again (it shrank), with a
 * margin so that one that hovers around the threshold does not move on every keystroke.
 */

export type Lane = "quick" | "slow";

/** A lint taking this long would hold up the other documents of the quick worker. */
export const SLOW_LINT_MS = 250;

/** A lint this slow moves its document at once. */
export const VERY_SLOW_LINT_MS = 4 * SLOW_LINT_MS;

/** About 10,000 lines of Python: documents this large start in the slow worker, before any lint of theirs has been timed. */
export const LARGE_DOCUMENT_CHARACTERS = 300_000;

/** A slow document returns to the quick worker when its lint is under this (and it is no longer large). */
export const QUICK_AGAIN_MS = SLOW_LINT_MS / 4;

export class LaneAssignment {
  private readonly slow = new Set<string>();
  /** Quick-lane documents whose last lint was slow. */
  private readonly slowOnce = new Set<string>();

  laneOf(uri: string): Lane {
    return this.slow.has(uri) ? "slow" : "quick";
  }

  /** The lane of a document just opened with `characters` of text. */
  opened(uri: string, characters: number): Lane {
    this.set(uri, characters >= LARGE_DOCUMENT_CHARACTERS ? "slow" : "quick");
    return this.laneOf(uri);
  }

  /** After a lint of `uri` took `elapsedMs` on a text of `characters`: the lane it should move to, or undefined to stay. */
  linted(uri: string, elapsedMs: number, characters: number): Lane | undefined {
    const current = this.laneOf(uri);
    const wanted: Lane = current === "quick" ? this.afterQuickLaneLint(uri, elapsedMs) : elapsedMs < QUICK_AGAIN_MS && characters < LARGE_DOCUMENT_CHARACTERS ? "quick" : "slow";
    if (wanted === current) return undefined;
    this.set(uri, wanted);
    return wanted;
  }

  closed(uri: string): void {
    this.slow.delete(uri);
    this.slowOnce.delete(uri);
  }

  /** Whether any open document lives in the slow lane (otherwise its worker need not run). */
  hasSlowDocuments(): boolean {
    return this.slow.size > 0;
  }

  private afterQuickLaneLint(uri: string, elapsedMs: number): Lane {
    if (elapsedMs < SLOW_LINT_MS) {
      this.slowOnce.delete(uri);
      return "quick";
    }
    if (elapsedMs >= VERY_SLOW_LINT_MS || this.slowOnce.has(uri)) return "slow";
    this.slowOnce.add(uri);
    return "quick";
  }

  private set(uri: string, lane: Lane): void {
    this.slowOnce.delete(uri);
    if (lane === "slow") this.slow.add(uri);
    else this.slow.delete(uri);
  }
}
