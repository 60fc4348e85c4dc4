/**
 * The floor the CLI is compared with: a bare tree-sitter parse of every *.py under a folder, with
 * the project's own binding and nothing else (as /work/shared/bench/parse_corpus.js). Hidden
 * folders (.git, caches) hold no DAG code and are not searched.
 *
 * usage: node out/test/bench/bareParse.js DIR
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parsePython } from "../../server/src/engine/syntax/parser";

function parseAll(dir: string, counts: { files: number; characters: number }): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith(".")) parseAll(full, counts);
    } else if (entry.name.endsWith(".py")) {
      const text = fs.readFileSync(full, "utf8");
      parsePython(text);
      counts.files++;
      counts.characters += text.length;
    }
  }
}

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node out/test/bench/bareParse.js DIR");
  process.exit(2);
}
const counts = { files: 0, characters: 0 };
parseAll(dir, counts);
console.log(`parsed ${counts.files} files, ${counts.characters} chars`);
