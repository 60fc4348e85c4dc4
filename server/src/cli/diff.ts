/**
 * `--diff`: what `--fix` would change, as a unified diff (`git apply` and `patch -p1` read it), with
 * three lines of context. Lines are compared with Myers' algorithm after the unchanged start and
 * end are set aside, so a fix's few edits cost little even in a long file.
 */

const CONTEXT = 3;
/** Beyond this many differing lines the middle is shown as replaced whole: still a correct diff, only a longer one. */
const MAX_EDIT_DISTANCE = 4000;

type Op = { kind: " " | "-" | "+"; line: string };

/** A unified diff of one file, `a/PATH` to `b/PATH`; empty when the texts are equal. */
export function unifiedDiff(shownPath: string, before: string, after: string): string {
  if (before === after) return "";
  const ops = diffLines(splitLines(before), splitLines(after));
  const name = shownPath.split("\\").join("/");
  const out = [`--- a/${name}`, `+++ b/${name}`];
  for (const hunk of hunks(ops)) out.push(...hunk);
  return out.join("\n") + "\n";
}

/** Lines with their terminators, so a missing final newline is a difference like any other. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const same = (lines: readonly string[]): Op[] => lines.map((line) => ({ kind: " ", line }));
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  return [...same(a.slice(0, start)), ...middle, ...same(a.slice(endA))];
}

/** The shortest edit script from `a` to `b` (Myers 1986), walked back through the saved frontiers. */
function myers(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return [...a.map((line): Op => ({ kind: "-", line })), ...b.map((line): Op => ({ kind: "+", line }))];
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const previous = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && previous[offset + k - 1] < previous[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = previous[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[--x] });
      y--;
    }
    if (down) ops.push({ kind: "+", line: b[--y] });
    else ops.push({ kind: "-", line: a[--x] });
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: " ", line: a[--x] });
    y--;
  }
  return ops.reverse();
}

/** Groups the changes with their context into `@@` hunks. */
function hunks(ops: readonly Op[]): string[][] {
  const result: string[][] = [];
  const changed = ops.map((op, index) => (op.kind === " " ? -1 : index)).filter((index) => index >= 0);
  let i = 0;
  while (i < changed.length) {
    const first = changed[i];
    let last = first;
    while (i + 1 < changed.length && changed[i + 1] - last <= 2 * CONTEXT + 1) last = changed[++i];
    i++;
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(ops.length, last + CONTEXT + 1);
    let lineA = 1;
    let lineB = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== "+") lineA++;
      if (op.kind !== "-") lineB++;
    }
    const body: string[] = [];
    let countA = 0;
    let countB = 0;
    for (const op of ops.slice(from, to)) {
      if (op.kind !== "+") countA++;
      if (op.kind !== "-") countB++;
      body.push(op.kind + op.line.replace(/\n$/, ""));
      if (!op.line.endsWith("\n")) body.push("\\ No newline at end of file");
    }
    result.push([`@@ -${range(lineA, countA)} +${range(lineB, countB)} @@`, ...body]);
  }
  return result;
}

/** `start,count`, where an empty side starts at the line before it, as diff writes it. */
function range(start: number, count: number): string {
  return `${count === 0 ? start - 1 : start},${count}`;
}
