/**
 * `npm run fuzz -- --count N [--seed S]`: a long fuzz campaign over mutated DAG files. Each input that
 * breaks a property (test/fuzz/properties.ts) is saved as test/fuzz/failures/<seed>-<index>.py, with
 * what broke in a `.txt` beside it; `npm test` replays every saved input until it holds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { mutatedTexts } from "./mutations";
import { brokenProperties } from "./properties";
import { fromRoot } from "../support/paths";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number, not "${process.argv[index + 1]}"`);
  return value;
}

const count = option("count", 10_000);
const seed = option("seed", Date.now() % 1_000_000_007);
const folder = fromRoot("test", "fuzz", "failures");
let failed = 0;
const started = Date.now();
for (const { index, text } of mutatedTexts(seed, count)) {
  const problems = brokenProperties(text);
  if (problems.length > 0) {
    failed++;
    fs.mkdirSync(folder, { recursive: true });
    const base = path.join(folder, `${seed}-${index}`);
    fs.writeFileSync(`${base}.py`, text);
    fs.writeFileSync(`${base}.txt`, problems.join("\n") + "\n");
    console.log(`input ${index}: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""} → ${base}.py`);
  }
  if ((index + 1) % 1000 === 0) console.log(`${index + 1} of ${count} inputs, ${failed} failing, ${Math.round((Date.now() - started) / 1000)} s`);
}
console.log(`Seed ${seed}: ${count} inputs, ${failed} failing${failed > 0 ? `, saved in ${path.relative(process.cwd(), folder)}` : ""}.`);
process.exit(failed > 0 ? 1 : 0);
