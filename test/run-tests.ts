/**
 * Runs every compiled `*.test.js` under out/test with node's test runner.
 * Node 20's `--test <dir>` would also execute fixtures and helpers that live in a `test/` folder,
 * so the files are listed explicitly.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

function findTests(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(full));
    else if (entry.name.endsWith(".test.js")) found.push(full);
  }
  return found.sort();
}

const files = findTests(__dirname);
if (files.length === 0) {
  console.error("No test files found under " + __dirname);
  process.exit(1);
}
const result = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...process.argv.slice(2), ...files], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
