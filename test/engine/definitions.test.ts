/**
 * The places of a file's definitions carried over an edit inside one function (`knownDefinitionsIn`)
 * must be those a search of the edited tree finds, and the model built from them must answer as a
 * model built from scratch: the nodes it finds again are the tree's own.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { definitionNodeAt, definitionsFound, knownDefinitions, knownDefinitionsIn, placeOf } from "../../server/src/engine/python/definitions";
import { parsePython } from "../../server/src/engine/syntax/parser";
import { definitionStatement } from "../../server/src/engine/syntax/nodes";
import { SemanticModel } from "../../server/src/engine/airflow/model";
import { AnalysisContext } from "../../server/src/engine/context";

const TEXT = [
  "from airflow.sdk import dag, task",
  "",
  "class Base:",
  "    def run(self):",
  "        return 1",
  "",
  "@dag(schedule=None)",
  "def pipeline():",
  "    @task",
  "    def first():",
  "        def helper(x):",
  "            return x",
  "        return helper(1)",
  "",
  "    @task(retries=2)",
  "    async def second():",
  "        value = 2",
  "        return value",
  "",
  "    class Local(Base):",
  "        def run(self):",
  "            return 3",
  "",
  "    first() >> second()",
  "",
  "pipeline()",
  "",
].join("\n");

/** The definition (decorators included) in `text` of the innermost function named `name` that holds `offset`. */
function definitionRange(text: string, name: string, offset: number): { start: number; end: number } {
  const fn = parsePython(text)
    .rootNode.descendantsOfType("function_definition")
    .filter((node) => node.childForFieldName("name")?.text === name && node.startIndex <= offset && offset < node.endIndex)
    .pop()!;
  const statement = definitionStatement(fn);
  return { start: statement.startIndex, end: statement.endIndex };
}

/** `text` with `inserted` put at the start of the line holding `marker`, and the places carried over that edit. */
function carriedOver(name: string, marker: string, inserted: string) {
  const at = TEXT.lastIndexOf("\n", TEXT.indexOf(marker)) + 1;
  const edited = TEXT.slice(0, at) + inserted + TEXT.slice(at);
  const oldRange = definitionRange(TEXT, name, at);
  const newRange = definitionRange(edited, name, at);
  const places = definitionsFound(parsePython(TEXT), TEXT).places;
  const tree = parsePython(edited);
  const delta = edited.length - TEXT.length;
  return { edited, tree, oldRange, newRange, found: knownDefinitionsIn({ places, edit: { oldRange, newRange, delta } }, tree, edited) };
}

describe("definitions carried over an edit", () => {
  const edits: [string, string, string][] = [
    ["first", "            return x", "            y = 1\n"],
    ["helper", "            return x", "            # a comment\n"],
    ["second", "        value = 2", "        def nested():\n            pass\n"],
    ["second", "        return value", "        class Inner:\n            pass\n"],
    ["run", "            return 3", "            z = 4\n"],
    ["run", "        return 1", "        deleted = 0\n"],
  ];
  for (const [name, marker, inserted] of edits) {
    test(`${JSON.stringify(inserted.trim())} in ${name}`, () => {
      const { edited, tree, found } = carriedOver(name, marker, inserted);
      assert.ok(found, "the places nest around the edited function");
      assert.deepEqual(found.places, definitionsFound(tree, edited).places);
      // Each place finds its node again in the edited tree.
      for (const place of found.places) assert.deepEqual(placeOf(definitionNodeAt(tree, edited, place)), place);
    });
  }

  test("places that do not nest around the edited function are found in the tree instead", () => {
    const places = definitionsFound(parsePython(TEXT), TEXT).places;
    const first = definitionRange(TEXT, "first", TEXT.indexOf("def first"));
    // A range that cuts a definition in two: no tree nests so.
    const cut = { start: first.start + 3, end: places.find((p) => p.name === "second")!.start + 5 };
    assert.equal(knownDefinitionsIn({ places, edit: { oldRange: cut, newRange: cut, delta: 0 } }, parsePython(TEXT), TEXT), undefined);
  });

  test("the same text keeps every place", () => {
    const tree = parsePython(TEXT);
    const places = definitionsFound(tree, TEXT).places;
    assert.deepEqual(knownDefinitionsIn({ places }, tree, TEXT)?.places, places);
  });

  test("a model of carried places answers as one built from scratch", () => {
    const { edited, tree, oldRange, newRange } = carriedOver("second", "        value = 2", "        extra = 5\n");
    const context = new AnalysisContext({ text: edited }, tree);
    context.provide(knownDefinitions, { places: definitionsFound(parsePython(TEXT), TEXT).places, edit: { oldRange, newRange, delta: edited.length - TEXT.length } });
    const carried = new SemanticModel(tree, edited, context);
    const scratch = new SemanticModel(parsePython(edited), edited);
    const describe = (model: SemanticModel) => ({
      functions: model.functions.map((fn) => [fn.name, fn.node.startIndex, fn.nameNode.text, fn.parameters.map((p) => p.name), fn.task?.variant, fn.enclosingClass?.name]),
      classes: model.classes.map((cls) => [cls.name, cls.node.startIndex, cls.baseNames, [...cls.methods.keys()]]),
      dags: model.dags.map((d) => d.node.startIndex),
    });
    assert.deepEqual(describe(carried), describe(scratch));
    // The nodes found again are the edited tree's own.
    assert.equal(carried.functionNamed("pipeline")!.node.tree, tree);
  });
});
