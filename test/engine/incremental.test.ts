/**
 * A lint after an edit (IncrementalLinter) must give exactly what a lint from scratch of the edited
 * text gives: the same findings, ranges, messages and fixes. Every fixture, example and a slice of
 * the benchmark corpus is edited inside each of its functions (a line commented out, a statement
 * added, a statement removed, an unclosed bracket, a name of another function written in), each edit
 * undone again, and the two lints compared after every step. The edits are the ones typing makes;
 * that most of them take the edited-function path shows the comparison is not vacuous.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { allRules, ContentChange, Diagnostic, ExternalClass, Fix, FixSummary, IncrementalLinter, lint, LintMode, LintOptions, LintOptionsWithEdits, PythonDocument, WorkspaceClasses } from "../../server/src/engine";
import { changeBetween } from "../../server/src/engine/incremental";
import { parsePython, SyntaxNode } from "../../server/src/engine/syntax/parser";
import { definitionsFound } from "../../server/src/engine/python/definitions";
import { moduleBoundWholeLastTime, PythonModel } from "../../server/src/engine/python/model";
import { CarriedBinding } from "../../server/src/engine/python/carriedBindings";
import type { Scope } from "../../server/src/engine/python/scope";
import { generateCorpus } from "../bench/corpus";
import { examplesFile } from "../bench/benchFiles";

const ROOT = path.resolve(__dirname, "../../..");
const FIXTURES = path.join(ROOT, "test/rules/fixtures");
const EXAMPLES = path.join(ROOT, "examples/dags");
/** Functions edited per file, so that the test stays within seconds. */
const MAX_FUNCTIONS_PER_FILE = 4;

interface Source {
  name: string;
  text: string;
}

function sources(): Source[] {
  const files = [
    ...fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".py")).map((f) => path.join(FIXTURES, f)),
    ...fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".py")).map((f) => path.join(EXAMPLES, f)),
  ];
  const corpus = generateCorpus({ seed: 3, files: 400 })
    .filter((file) => file.kind !== "dag" && file.kind !== "helper")
    .slice(0, 16)
    .map((file) => ({ name: `corpus/${file.path}`, text: file.text }));
  return [...files.map((file) => ({ name: path.relative(ROOT, file), text: fs.readFileSync(file, "utf8") })), ...corpus];
}

/** Offsets to a change as LSP's incremental sync sends it. */
function changeAt(document: PythonDocument, start: number, end: number, text: string): ContentChange {
  return { range: { start: document.positionAt(start), end: document.positionAt(end) }, text };
}

/** Edits inside the body of `fn`, as [start, end, inserted text] of the current text. */
function editsInside(fn: SyntaxNode, text: string, otherFunction: string | undefined): [number, number, string][] {
  const body = fn.childForFieldName("body");
  if (!body || body.namedChildren.length === 0) return [];
  const first = body.namedChildren[0];
  const last = body.namedChildren[body.namedChildren.length - 1];
  const lineStart = text.lastIndexOf("\n", first.startIndex - 1) + 1;
  const indentation = text.slice(lineStart, first.startIndex);
  const middle = Math.floor((body.startIndex + body.endIndex) / 2);
  const edits: [number, number, string][] = [
    [first.startIndex, first.startIndex, "# "],
    [first.startIndex, first.startIndex, "x = ("],
    [middle, middle, "z"],
  ];
  if (body.namedChildren.length > 1) edits.push([last.startIndex, last.endIndex, "pass"]);
  // Statements of their own are added only where the body starts on a line of its own.
  if (/^[ \t]*$/.test(indentation)) {
    edits.push([last.endIndex, last.endIndex, `\n${indentation}added_value = {"n": 1}`]);
    if (otherFunction) edits.push([last.endIndex, last.endIndex, `\n${indentation}${otherFunction}.expand(x=[1, 2])`]);
  }
  return edits;
}

function functionsOf(text: string): SyntaxNode[] {
  return parsePython(text).rootNode.descendantsOfType("function_definition");
}

/** The definitions the last lint's model carried over (when it built one) are those a search of the tree finds. */
function assertDefinitionsAsFound(linter: IncrementalLinter, document: PythonDocument, message: string): void {
  const model = linter.lastModel;
  if (model) assert.deepEqual(model.definitionPlaces, definitionsFound(parsePython(document.analysedText()), document.analysedText()).places, message);
}

/** Lints whose model carried the module scope's bindings over the edit (`python/carriedBindings.ts`), so that their check is not vacuous. */
let carriedModules = 0;

/**
 * The module bindings the last lint's model holds, their nodes read, are those a model of the text
 * built from scratch binds: carried over an edit, or bound again.
 */
function assertModuleBindingsAsFound(linter: IncrementalLinter, document: PythonDocument, message: string): void {
  const model = linter.lastModel;
  if (!model || !model.moduleBoundWhole) return;
  const bindings = [...model.module.bindings.values()].flat();
  if (bindings.some((binding) => binding instanceof CarriedBinding)) carriedModules++;
  const text = document.analysedText();
  const fresh = new PythonModel(parsePython(text), text);
  assert.deepEqual(moduleBindingsRead(model.module), moduleBindingsRead(fresh.module), message);
}

function moduleBindingsRead(module: Scope): string[] {
  const place = (node: SyntaxNode | undefined) => node && `${node.type}@${node.startIndex}-${node.endIndex}:${node.text}`;
  const read: string[] = [];
  for (const [name, bindings] of module.bindings) for (const [i, b] of bindings.entries()) read.push(`${name}#${i} ${b.kind} ${b.qualifiedName ?? ""} ${place(b.target)} = ${place(b.value) ?? ""}`);
  return read.sort();
}

function comparable(diagnostics: Diagnostic<FixSummary>[]): string {
  return JSON.stringify(diagnostics);
}

/** The findings as a lint without fixes' edits gives them. */
function summarised(diagnostics: Diagnostic[]): Diagnostic<FixSummary>[] {
  const summary = (fix: Fix): FixSummary => ({ title: fix.title, safe: fix.safe, kind: fix.kind });
  return diagnostics.map(({ fix, alternatives, ...rest }) => {
    const found: Diagnostic<FixSummary> = { ...rest, fix: fix && summary(fix) };
    if (alternatives) found.alternatives = alternatives.map(summary);
    if (rest.related) {
      delete found.related;
      found.related = rest.related;
    }
    return found;
  });
}

const WITHOUT_EDITS: LintOptions = { fixEdits: false };

describe("a lint after an edit gives what a lint from scratch gives", () => {
  const options: LintOptionsWithEdits = {};

  /**
   * Lints `source`, replaces `[start, end)` with `inserted` and lints again, then undoes the edit and
   * lints once more; checks each lint after the first against a lint from scratch. Answers how
   * the two lints after the first were made.
   */
  function editAndUndo(source: Source, start: number, end: number, inserted: string): LintMode[] {
    const document = new PythonDocument("file:///edited.py", source.text, 1);
    const linter = new IncrementalLinter();
    // As the language server lints: the findings' fixes without their edits.
    const withoutEdits = new IncrementalLinter();
    linter.lint(document, options);
    withoutEdits.lint(document, WITHOUT_EDITS);
    const removed = source.text.slice(start, end);
    document.update([changeAt(document, start, end, inserted)], 2);
    const afterEdit = linter.lint(document, options);
    assert.equal(comparable(afterEdit), comparable(lint(new PythonDocument("file:///edited.py", document.getText()), options)), `${source.name}: ${JSON.stringify(inserted)} at ${start}`);
    assert.equal(comparable(withoutEdits.lint(document, WITHOUT_EDITS)), comparable(summarised(afterEdit)), `${source.name}: ${JSON.stringify(inserted)} at ${start}, without fix edits`);
    assertDefinitionsAsFound(linter, document, `${source.name}: definitions after ${JSON.stringify(inserted)} at ${start}`);
    assertModuleBindingsAsFound(linter, document, `${source.name}: module bindings after ${JSON.stringify(inserted)} at ${start}`);
    const modes = [linter.lastMode];
    document.update([changeAt(document, start, start + inserted.length, removed)], 3);
    const afterUndo = linter.lint(document, options);
    assert.equal(comparable(withoutEdits.lint(document, WITHOUT_EDITS)), comparable(summarised(afterUndo)), `${source.name}: undo of ${JSON.stringify(inserted)} at ${start}, without fix edits`);
    assert.equal(document.getText(), source.text);
    assert.equal(comparable(afterUndo), comparable(lint(new PythonDocument("file:///edited.py", source.text), options)), `${source.name}: undo of ${JSON.stringify(inserted)} at ${start}`);
    assertDefinitionsAsFound(linter, document, `${source.name}: definitions after the undo of ${JSON.stringify(inserted)} at ${start}`);
    assertModuleBindingsAsFound(linter, document, `${source.name}: module bindings after the undo of ${JSON.stringify(inserted)} at ${start}`);
    modes.push(linter.lastMode);
    return modes;
  }
  /** Per kind of edit: lints after it (and its undo), and how many of them re-checked only the edited function. */
  const byEdit = new Map<string, { lints: number; edited: number }>();

  for (const source of sources()) {
    test(source.name, () => {
      const functions = functionsOf(source.text).slice(0, MAX_FUNCTIONS_PER_FILE);
      const names = functions.map((fn) => fn.childForFieldName("name")?.text);
      functions.forEach((fn, index) => {
        const other = names.find((name, i) => i !== index && name);
        for (const [start, end, inserted] of editsInside(fn, source.text, other)) {
          const kind = byEdit.get(inserted.replace(/\w+\.expand/, "f.expand").trim()) ?? { lints: 0, edited: 0 };
          byEdit.set(inserted.replace(/\w+\.expand/, "f.expand").trim(), kind);
          for (const mode of editAndUndo(source, start, end, inserted)) if (mode === "edited function") kind.edited++;
          kind.lints += 2;
        }
      });
    });
  }

  /** Lints after edits of comment lines (and their undos), and how many of them kept every finding. */
  const commentEdits = { lints: 0, kept: 0 };
  for (const source of sources()) {
    const comments = parsePython(source.text)
      .rootNode.descendantsOfType("comment")
      .filter((comment) => /^[ \t]*$/.test(source.text.slice(source.text.lastIndexOf("\n", comment.startIndex - 1) + 1, comment.startIndex)))
      .slice(0, MAX_FUNCTIONS_PER_FILE);
    if (comments.length === 0) continue;
    test(`${source.name}: comment lines`, () => {
      for (const comment of comments) {
        const at = comment.startIndex;
        const edits: [number, number, string][] = [
          [at, at, " "],
          [at, at, "#"],
          [at + 1, at + 1, "z"],
          [at + 1, at + 1, " noqa"],
          [at, at, "x = 1  "],
        ];
        if (comment.endIndex - at > 2) edits.push([at + 1, at + 2, ""]);
        for (const [start, end, inserted] of edits) {
          for (const mode of editAndUndo(source, start, end, inserted)) if (mode === "edited comment") commentEdits.kept++;
          commentEdits.lints += 2;
        }
      }
    });
  }

  test("edits carry the module scope's bindings over where the last lint bound them whole", () => {
    assert.ok(carriedModules > 0, "no lint carried the module bindings over: their check above was vacuous");
  });

  test("edits of comment lines keep every finding unless they silence one", () => {
    assert.ok(commentEdits.lints > 200, `only ${commentEdits.lints} lints after comment edits`);
    // Code written before a comment, and a `noqa` typed into one, are linted otherwise.
    assert.ok(commentEdits.kept / commentEdits.lints > 0.4, `${commentEdits.kept} of ${commentEdits.lints}`);
    assert.ok(commentEdits.kept < commentEdits.lints, `${commentEdits.kept} of ${commentEdits.lints}`);
  });

  test("edits that keep the code around them whole re-check only the edited function", () => {
    const summary = [...byEdit].map(([edit, { lints, edited }]) => `${JSON.stringify(edit)}: ${edited}/${lints}`).join(", ");
    const total = [...byEdit.values()].reduce((sum, kind) => sum + kind.lints, 0);
    assert.ok(total > 1000, `only ${total} lints after edits`);
    // A statement added or replaced keeps the function whole; an unclosed bracket does not, and is linted from scratch.
    for (const edit of ["pass", 'added_value = {"n": 1}']) {
      const kind = byEdit.get(edit)!;
      assert.ok(kind.edited / kind.lints > 0.6, summary);
    }
    const bracket = byEdit.get("x = (")!;
    assert.ok(bracket.edited < bracket.lints, summary);
  });
});

describe("IncrementalLinter", () => {
  const text = [
    "from datetime import datetime",
    "from airflow.sdk import task",
    "",
    "@task",
    "def first(task_state_store=None):",
    '    task_state_store.set("a", datetime.now())',
    "",
    "@task",
    "def second(task_state_store=None):",
    '    task_state_store.set("b", datetime.now())',
    "",
  ].join("\n");

  test("keeps the other functions' findings, moved by the edit", () => {
    const document = new PythonDocument("file:///two.py", text, 1);
    const linter = new IncrementalLinter();
    assert.deepEqual(linter.lint(document).map((d) => d.range.start.line), [5, 9]);
    document.update([{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, text: "    x = 1\n" }], 2);
    const after = linter.lint(document);
    assert.equal(linter.lastMode, "edited function");
    assert.deepEqual(after.map((d) => [d.code, d.range.start.line]), [["AS101", 6], ["AS101", 10]]);
  });

  test("typing in a task carries the module's bindings, whose nodes are those of the new tree", () => {
    const text = examplesFile(2);
    const document = new PythonDocument("file:///carried.py", text, 1);
    const linter = new IncrementalLinter();
    linter.lint(document, WITHOUT_EDITS);
    assert.equal(linter.lastModel?.moduleBoundWhole, true, "the examples' operators bind the module scope whole");
    const at = text.indexOf("    return ", text.indexOf("\ndef ", text.length / 2));
    for (const [version, change] of ["x = 1\n    ", "y"].entries()) {
      document.update([changeAt(document, at + 4, at + 4, change)], version + 2);
      const found = linter.lint(document, WITHOUT_EDITS);
      assert.equal(linter.lastMode, "edited function");
      assert.equal(JSON.stringify(found), JSON.stringify(lint(new PythonDocument("file:///carried.py", document.getText()), WITHOUT_EDITS)));
      const module: Scope = linter.lastModel!.module;
      const carried = [...module.bindings.values()].flat().filter((binding) => binding instanceof CarriedBinding);
      assert.ok(carried.length > 20, `${carried.length} bindings carried`);
      for (const binding of carried) {
        assert.equal(binding.target.tree, document.tree);
        if (binding.kind !== "import") assert.equal(binding.target.text, binding.name);
        assert.equal(binding.value === undefined || binding.value.tree === document.tree, true);
      }
      assert.deepEqual(moduleBindingsRead(module), moduleBindingsRead(new PythonModel(parsePython(document.getText()), document.getText()).module));
    }
  });

  describe("an edit of a comment line", () => {
    const dag = [
      "from airflow.sdk import DAG",
      "from include.operators import NightlySpark",
      "",
      'with DAG(dag_id="nightly", schedule=None):',
      "    # the nightly batch",
      '    NightlySpark(task_id="batch", retries=0)',
      "",
    ].join("\n");
    const mixinOperator: ExternalClass = { qualifiedName: "include.operators.NightlySpark", path: "/repo/include/operators.py", baseNames: ["airflow.sdk.ResumableJobMixin", "airflow.sdk.BaseOperator"], methods: new Set(["submit_job", "poll_until_complete", "get_job_result"]), stringAttributes: new Map([["external_id_key", "spark_id"]]) };
    /** A workspace whose one class can be taken away, which bumps its version. */
    const workspace = () => {
      let known = true;
      let version = 1;
      const classes: WorkspaceClasses & { forget(): void } = {
        get version() {
          return version;
        },
        resolveClass: (name) => (known && name === mixinOperator.qualifiedName ? mixinOperator : undefined),
        forget: () => {
          known = false;
          version++;
        },
      };
      return classes;
    };
    let checks = 0;
    const counted = allRules.map((rule) => ({ ...rule, check: (context: Parameters<typeof rule.check>[0]) => (checks++, rule.check(context)) }));
    const commentLine = dag.split("\n").indexOf("    # the nightly batch");
    const typeInComment = (document: PythonDocument, version: number) => document.update([{ range: { start: { line: commentLine, character: 6 }, end: { line: commentLine, character: 6 } }, text: "x" }], version);

    test("keeps every finding, moved, and runs no rule while the inputs stay the same", () => {
      const classes = workspace();
      const options: LintOptionsWithEdits = { workspace: classes, path: "/repo/dags/nightly.py", rules: counted };
      const document = new PythonDocument("file:///repo/dags/nightly.py", dag, 1);
      const linter = new IncrementalLinter();
      const before = linter.lint(document, options);
      assert.ok(before.some((d) => d.code === "AS305"), JSON.stringify(before.map((d) => d.code)));
      checks = 0;
      typeInComment(document, 2);
      const after = linter.lint(document, options);
      assert.equal(linter.lastMode, "edited comment");
      assert.equal(checks, 0);
      assert.equal(comparable(after), comparable(lint(new PythonDocument("file:///repo/dags/nightly.py", document.getText()), options)));
    });

    test("re-runs the rules that read the workspace once its version changed", () => {
      const classes = workspace();
      const options: LintOptionsWithEdits = { workspace: classes, path: "/repo/dags/nightly.py", rules: counted };
      const document = new PythonDocument("file:///repo/dags/nightly.py", dag, 1);
      const linter = new IncrementalLinter();
      linter.lint(document, options);
      classes.forget();
      typeInComment(document, 2);
      const after = linter.lint(document, options);
      assert.equal(linter.lastMode, "edited comment");
      assert.ok(!after.some((d) => d.code === "AS305"));
      assert.equal(comparable(after), comparable(lint(new PythonDocument("file:///repo/dags/nightly.py", document.getText()), options)));
    });

    test("a workspace that does not say its version is asked again on every lint", () => {
      const known = { value: true };
      const classes: WorkspaceClasses = { resolveClass: (name) => (known.value && name === mixinOperator.qualifiedName ? mixinOperator : undefined) };
      const options: LintOptionsWithEdits = { workspace: classes, path: "/repo/dags/nightly.py", rules: counted };
      const document = new PythonDocument("file:///repo/dags/nightly.py", dag, 1);
      const linter = new IncrementalLinter();
      linter.lint(document, options);
      known.value = false;
      typeInComment(document, 2);
      assert.equal(comparable(linter.lint(document, options)), comparable(lint(new PythonDocument("file:///repo/dags/nightly.py", document.getText()), options)));
    });
  });

  test("lints from scratch when the edit leaves every function", () => {
    const document = new PythonDocument("file:///two.py", text, 1);
    const linter = new IncrementalLinter();
    linter.lint(document);
    document.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: "ORDERS = 1" }], 2);
    linter.lint(document);
    assert.equal(linter.lastMode, "from scratch");
  });

  test("the same text again re-runs the rules that read inputs, and keeps the others' findings", () => {
    const document = new PythonDocument("file:///two.py", text, 1);
    const linter = new IncrementalLinter();
    const first = linter.lint(document);
    assert.deepEqual([...new Set(first.map((d) => d.code))], ["AS101"]);
    // The project now pins an Airflow without state stores: AS501 reads the pin.
    const airflowPin = { version: "2.10.5", below33: true, source: { path: "/p/requirements.txt", line: 1 } };
    const pinned = linter.lint(document, { airflowPin });
    assert.equal(linter.lastMode, "same text");
    assert.deepEqual(comparable(pinned), comparable(lint(new PythonDocument("file:///two.py", text), { airflowPin })));
    assert.ok(pinned.some((d) => d.code === "AS501"));
  });

  test("a module scope the last lint bound whole is bound at the first lookup after an edit, with the same findings", () => {
    // The example DAGs, each copy's names its own: their `with DAG(...)` blocks make the rules look up many module names.
    const source = examplesFile(1);
    const document = new PythonDocument("file:///examples.py", source, 1);
    const linter = new IncrementalLinter();
    linter.lint(document);
    assert.equal(linter.lastModel?.moduleBoundWhole, true, "the first lint, from scratch, ends up binding the module whole");
    // A letter typed at the end of the first name a function in the second half of the file assigns, as `npm run bench` types.
    const assigned = (fn: SyntaxNode) => fn.childForFieldName("body")!.namedChildren.map((statement) => statement.firstNamedChild).find((child) => child?.type === "assignment" && child.childForFieldName("left")?.type === "identifier");
    const fn = document.tree.rootNode.descendantsOfType("function_definition").find((f) => f.startPosition.row > document.lineCount / 2 && assigned(f))!;
    const name = assigned(fn)!.childForFieldName("left")!;
    const at = { line: name.endPosition.row, character: name.endPosition.column };
    document.update([{ range: { start: at, end: at }, text: "x" }], 2);
    const after = linter.lint(document);
    assert.equal(linter.lastMode, "edited function");
    assert.equal(linter.lastModel?.context.peek(moduleBoundWholeLastTime), true, "the lint after the edit was told");
    assert.equal(linter.lastModel?.moduleBoundWhole, true);
    const found = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => `${d.code}@${d.startOffset}-${d.endOffset} ${d.message}`);
    assert.deepEqual(found(after), found(lint(new PythonDocument("file:///examples.py", document.getText()))));
  });

  test("a `global` statement in the edited function makes the lint start from scratch", () => {
    const document = new PythonDocument("file:///two.py", text, 1);
    const linter = new IncrementalLinter();
    linter.lint(document);
    document.update([{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, text: "    global datetime\n" }], 2);
    linter.lint(document);
    assert.equal(linter.lastMode, "from scratch");
  });
});

describe("changeBetween", () => {
  test("finds the longest common start and end on either side of a block boundary, never overlapping", () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const base = Array.from({ length: 5000 }, (_, i) => "ab\n#"[(i * 7 + (i >> 5)) % 4]).join("");
    const places = [0, 1, 1023, 1024, 1025, 2047, 2048, 2500, 4095, 4096, 4999, 5000];
    for (let round = 0; round < 400; round++) {
      const start = round < places.length ? places[round] : random(base.length + 1);
      const removed = random(3) === 0 ? 0 : random(1200);
      const inserted = ["", "a", "#", "\n", "ab".repeat(random(700))][random(5)];
      const oldText = base;
      const newText = base.slice(0, start) + inserted + base.slice(Math.min(base.length, start + removed));
      const change = changeBetween(oldText, newText);
      const context = `round ${round}: at ${start}, ${removed} removed, ${inserted.length} inserted`;
      assert.ok(change.start <= change.oldEnd && change.start <= change.newEnd, context);
      assert.equal(oldText.slice(0, change.start), newText.slice(0, change.start), context);
      assert.equal(oldText.slice(change.oldEnd), newText.slice(change.newEnd), context);
      assert.equal(oldText.slice(0, change.start) + newText.slice(change.start, change.newEnd) + oldText.slice(change.oldEnd), newText, context);
      // Longest: the start stops at a difference, and so does the end, unless the shorter text is used up.
      const shorter = Math.min(oldText.length, newText.length);
      if (change.start < shorter) assert.notEqual(oldText[change.start], newText[change.start], context);
      const suffix = oldText.length - change.oldEnd;
      if (suffix < shorter - change.start) assert.notEqual(oldText[oldText.length - 1 - suffix], newText[newText.length - 1 - suffix], context);
    }
  });
});
