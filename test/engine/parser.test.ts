import assert from "node:assert/strict";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { PythonDocument } from "../../server/src/engine";
import { NODE_TREE_SITTER_READ, nodesKeptInJavaScript, parsePython, sameScopeStatements, treeSitterVersion } from "../../server/src/engine/syntax/parser";
import { fromRoot } from "../support/paths";
import * as fs from "node:fs";

test("the native parser bindings are the packages' shipped prebuilds, not local builds", () => {
  new PythonDocument("file:///a.py", "import airflow\n").tree; // loads the bindings
  const natives = Object.keys(require.cache).filter((file) => file.endsWith(".node"));
  const expected = `prebuilds${path.sep}${process.platform}-${process.arch}${path.sep}`;
  for (const name of ["tree-sitter", "tree-sitter-python"]) {
    const binding = natives.find((file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`));
    assert.ok(binding, `${name} binding not loaded`);
    assert.ok(binding.includes(expected), `${name} loaded from ${binding}`);
  }
});

const original = [
  "from airflow.sdk import task",
  "",
  "@task",
  "def load(task_state_store=None):",
  '    task_state_store.set("k", 1)',
  "",
].join("\n");

test("incremental edits keep the tree equal to a fresh parse", () => {
  const document = new PythonDocument("file:///a.py", original, 1);
  const before = document.tree;
  // Replace the value `1`, then insert a line, then delete a line: three edits as an editor sends them.
  document.update([{ range: { start: { line: 4, character: 30 }, end: { line: 4, character: 31 } }, text: "None" }], 2);
  document.update(
    [
      { range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, text: "x = 'é😀'\n" },
      { range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, text: "" },
    ],
    3,
  );
  const expectedText = original.replace('"k", 1)', '"k", None)').replace("@task\n", "") + "x = 'é😀'\n";
  assert.equal(document.getText(), expectedText);
  assert.notEqual(document.tree, before);
  assert.equal(document.tree.rootNode.toString(), new PythonDocument("file:///b.py", expectedText).tree.rootNode.toString());
  const identifiers = document.tree.rootNode.descendantsOfType("identifier").map((n) => n.text);
  assert.ok(identifiers.includes("x"));
});

test("an edit re-parses into a new tree, and a tree once handed out is never edited", () => {
  const document = new PythonDocument("file:///a.py", original, 1);
  const first = document.tree;
  const firstText = first.rootNode.text;
  document.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "# c\n" }], 2);
  const second = document.tree;
  assert.notEqual(second, first);
  // The edits go to a base tree nothing reads: `edit` would have marked this one's nodes as changed.
  assert.equal(first.rootNode.hasChanges, false);
  assert.equal(first.rootNode.text, firstText);
  assert.equal(second.rootNode.startPosition.row, 0);
  assert.equal(second.rootNode.descendantsOfType("comment").length, 1);
  assert.equal(document.tree, second);
});

test("a document made for reading gives the tree of its text, and after an edit that of its new text, leaving the first tree as it was", () => {
  const document = PythonDocument.forReading("file:///a.py", original);
  const first = document.tree;
  assert.equal(first.rootNode.toString(), new PythonDocument("file:///b.py", original).tree.rootNode.toString());
  assert.equal(document.tree, first);
  document.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "# c\n" }], 1);
  const second = document.tree;
  assert.notEqual(second, first);
  assert.equal(first.rootNode.hasChanges, false);
  assert.equal(second.rootNode.toString(), new PythonDocument("file:///b.py", `# c\n${original}`).tree.rootNode.toString());
  assert.equal(second.rootNode.descendantsOfType("comment").length, 1);
});

test("a whole-text change replaces the document", () => {
  const document = new PythonDocument("file:///a.py", original, 1);
  document.update([{ text: "import os\n" }], 2);
  assert.equal(document.getText(), "import os\n");
  assert.equal(document.tree.rootNode.namedChildren[0].type, "import_statement");
  assert.equal(document.isRelevant(), false);
});

test("half-typed code still parses into a tree with errors, never throws", () => {
  const document = new PythonDocument("file:///a.py", "from airflow.sdk import task\n@task(\ndef f(task_state_store=None:\n    task_state_store.set(", 1);
  assert.equal(document.tree.rootNode.hasError, true);
});

test("node properties read once agree with the binding's cursor, node by node", () => {
  const fs = require("node:fs") as typeof import("node:fs");
  const folder = path.join(__dirname, "..", "..", "..", "examples", "dags");
  const text = fs.readdirSync(folder).filter((name) => name.endsWith(".py")).slice(0, 3).map((name) => fs.readFileSync(path.join(folder, name), "utf8")).join("\n");
  const tree = new PythonDocument("file:///examples.py", text).tree;
  const cursor = tree.walk();
  let visited = 0;
  for (;;) {
    const node = cursor.currentNode;
    // Twice: the second answer comes from what the first read kept.
    for (let i = 0; i < 2; i++) {
      assert.equal(node.type, cursor.nodeType);
      assert.equal(node.startIndex, cursor.startIndex);
      assert.equal(node.endIndex, cursor.endIndex);
    }
    if (cursor.currentFieldName) assert.equal(node.parent!.childForFieldName(cursor.currentFieldName)?.startIndex !== undefined, true);
    visited++;
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) break;
    if (cursor.currentNode.id === tree.rootNode.id) break;
  }
  assert.ok(visited > 500, `visited ${visited}`);
  assert.ok(Object.isFrozen(tree.rootNode.namedChildren), "children lists are shared, so frozen");
  assert.equal(tree.rootNode.namedChildren, tree.rootNode.namedChildren);
});


test("an identifier's end read from the source agrees with the binding's: ASCII and other names, trees with errors", () => {
  const sources = ["naïve = 1\nx_1 = naïve + déjà + _a9\nprint(x_1)\n", "def (\n  x = \nclass :\n    y.\n", "from a import (b,\n"];
  for (const source of sources) {
    const tree = parsePython(source);
    const cursor = tree.walk();
    let identifiers = 0;
    for (;;) {
      if (cursor.nodeType === "identifier") {
        identifiers++;
        assert.equal(cursor.currentNode.endIndex, cursor.endIndex, `${JSON.stringify(source)} at ${cursor.startIndex}`);
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) break;
      if (cursor.currentNode.id === tree.rootNode.id) break;
    }
    assert.ok(identifiers > 0, source);
  }
});
test("a block's statements of its own scope: through if, for, with, try and match, not into definitions", () => {
  const text = [
    "a = 1",
    "if a:",
    "    b = 2",
    "else:",
    "    for c in []:",
    "        d = 3",
    "with open('x') as e:",
    "    try:",
    "        f = 4",
    "    except OSError:",
    "        g = 5",
    "match a:",
    "    case 1:",
    "        h = 6",
    "def fn():",
    "    inside = 7",
    "@decorator",
    "class C:",
    "    attribute = 8",
    "",
  ].join("\n");
  const statements = sameScopeStatements(parsePython(text).rootNode);
  const assigned = statements.filter((s) => s.type === "expression_statement").map((s) => s.text.split(" ")[0]);
  assert.deepEqual(assigned, ["a", "b", "d", "f", "g", "h"]);
  assert.deepEqual(
    statements.filter((s) => s.type !== "expression_statement").map((s) => s.type),
    ["if_statement", "for_statement", "with_statement", "try_statement", "match_statement"],
  );
});

test("the installed node-tree-sitter is the release whose internals the parser reads, so its nodes are kept in JavaScript", () => {
  // Upgrading tree-sitter fails this test until keepNodesInJavaScript is checked against the new release's binding.
  const pinned = (JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies["tree-sitter"];
  assert.equal(pinned, NODE_TREE_SITTER_READ);
  assert.equal(treeSitterVersion(), NODE_TREE_SITTER_READ);
  assert.equal(nodesKeptInJavaScript(), true);
  const tree = parsePython("def f():\n    return 1\n");
  const fn = tree.rootNode.namedChildren[0];
  assert.equal(fn.childForFieldName("name"), fn.childForFieldName("name"), "one object per node");
  assert.equal(fn.childForFieldName("name")!.parent, fn);
});

test("a fresh thread's first climb to a parent does not crash the process", () => {
  // In a process of its own: node-tree-sitter's transfer buffer starts with room for one node, and
  // `parent` hands the binding two. This thread's buffer grew long ago.
  const parserModule = require.resolve("../../server/src/engine/syntax/parser");
  const script = `const { parsePython } = require(${JSON.stringify(parserModule)});
const keyword = parsePython("import os\\n").rootNode.descendantForIndex(0, 6);
process.stdout.write(keyword.type + " in " + keyword.parent.type);`;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  assert.equal(run.signal, null, `the process died of ${run.signal}`);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "import in import_statement");
});
