/**
 * Seeded mutations of DAG files for the fuzz tests: the rule fixtures and the examples with lines
 * dropped, duplicated, swapped, spliced from another file, re-indented or with their line endings
 * changed, and tokens (brackets, quotes, backslashes, `# noqa`, store calls) inserted at random
 * places. The same seed gives the same inputs on every machine.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Random } from "../bench/random";
import { fromRoot } from "../support/paths";

/** The texts mutations start from: every fire and silent fixture, and the example DAGs. */
export function seedTexts(): string[] {
  const folders = [fromRoot("test", "rules", "fixtures"), fromRoot("examples", "dags"), fromRoot("examples", "legacy-project", "dags")];
  const texts: string[] = [];
  for (const folder of folders) {
    if (!fs.existsSync(folder)) continue;
    for (const name of fs.readdirSync(folder).sort()) {
      if (name.endsWith(".py") && !name.endsWith(".fixed.py")) texts.push(fs.readFileSync(path.join(folder, name), "utf8"));
    }
  }
  return texts;
}

const TOKENS = ["(", ")", "[", "]", "{", "}", ":", ",", "=", "'", '"', '"""', "\\", "\\\n", "\n", "\r", "\r\n", "    ", "\t", "#", "  # noqa", "  # noqa: AS101", "`", "None", "0", "-1", "float('nan')", "datetime.now()", "task_state_store", "asset_state_store", ".set(", ".get(", "retries=0", "durable=False", ">>", "lambda: ", "@task\n", "def f():\n", "class C(ResumableJobMixin, BaseOperator):\n", "é", "\u2028", "\uFEFF"];

function lines(text: string): string[] {
  return text.split("\n");
}

/** One mutation of `text`, drawing from `others` for splices. */
function mutateOnce(random: Random, text: string, others: readonly string[]): string {
  const all = lines(text);
  const at = random.int(0, Math.max(0, all.length - 1));
  switch (random.int(0, 8)) {
    case 0:
      all.splice(at, random.int(1, 3));
      return all.join("\n");
    case 1:
      all.splice(at, 0, ...all.slice(at, at + random.int(1, 4)));
      return all.join("\n");
    case 2: {
      const other = random.int(0, all.length - 1);
      [all[at], all[other]] = [all[other], all[at]];
      return all.join("\n");
    }
    case 3: {
      const donor = lines(random.pick(others));
      const from = random.int(0, donor.length - 1);
      all.splice(at, 0, ...donor.slice(from, from + random.int(1, 6)));
      return all.join("\n");
    }
    case 4:
      all[at] = random.pick(["", " ", "    ", "\t"]) + all[at];
      return all.join("\n");
    case 5:
      return text.replace(/\n/g, () => random.pick(["\n", "\n", "\r\n", "\r"]));
    case 6: {
      const offset = random.int(0, text.length);
      return text.slice(0, offset) + random.pick(TOKENS) + text.slice(offset);
    }
    case 7: {
      const offset = random.int(0, text.length);
      return text.slice(0, offset) + text.slice(offset + random.int(1, 20));
    }
    default: {
      // A deep or long expression in place of a line's end.
      const deep = random.pick(["(", "[", "f(", "a.", "-", "not "]).repeat(random.int(50, 400));
      all[at] = `${all[at]} ${deep}`;
      return all.join("\n");
    }
  }
}

/** `count` mutated texts, each one to three mutations away from a seed text. */
export function* mutatedTexts(seed: number, count: number, seeds = seedTexts()): Generator<{ index: number; text: string }> {
  const random = new Random(seed);
  for (let index = 0; index < count; index++) {
    let text = random.pick(seeds);
    for (let n = random.int(1, 3); n > 0; n--) text = mutateOnce(random, text, seeds);
    yield { index, text };
  }
}
