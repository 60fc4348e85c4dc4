/** The MCP `fix` tool's diffs: `git apply` turns the old text into the new one, whatever changed where. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { unifiedDiff } from "../../server/src/mcp/unifiedDiff";
import { TempFolder } from "../support/tempFolder";

const numbered = (count: number, prefix = "line") => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join("");

const CASES: Record<string, [string, string]> = {
  "one changed line in the middle": [numbered(30), numbered(30).replace("line 15\n", "changed 15\n")],
  "changes far apart make two hunks": [numbered(40), numbered(40).replace("line 3\n", "x\n").replace("line 35\n", "y\n")],
  "changes close together share a hunk": [numbered(20), numbered(20).replace("line 5\n", "x\n").replace("line 9\n", "y\n")],
  "lines added at the start": [numbered(5), "new a\nnew b\n" + numbered(5)],
  "lines removed at the end": [numbered(8), numbered(5)],
  "an import added and a call rewritten": ["import os\n\nx = f(1)\ny = 2\n", "import os\nimport json\n\nx = g(1)\ny = 2\n"],
  "no newline at the end, before": ["a\nb", "a\nb\n"],
  "no newline at the end, after": ["a\nb\n", "a\nc"],
  "an empty file filled": ["", "a\nb\n"],
  "a file emptied": ["a\nb\n", ""],
  "every line replaced": [numbered(6), numbered(6, "other")],
};

describe("unified diffs of fixes", () => {
  let folder: TempFolder;
  before(() => {
    folder = new TempFolder("unified-diff-");
    execFileSync("git", ["init", "-q"], { cwd: folder.root });
  });
  after(() => folder.remove());

  for (const [name, [oldText, newText]] of Object.entries(CASES)) {
    test(name, () => {
      folder.write("dag.py", oldText);
      const diff = unifiedDiff("dag.py", oldText, newText);
      execFileSync("git", ["apply", "--whitespace=nowarn", "-"], { cwd: folder.root, input: diff });
      assert.equal(fs.readFileSync(folder.file("dag.py"), "utf8"), newText, diff);
    });
  }

  test("shows only changed lines and three lines of context", () => {
    const diff = unifiedDiff("dag.py", numbered(30), numbered(30).replace("line 15\n", "changed 15\n"));
    assert.equal(diff, ["--- a/dag.py", "+++ b/dag.py", "@@ -12,7 +12,7 @@", " line 12", " line 13", " line 14", "-line 15", "+changed 15", " line 16", " line 17", " line 18", ""].join("\n"));
  });

  test("equal texts have no diff", () => {
    assert.equal(unifiedDiff("dag.py", "a\n", "a\n"), "");
  });
});
