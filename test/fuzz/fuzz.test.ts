/**
 * A short, seeded fuzz run in every `npm test` (`npm run fuzz -- --count N` runs a long campaign,
 * test/fuzz/campaign.ts), and every input a campaign saved in test/fuzz/failures/ replayed as a
 * regression test.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { mutatedTexts } from "./mutations";
import { brokenProperties } from "./properties";
import { fromRoot } from "../support/paths";

const SEED = 20261201;
const COUNT = 500;

test(`${COUNT} mutated DAG files: no rule throws, lints agree, every fix parses and removes its finding`, () => {
  const failures: string[] = [];
  for (const { index, text } of mutatedTexts(SEED, COUNT)) {
    const problems = brokenProperties(text);
    if (problems.length > 0) failures.push(`input ${index} (seed ${SEED}; \`npm run fuzz -- --seed ${SEED} --count ${index + 1}\` saves it): ${problems.join("; ")}`);
  }
  assert.deepEqual(failures, []);
});

test("inputs saved by fuzz campaigns still hold every property", () => {
  const folder = fromRoot("test", "fuzz", "failures");
  const saved = fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => name.endsWith(".py")).sort() : [];
  for (const name of saved) assert.deepEqual(brokenProperties(fs.readFileSync(path.join(folder, name), "utf8")), [], name);
});
