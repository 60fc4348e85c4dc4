/**
 * The floor the CLI is compared with: a bare tree-sitter parse of every *.py under a folder, with
 * the project's own binding and nothing else (as /work/shared/bench/parse_corpus.js). Hidden
 * folders (.git, caches) hold no DAG code and are not searched.
 *
 * With `--free-trees`, it returns to the event loop every ITEMS_PER_EVENT_LOOP_TURN files, as the
 * CLI does (cli/files.ts), so that Node runs the finalizers that free the trees already parsed.
 * Without it, as the shared probe, every tree stays in memory to the end (about 700 MB over the
 * bench corpus), and the kernel's paging for it makes the parse about a third slower: a floor
 * the CLI, which frees them, is flattered by.
 *
 * usage: node out/test/bench/bareParse.js DIR [--free-trees]
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ITEMS_PER_EVENT_LOOP_TURN } from "../../server/src/cli/files";
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
  const files = pythonFiles(dir);
  for (const [index, file] of files.entries()) {
    const text = fs.readFileSync(file, "utf8");
    parsePython(text);
    characters += text.length;
    if (option && (index + 1) % ITEMS_PER_EVENT_LOOP_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  console.log(`parsed ${files.length} files, ${characters} chars`);
}

void main();
