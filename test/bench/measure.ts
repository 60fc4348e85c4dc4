/**
 * What the benchmarks share: medians and percentiles of samples, whole-process timing, run counts
 * bounded by a time budget, and the lines that print a measured ratio next to its target.
 */
import { spawnSync, SpawnSyncOptions } from "node:child_process";

/** The middle sample, or the mean of the middle two for an even count; NaN for none. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The sample at rank `fraction` (0.95 for p95) of the sorted samples; NaN for none. */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Median milliseconds of `runs` calls of `body`, or of fewer once `budgetMs` has passed (at least one). */
export function timeMedian(runs: number, body: () => void, budgetMs = Number.POSITIVE_INFINITY): number {
  const samples: number[] = [];
  roundsWithinBudget(runs, budgetMs, () => {
    const start = process.hrtime.bigint();
    body();
    samples.push(elapsedMs(start));
  });
  return median(samples);
}

/** Runs a whole process to its end and returns its wall-clock milliseconds; fails on a non-zero exit. */
export function timeProcess(command: string, args: readonly string[], options: SpawnSyncOptions): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { ...options, maxBuffer: 1 << 30 });
  const ms = elapsedMs(start);
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}${result.stderr ? `: ${String(result.stderr).slice(0, 2000)}` : ""}`);
  return ms;
}

/**
 * Runs `count` copies of a process at once and returns the wall-clock milliseconds until the last
 * ends; fails when one exits non-zero. Started by one small node process, which waits for them all.
 */
export function timeProcessesAtOnce(count: number, command: string, args: readonly string[]): number {
  const waitForAll = `
    const { spawn } = require("node:child_process");
    const [count, command, ...args] = process.argv.slice(1);
    let running = Number(count);
    for (let i = 0; i < Number(count); i++) {
      spawn(command, args, { stdio: "ignore" }).on("exit", (code, signal) => {
        if (code !== 0) { console.error(command + " exited with " + (code ?? signal)); process.exit(1); }
        if (--running === 0) process.exit(0);
      });
    }`;
  return timeProcess(process.execPath, ["-e", waitForAll, String(count), command, ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

/** An integer from the environment (for quick runs), or the default. */
export function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number; got "${value}"`);
  return parsed;
}

/**
 * Calls `round` up to `maxRounds` times, stopping early once `budgetMs` has passed (after at least
 * one round), so a slow engine still finishes the bench; returns how many rounds ran.
 */
export function roundsWithinBudget(maxRounds: number, budgetMs: number, round: (index: number) => void): number {
  const start = process.hrtime.bigint();
  let done = 0;
  while (done < maxRounds && (done === 0 || elapsedMs(start) < budgetMs)) round(done++);
  return done;
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`;
}

export function row(label: string, value: string, width = 74): string {
  return `  ${label.padEnd(width)} ${value.padStart(10)}`;
}

/** `measured / target` and whether it holds, e.g. "CLI / bare parse  16.2  (target ≤ 1.3: 12.5× over)". */
export function targetRow(label: string, ratio: number, target: number, width = 74): string {
  if (!Number.isFinite(ratio)) return row(label, "n/a", width) + `   (target ≤ ${target})`;
  return row(label, ratio.toFixed(ratio < 10 ? 3 : 1), width) + `   (target ≤ ${target}: ${verdict(ratio, target)})`;
}

/** A ratio that must reach its target, e.g. a speed-up: "one thread / every core  1.62  (target ≥ 1.7: 5 % short)". */
export function atLeastRow(label: string, ratio: number, target: number, width = 74): string {
  if (!Number.isFinite(ratio)) return row(label, "n/a", width) + `   (target ≥ ${target})`;
  const verdict = ratio >= target ? "holds" : `${(100 * (1 - ratio / target)).toFixed(0)} % short`;
  return row(label, ratio.toFixed(3), width) + `   (target ≥ ${target}: ${verdict})`;
}

/** "holds", or how far over its target a ratio is. */
export function verdict(ratio: number, target: number): string {
  return ratio <= target ? "holds" : `${(ratio / target).toFixed(1)}× over`;
}
