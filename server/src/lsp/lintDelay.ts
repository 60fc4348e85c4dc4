/**
 * How long a change waits before its lint starts. A pause in typing only pays when the lint costs
 * more than the keystrokes it would save, and it saves only those that arrive during it: someone
 * typing fast leaves about 100 ms between keystrokes, so a shorter pause absorbs almost none and
 * only delays the diagnostics (a change made while a lint runs waits for it anyway, and the next
 * lint takes in every change made meanwhile). A document whose last lint after a change was under
 * IMMEDIATE_LINT_BELOW_MS is linted at once; a slower one waits half its last lint's time, never
 * longer than MAX_LINT_DELAY_MS. The lint of a document when it is opened starts from scratch,
 * while those after a change mostly re-check one function, so only the latter count
 * (`DiagnosticScheduler`).
 */

/** A lint quicker than this (about the time between two keystrokes of a fast typist) runs on every change, without waiting. */
export const IMMEDIATE_LINT_BELOW_MS = 100;

/** The longest wait, however slow the last lint was. */
export const MAX_LINT_DELAY_MS = 100;

/** The wait before linting a changed document whose last lint took `lastLintMs` (undefined: never linted). */
export function lintDelayMs(lastLintMs: number | undefined): number {
  if (lastLintMs === undefined || !Number.isFinite(lastLintMs) || lastLintMs < IMMEDIATE_LINT_BELOW_MS) return 0;
  return Math.min(MAX_LINT_DELAY_MS, Math.round(lastLintMs / 2));
}
