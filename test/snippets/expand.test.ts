/** The snippet expander the snippet tests rely on, against VS Code's snippet syntax and its defaults. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expandSnippet, parseSnippet } from "./expand";

const text = (body: string | string[], options = {}) => expandSnippet(body, options).text;

describe("snippet expansion with default values", () => {
  test("tab stops, placeholders and the final tab stop", () => {
    assert.equal(text("a$1b${2}c${3:three}d$0"), "abcthreed");
    assert.equal(text("${0:pass}"), "pass");
    assert.equal(text("x = $12"), "x = ");
  });

  test("mirrors take the value of the first placeholder of their index that has one", () => {
    assert.equal(text("$1 ${1:first} ${1:second} ${1}"), "first first first first");
    assert.equal(text("${1:a} ${2:$1-b}"), "a a-b");
  });

  test("nested placeholders render inside their parent and are mirrored with it", () => {
    assert.equal(text("${1:outer ${2:inner}} / $2 / $1"), "outer inner / inner / outer inner");
    assert.equal(text("${0:print(${1:x})}"), "print(x)");
  });

  test("choices default to their first option; escapes in options", () => {
    assert.equal(text("${1|warning,error|} $1"), "warning warning");
    assert.equal(text("${1|a\\,b,c\\|d|}"), "a,b");
  });

  test("escapes: \\$ \\} \\\\, and a backslash that escapes nothing is kept", () => {
    assert.equal(text("cost \\$5"), "cost $5");
    assert.equal(text('${1:f"{x\\}"}'), 'f"{x}"');
    assert.equal(text("a\\\\b"), "a\\b");
    assert.equal(text('"\\n"'), '"\\n"');
    assert.equal(text("} and { at top level"), "} and { at top level");
    assert.equal(text("a $ b $("), "a $ b $(");
  });

  test("variables: given values, defaults, unknown names", () => {
    assert.equal(text("$TM_FILENAME_BASE", { variables: { TM_FILENAME_BASE: "orders" } }), "orders");
    assert.equal(text("${TM_FILENAME_BASE:dag}"), "dag");
    assert.equal(text("${NOT_A_VARIABLE}"), "NOT_A_VARIABLE");
    assert.throws(() => text("$TM_FILENAME"), /no value given for the editor variable \$TM_FILENAME/);
  });

  test("malformed or unsupported syntax throws instead of inserting text", () => {
    assert.throws(() => parseSnippet("${1:unterminated"), /unterminated/);
    assert.throws(() => parseSnippet("${1|a,b"), /unterminated choice/);
    assert.throws(() => parseSnippet("${1/(.*)/$1/}"), /transforms are not supported/);
    assert.throws(() => parseSnippet("${ 1}"), /tab stop number or a variable name/);
    assert.throws(() => parseSnippet("${1x}"), /unexpected "x"/);
  });

  test("leading tabs become the indentation, and following lines get the insertion line's", () => {
    assert.equal(text(["def f():", "\tif x:", "\t\t${0:pass}", "", "f()"], { indentation: "    " }), "def f():\n        if x:\n            pass\n\n    f()");
    assert.equal(text(["a", "  \tb"], { tabSize: 4 }), "a\n    b");
  });

  test("reports each tab stop's default and whether it has one", () => {
    const stops = expandSnippet("${1:a} $1 $2 ${3|x,y|} ${0:end}").tabStops;
    assert.deepEqual([...stops.values()], [
      { index: 0, value: "end", hasDefault: true, occurrences: 1 },
      { index: 1, value: "a", hasDefault: true, occurrences: 2 },
      { index: 2, value: "", hasDefault: false, occurrences: 1 },
      { index: 3, value: "x", hasDefault: true, occurrences: 1 },
    ]);
  });
});
