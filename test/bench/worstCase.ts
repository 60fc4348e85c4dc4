/**
 * The linear worst cases of issue 9 (lint ≤ 3× its own parse, and no recursion that deep input
 * overflows), each run in a child process so the engine bench can give up on one after a time
 * budget instead of hanging, and report a crash instead of dying of it:
 * `node out/test/bench/worstCase.js NAME` prints `{"lines":…,"parseMs":…,"lintMs":…}`.
 */
import { lint, LintOptions, PythonDocument } from "../../server/src/engine";
import { parsePython } from "../../server/src/engine/syntax/parser";
import { attributeChain, chainedClasses, nestedValue, storeDenseDag } from "./benchFiles";
import { timeMedian } from "./measure";

/** Each case's text, and the target for lint / parse (none for the deep ones: they must only not overflow). */
export const WORST_CASES: Record<string, { title: string; text: () => string; lintOverParse?: number }> = {
  "dag-50000": { title: "a 50,000-line store-dense DAG", text: () => storeDenseDag(50_000), lintOverParse: 3 },
  "chained-classes-20000": { title: "20,000 classes, each deriving from the one before", text: () => chainedClasses(20_000), lintOverParse: 3 },
  "attribute-chain-100000": { title: "an attribute chain 100,000 long", text: () => attributeChain(100_000) },
  "nested-value-20000": { title: "a stored value nested 20,000 deep", text: () => nestedValue(20_000) },
};

/**
 * How the CLI and the language server lint: each finding's fixes are named, and their edits made
 * only when a code action, fix-all or `--fix` asks (`fixesOf`). The benchmarks time those lints.
 */
export const AS_THE_FRONT_ENDS_LINT: LintOptions = { fixEdits: false };

export interface WorstCaseResult {
  lines: number;
  parseMs: number;
  lintMs: number;
}

function measure(name: string): WorstCaseResult {
  const text = WORST_CASES[name].text();
  const parseMs = timeMedian(5, () => void parsePython(text));
  const lintMs = timeMedian(3, () => void lint(new PythonDocument("file:///worst.py", text), AS_THE_FRONT_ENDS_LINT), 5000);
  return { lines: text.split("\n").length, parseMs, lintMs };
}

if (require.main === module) {
  const name = process.argv[2];
  if (!WORST_CASES[name]) {
    console.error(`usage: node out/test/bench/worstCase.js ${Object.keys(WORST_CASES).join("|")}`);
    process.exit(2);
  }
  console.log(JSON.stringify(measure(name)));
}
