import assert from "node:assert/strict";
import { test } from "node:test";
import { parsePython } from "../../server/src/engine/syntax/parser";
import { stringLiteral } from "../../server/src/engine/syntax/nodes";

/** The value, prefix and flags `stringLiteral` gives the only string of `source`. */
function literal(source: string): string {
  const tree = parsePython(`x = ${source}\n`);
  const found = stringLiteral(tree.rootNode.descendantsOfType("string")[0]);
  return found ? `${found.prefix}|${found.value}|${found.isBytes ? "bytes" : ""}|${found.isFString ? "f" : ""}` : "none";
}

test("string literals: every prefix and quote, in a tree with and without errors", () => {
  const cases: [string, string][] = [
    [`"a"`, "|a||"],
    [`''`, "|||"],
    [`""""""`, "|||"],
    [`"""a"b"""`, '|a"b||'],
    [`'''it's'''`, "|it's||"],
    [`u"\\""`, 'u|\\"||'],
    [`rb'''d'''`, "rb|d|bytes|"],
    [`F'{{x}}'`, "f|{{x}}||"],
    [`f"a{b}"`, "f|a{b}||f"],
    [`Rb"\\\\"`, "rb||bytes|"], // tree-sitter-python's string_end holds a raw string's trailing backslashes
    [`B"x"`, "b|x|bytes|"],
  ];
  for (const [source, expected] of cases) {
    assert.equal(literal(source), expected, source);
    // The same string in a tree with an error elsewhere is read from its nodes.
    const tree = parsePython(`x = ${source}\ny = (\n`);
    assert.ok(tree.rootNode.hasError);
    const found = stringLiteral(tree.rootNode.descendantsOfType("string")[0]);
    assert.equal(found ? `${found.prefix}|${found.value}|${found.isBytes ? "bytes" : ""}|${found.isFString ? "f" : ""}` : "none", expected, `${source} in a tree with errors`);
  }
});
