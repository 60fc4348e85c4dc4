/**
 * Deep and long input: attribute chains of 100,000, expressions nested 20,000 deep, 20,000 classes
 * each deriving from the last. Every rule must finish on them without throwing (a recursion as deep
 * as the input overflows the stack, and the rule's findings are lost), and the findings must still be
 * the ones the rule docs promise: AS101 and AS107 look 16 levels into nested values, and follow
 * chains of base classes and of store names to any length.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { completionsAt, Diagnostic, fixAll, hoverAt, lint, LintOptionsWithEdits, PythonDocument, reviewMarkdown } from "../../server/src/engine";

const DEEP = 20_000;
const LONG_CHAIN = 100_000;

function lintWithoutErrors(text: string, options: LintOptionsWithEdits = {}): Diagnostic[] {
  const errors: string[] = [];
  const diagnostics = lint(new PythonDocument("file:///deep.py", text), { ...options, onRuleError: (rule, error) => errors.push(`${rule.code}: ${String(error)}`) });
  assert.deepEqual(errors, []);
  return diagnostics;
}

/** The lines (1-based) on which `code` is reported. */
function linesOf(diagnostics: Diagnostic[], code: string): number[] {
  return diagnostics.filter((d) => d.code === code).map((d) => d.range.start.line + 1);
}

/**
 * A task storing `value` on line 5, and a `datetime` on line 6: that AS101 still reports line 6
 * shows the rules ran to the end of the file.
 */
function storing(value: string): string {
  return [
    "from datetime import datetime",
    "from airflow.sdk import task",
    "@task",
    "def load(task_state_store=None):",
    `    task_state_store.set("deep", ${value})`,
    '    task_state_store.set("plain", datetime.now())',
    "",
  ].join("\n");
}

const nested = (open: string, inner: string, close: string, depth = DEEP) => open.repeat(depth) + inner + close.repeat(depth);

describe("deep expressions lint without a rule error", () => {
  const cases: [string, string][] = [
    ["an attribute chain", "a" + ".b".repeat(LONG_CHAIN)],
    ["a chain of method calls", "a" + ".b()".repeat(DEEP)],
    ["parentheses", nested("(", "datetime.now()", ")")],
    ["calls", nested("f(", "datetime.now()", ")")],
    ["keyword arguments", nested("dict(at=", "datetime.now()", ")")],
    ["binary operators", "1 + ".repeat(DEEP) + "datetime.now()"],
    ["subscripts", "x" + "[0]".repeat(DEEP)],
    ["lambdas", "lambda: ".repeat(DEEP) + "datetime.now()"],
    ["unary operators", "-".repeat(DEEP) + "1"],
    ["boolean operators", "a and ".repeat(DEEP) + "datetime.now()"],
    ["comparisons", "a < ".repeat(DEEP) + "b"],
    ["assignment expressions", nested("(a := ", "datetime.now()", ")")],
    ["comprehensions", nested("[x for x in ", "y", "]")],
  ];
  for (const [name, value] of cases) {
    test(name, () => assert.ok(linesOf(lintWithoutErrors(storing(value)), "AS101").includes(6)));
  }
});

describe("a non-JSON value nested deeper than AS101 looks is not examined, as its docs say", () => {
  const containers: [string, (inner: string, depth?: number) => string][] = [
    ["lists", (inner, depth) => nested("[", inner, "]", depth)],
    ["dictionaries", (inner, depth) => nested('{"a": ', inner, "}", depth)],
    ["conditional expressions", (inner, depth = DEEP) => "1 if c else ".repeat(depth) + inner],
  ];
  for (const [name, wrap] of containers) {
    test(`${name}: found 16 levels deep, not 17 or ${DEEP}`, () => {
      assert.deepEqual(linesOf(lintWithoutErrors(storing(wrap("datetime.now()", 16))), "AS101"), [5, 6]);
      assert.deepEqual(linesOf(lintWithoutErrors(storing(wrap("datetime.now()", 17))), "AS101"), [6]);
      assert.deepEqual(linesOf(lintWithoutErrors(storing(wrap("datetime.now()"))), "AS101"), [6]);
    });
  }

  test("AS107 has the same limit", () => {
    const nan = (depth: number) => storing(nested("[", 'float("nan")', "]", depth));
    assert.deepEqual(linesOf(lintWithoutErrors(nan(16)), "AS107"), [5]);
    assert.deepEqual(linesOf(lintWithoutErrors(nan(DEEP)), "AS107"), []);
  });
});

describe("long chains of names and targets", () => {
  test("a store reached through 20,000 names bound to names, or a store of a 20,000-deep subscript", () => {
    const names = Array.from({ length: DEEP }, (_, i) => `    s${i + 1} = s${i}`);
    const text = storing("1").replace('    task_state_store.set("deep", 1)', ["    s0 = task_state_store", ...names, `    s${DEEP}.set("k", datetime.now())`, "    x" + "[0]".repeat(DEEP) + '.set("k", 1)'].join("\n"));
    assert.deepEqual(linesOf(lintWithoutErrors(text, { select: ["AS101"] }), "AS101"), [DEEP + 6, DEEP + 8]);
  });

  test("assignment targets nested 20,000 deep, and names bound to each other in a cycle", () => {
    const targets = [nested("(", "a", ")") + " = 1", nested("(b, ", "c", ")") + " = " + nested("(1, ", "2", ")"), "ti_a = ti_b", "ti_b = ti_a", 'ti_a.xcom_pull(key="k")'];
    const text = storing("1").replace("@task", [...targets, "@task"].join("\n"));
    assert.deepEqual(linesOf(lintWithoutErrors(text), "AS101"), [targets.length + 6]);
  });
});

describe("20,000 classes each deriving from the last", () => {
  const chain = (first: string, body: string, length = DEEP) =>
    [first, ...Array.from({ length: length - 1 }, (_, i) => `class C${i + 1}(C${i}):\n${body}`)].join("\n");

  test("an instance of the last is found not to be JSON", () => {
    const text = [chain("class C0:\n    pass", "    pass"), storing(`C${DEEP - 1}()`)].join("\n");
    assert.deepEqual(linesOf(lintWithoutErrors(text, { select: ["AS101"] }), "AS101"), [2 * DEEP + 5, 2 * DEEP + 6]);
  });

  test("AS301 follows the key inherited through all of them to its rename", () => {
    const imports = "from airflow.sdk import BaseOperator\nfrom airflow.providers.common.resumable import ResumableJobMixin\n";
    const text = imports + chain('class C0(ResumableJobMixin, BaseOperator):\n    external_id_key = "job_id"', "    pass");
    const diagnostics = lintWithoutErrors(text, { baselineText: text.replace('"job_id"', '"batch_id"'), select: ["AS301"] });
    // One diagnostic: the fix on the base's string restores every subclass's key.
    assert.deepEqual(linesOf(diagnostics, "AS301"), [4]);
    assert.match(diagnostics[0].message, new RegExp(`\`C${DEEP - 1}\``));
  });

  test("the operator rules take a class for a ResumableJobMixin operator up to 16 classes from the mixin, as AS302's docs say", () => {
    const imports = "from airflow.sdk import BaseOperator\nfrom airflow.providers.common.resumable import ResumableJobMixin\n";
    const text = imports + chain("class C0(ResumableJobMixin, BaseOperator):\n    pass", "    def execute(self, context):\n        return 1", 40);
    // The `def execute` lines of C1 to C16, each class three lines long after the four lines of the imports and C0.
    const expected = Array.from({ length: 16 }, (_, i) => 6 + 3 * i);
    assert.deepEqual(linesOf(lintWithoutErrors(text, { select: ["AS302"] }), "AS302"), expected);
  });
});

test("tree-sitter parses the deep input without an error and re-parses it after an edit", () => {
  const text = storing(nested("[", "datetime.now()", "]"));
  const document = new PythonDocument("file:///deep.py", text);
  assert.equal(document.tree.rootNode.hasError, false);
  const offset = text.indexOf("datetime.now()]");
  const position = document.positionAt(offset);
  document.update([{ range: { start: position, end: { line: position.line, character: position.character + "datetime".length } }, text: "dt" }], 2);
  assert.equal(document.tree.rootNode.hasError, false);
  assert.ok(document.getText().includes("dt.now()"));
});

describe("every rule, the review, fix-all, hover and completion on all the deep forms at once", () => {
  const forms = [
    "a" + ".b".repeat(LONG_CHAIN),
    "a" + ".b()".repeat(DEEP),
    nested("(", "datetime.now()", ")"),
    nested("f(", "datetime.now()", ")"),
    nested("[", "datetime.now()", "]"),
    nested('{"a": ', "datetime.now()", "}"),
    "1 + ".repeat(DEEP) + "datetime.now()",
    "x" + "[0]".repeat(DEEP),
    "lambda: ".repeat(DEEP) + "datetime.now()",
    "-".repeat(DEEP) + "1",
    "a and ".repeat(DEEP) + "datetime.now()",
    "1 if c else ".repeat(DEEP) + "None",
    "a >> ".repeat(DEEP) + "b",
  ];
  const imports = "from airflow.sdk import BaseOperator, Variable\nfrom airflow.providers.common.resumable import ResumableJobMixin\n";
  const body = forms.map((form, i) => `    task_state_store.set("k${i}", ${form}, retention=${form})\n    Variable.set("v${i}", ${form})\n    x${i} = ${form}`).join("\n");
  const text = imports + storing("1").replace('    task_state_store.set("deep", 1)', body) + `\nclass Op(ResumableJobMixin, BaseOperator):\n    retries = ${forms[0]}\n    def execute(self, context):\n        return ${forms[2]}\n`;
  const document = new PythonDocument("file:///deep.py", text);

  test("every rule runs on it to the end without an error", () => {
    // One lint runs every rule whose text test passes on this file (a rule error is caught per rule and fails the test).
    assert.ok(linesOf(lintWithoutErrors(text), "AS101").includes(text.split("\n").findIndex((line) => line.includes('"plain"')) + 1));
  });

  test("the review and fix-all finish, and the last line's finding is fixed", () => {
    assert.match(reviewMarkdown(document, {}), /AS101/);
    const fixed = fixAll("file:///deep.py", text, { select: ["AS101"] }, true);
    assert.ok(fixed.text.includes('task_state_store.set("plain", datetime.now().isoformat())'));
  });

  test("hover and completion anywhere in the deep forms", () => {
    for (const form of forms) {
      const offset = text.indexOf(form) + Math.floor(form.length / 2);
      hoverAt(document, offset, (code) => code);
      completionsAt(document, offset);
    }
    assert.ok(hoverAt(document, text.indexOf("task_state_store.set"), (code) => code) !== undefined);
  });
});
