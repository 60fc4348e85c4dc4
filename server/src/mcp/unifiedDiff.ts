/**
 * A unified diff (`diff -u`, as `git apply` and `patch -p1` read it) of two texts of one file, with
 * three lines of context. Lines are matched with Myers' algorithm, whose cost grows with the number
 * of changed lines, not the file's length: safe fixes change a few lines of a long file.
 */

const CONTEXT_LINES = 3;
/** Beyond this many changed lines, the texts are shown as one replaced block rather than searched further. */
const MAX_EDIT_DISTANCE = 2000;

type Operation = "keep" | "remove" | "add";

/** The diff of `before` → `after` under `a/<name>` and `b/<name>`; empty when they are equal. */
export function unifiedDiff(name: string, before: string, after: string): string {
  if (before === after) return "";
  const oldLines = linesOf(before);
  const newLines = linesOf(after);
  const operations = lineOperations(oldLines, newLines);
  const out = [`--- a/${name}\n`, `+++ b/${name}\n`];
  for (const hunk of hunksOf(operations)) {
    out.push(`@@ -${range(hunk.oldStart, hunk.oldCount)} +${range(hunk.newStart, hunk.newCount)} @@\n`);
    for (const { operation, oldIndex, newIndex } of hunk.lines) {
      const line = operation === "add" ? newLines[newIndex] : oldLines[oldIndex];
      out.push(`${operation === "keep" ? " " : operation === "remove" ? "-" : "+"}${line.endsWith("\n") ? line : `${line}\n\\ No newline at end of file\n`}`);
    }
  }
  return out.join("");
}

/** Lines with their line break, so a changed last line break is a changed line. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

interface Step {
  operation: Operation;
  oldIndex: number;
  newIndex: number;
}

function lineOperations(oldLines: readonly string[], newLines: readonly string[]): Step[] {
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (suffix < oldLines.length - prefix && suffix < newLines.length - prefix && oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]) suffix++;
  const steps: Step[] = [];
  for (let i = 0; i < prefix; i++) steps.push({ operation: "keep", oldIndex: i, newIndex: i });
  const middle = myers(oldLines.slice(prefix, oldLines.length - suffix), newLines.slice(prefix, newLines.length - suffix));
  for (const step of middle) steps.push({ operation: step.operation, oldIndex: step.oldIndex + prefix, newIndex: step.newIndex + prefix });
  for (let i = suffix; i > 0; i--) steps.push({ operation: "keep", oldIndex: oldLines.length - i, newIndex: newLines.length - i });
  return steps;
}

/** The shortest edit script from `a` to `b`; one block replacement when it is longer than MAX_EDIT_DISTANCE. */
function myers(a: readonly string[], b: readonly string[]): Step[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, offset, n, m);
    }
  }
  return [...a.map((_, i): Step => ({ operation: "remove", oldIndex: i, newIndex: 0 })), ...b.map((_, i): Step => ({ operation: "add", oldIndex: n, newIndex: i }))];
}

function backtrack(trace: readonly Int32Array[], offset: number, n: number, m: number): Step[] {
  const steps: Step[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    // trace[d] holds the furthest points reached with d - 1 edits: where the d-th edit started.
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const previousK = down ? k + 1 : k - 1;
    const previousX = d === 0 ? 0 : v[offset + previousK];
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY && x > 0 && y > 0) {
      x--;
      y--;
      steps.push({ operation: "keep", oldIndex: x, newIndex: y });
    }
    if (d === 0) break;
    if (down) steps.push({ operation: "add", oldIndex: x, newIndex: --y });
    else steps.push({ operation: "remove", oldIndex: --x, newIndex: y });
  }
  return steps.reverse();
}

interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: Step[];
}

/** Changes with up to CONTEXT_LINES kept lines around them; changes closer than twice that share a hunk. */
function hunksOf(steps: readonly Step[]): Hunk[] {
  const hunks: Hunk[] = [];
  let index = 0;
  while (index < steps.length) {
    while (index < steps.length && steps[index].operation === "keep") index++;
    if (index >= steps.length) break;
    const start = Math.max(0, index - CONTEXT_LINES);
    let end = index;
    for (;;) {
      while (end < steps.length && steps[end].operation !== "keep") end++;
      let kept = end;
      while (kept < steps.length && steps[kept].operation === "keep") kept++;
      if (kept < steps.length && kept - end <= 2 * CONTEXT_LINES) end = kept;
      else {
        end = Math.min(steps.length, end + CONTEXT_LINES);
        break;
      }
    }
    const lines = steps.slice(start, end);
    const first = lines[0];
    hunks.push({
      oldStart: first.oldIndex,
      oldCount: lines.filter((line) => line.operation !== "add").length,
      newStart: first.newIndex,
      newCount: lines.filter((line) => line.operation !== "remove").length,
      lines,
    });
    index = end;
  }
  return hunks;
}

/** `start,count` with 1-based lines; an empty range names the line before it. */
function range(start: number, count: number): string {
  return `${count === 0 ? start : start + 1},${count}`;
}
