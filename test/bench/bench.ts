/**
 * `npm run bench`: how the engine's costs compare within one run on this machine. Reports ratios
 * (incremental vs full parse, lint vs parse, a file that never names Airflow vs one that does),
 * never absolute pass/fail thresholds, for two file shapes (see benchFiles.ts).
 */
import { lint, PythonDocument } from "../../server/src/engine";
import { examplesFile, storeDenseFile } from "./benchFiles";

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(runs: number, body: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    body();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

/** Times one file shape and prints its rows and ratios. */
function benchmark(title: string, text: string): void {
  const plain = text.replace(/airflow|state_store|ResumableJobMixin|external_id_key/g, "other");
  const lineCount = text.split("\n").length;

  const fullParse = time(9, () => void new PythonDocument("file:///b.py", text).tree);

  const editing = new PythonDocument("file:///b.py", text, 0);
  void editing.tree;
  let version = 0;
  const middle = Math.floor(lineCount / 2);
  const incremental = time(31, () => {
    version++;
    editing.update([{ range: { start: { line: middle, character: 0 }, end: { line: middle, character: 0 } }, text: version % 2 ? "#" : "" }], version);
    void editing.tree;
  });
  const lintFull = time(9, () => void lint(new PythonDocument("file:///b.py", text)));
  const lintAfterEdit = time(15, () => {
    version++;
    editing.update([{ range: { start: { line: middle, character: 0 }, end: { line: middle, character: 0 } }, text: " " }], version);
    void lint(editing);
  });
  const lintPlain = time(9, () => void lint(new PythonDocument("file:///p.py", plain)));

  const rows: [string, number][] = [
    ["full parse", fullParse],
    ["incremental re-parse after a 1-character edit", incremental],
    ["lint from scratch (parse + model + rules)", lintFull],
    ["lint after a 1-character edit (incremental parse + model + rules)", lintAfterEdit],
    ["lint of a same-size file that never names Airflow", lintPlain],
  ];
  console.log(`Engine benchmark, ${title}: ${lineCount} lines (${(text.length / 1024).toFixed(0)} KiB), median of repeated runs`);
  for (const [name, ms] of rows) console.log(`  ${name.padEnd(68)} ${ms.toFixed(2).padStart(9)} ms`);
  console.log("Ratios (lower is better):");
  console.log(`  incremental re-parse / full parse          ${(incremental / fullParse).toFixed(3)}`);
  console.log(`  lint after edit / lint from scratch        ${(lintAfterEdit / lintFull).toFixed(3)}`);
  console.log(`  model + rules / full parse                 ${((lintFull - fullParse) / fullParse).toFixed(3)}`);
  console.log(`  non-Airflow file / Airflow file            ${(lintPlain / lintFull).toFixed(4)}`);
}

benchmark("store-dense DAG (1,250 tasks, three store calls each)", storeDenseFile(1250)); // about 10,000 lines
console.log("");
benchmark("the example DAGs concatenated 15 times (operators, mixin classes, few store calls)", examplesFile(15)); // about 10,000 lines
