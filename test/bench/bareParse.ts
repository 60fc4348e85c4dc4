/**
 * The floor the CLI is compared with: a bare tree-sitter parse of every *.py under a folder, with
 * the project's own binding and nothing else (as /work/shared/bench/parse_corpus.js). Hidden
 * folders (.git, caches) hold no DAG code and are not searched.
 *
 * With `--free-trees`, it parses through the CLI's own `mapConcurrently` (cli/files.ts), which
 * returns to the event loop every few files, so that Node runs the finalizers that free the trees
 * already parsed.
 * Without it, as the shared probe, every tree stays in memory to the end (about 700 MB over the
 * bench corpus), and the kernel's paging for it makes the parse about a third slower: a floor
 * the CLI, which frees them, is flattered by.
 *
 * usage: node out/test/bench/bareParse.js DIR [--free-trees]
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { mapConcurrently } from "../../server/src/cli/files";
import { parsePython } from "../../server/src/engine/syntax/parser";

function pythonFiles(dir: string, found: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith(".")) pythonFiles(full, found);
    } else if (entry.name.endsWith(".py")) {
      found.push(full);
    }
  }
  return found;
}

async function main(): Promise<void> {
  const [dir, option] = process.argv.slice(2);
  if (!dir || (option !== undefined && option !== "--free-trees")) {
    console.error("usage: node out/test/bench/bareParse.js DIR [--free-trees]");
    process.exit(2);
  }
  let characters = 0;
  const parse = (file: string) => {
    const text = fs.readFileSync(file, "utf8");
    parsePython(text);
    characters += text.length;
  };
  const files = pythonFiles(dir);
  if (option) await mapConcurrently(files, 1, async (file) => parse(file));
  else files.forEach(parse);
  console.log(`parsed ${files.length} files, ${characters} chars`);
}

void main();
