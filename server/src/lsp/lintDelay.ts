/**
 * How long a change waits before its lint starts. A pause in typing only pays when the lint costs
 * more than the keystrokes it would save: a document whose last lint was quick is linted at once,
 * a slower one waits a fraction of its last lint's time (so a burst of keystrokes costs one lint,
 * not one each), never longer than MAX_LINT_DELAY_MS.
 */

/** A lint quicker than this runs on every change, without waiting. */
export const IMMEDIATE_LINT_BELOW_MS = 10;

/** The longest wait, however slow the last lint was. */
export const MAX_LINT_DELAY_MS = 100;

/** The wait before linting a changed document whose last lint took `lastLintMs` (undefined: never linted). */
export function lintDelayMs(lastLintMs: number | undefined): number {
  if (lastLintMs === undefined || !Number.isFinite(lastLintMs) || lastLintMs < IMMEDIATE_LINT_BELOW_MS) return 0;
  return Math.min(MAX_LINT_DELAY_MS, Math.round(lastLintMs / 2));
}
