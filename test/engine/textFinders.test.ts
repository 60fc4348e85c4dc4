/**
 * The parser's text-driven finders must return what a walk of the tree returns: they only find the
 * candidates faster. Checked on every fixture, example and part of the benchmark corpus, and on
 * texts made to mislead a text search (keywords in strings and comments, `async def`, nesting).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { attributeCalls, callsOfNames, definitions, subscripts, identifiersSpelled, identifiersSpelledAny, isDefinedName, mayBeCalledOrAttributed, parsePython, sameScopeStatements, SyntaxNode, walkedDefinitions, withStatements } from "../../server/src/engine/syntax/parser";
import { generateCorpus } from "../bench/corpus";
import { BINDING_TYPES, bindingNodes } from "../../server/src/engine/python/model";
import { plainClassBases } from "../../server/src/engine/syntax/definitionHeaders";
import { dottedParts } from "../../server/src/engine/syntax/nodes";

const ROOT = path.resolve(__dirname, "../../..");

const MISLEADING = [
  'def f():\n    s = "def g(): pass"  # class C: pass\n    return s\n',
  "async def run():\n    async def inner():\n        pass\n    return inner\n",
  "@task\ndef a():\n    class Local:\n        def method(self):\n            def deepest(): ...\n",
  'class A(Base):\n    """class docs; def nothing"""\n    x = lambda: 1\n\nundefined = 1\nredef = "class"\n',
  "match x:\n    case Point(x=0):\n        pass\ndef after(): pass\n",
  "def half(:\n    pass\nclass\n",
  'with open("with.txt") as with_file:  # with\n    async def go():\n        async with lock, other() as o:\n            with nested(): pass\n    startswith = "with"\n',
  "with (\n    a() as x,\n    b() as y,\n):\n    pass\nwith broken(:\n",
  "match command:\n    case 'go':\n        def inside_case(): pass\n    case _:\n        class InCase: pass\n",
  "try:\n    def in_try(): pass\nexcept E:\n    def in_except(): pass\nelse:\n    def in_else(): pass\nfinally:\n    def in_finally(): pass\nwhile x:\n    def in_while(): pass\nelse:\n    def in_while_else(): pass\nfor i in y:\n    pass\nelse:\n    async def in_for_else(): pass\nif a:\n    pass\nelif b:\n    def in_elif(): pass\nwith c:\n    @d\n    class InWith: pass\n",
  "try:\n    pass\nexcept* E:\n    def in_except_group(): pass\n",
  "x = y = f(a=1, b=2)\nz: int = 3\nw: str\nq = lambda k=1: k\nprint(f\"{v=}\", t := 4)\ng(a=1, b=(c := 2), **d)\nh(**{'a': 1}, e=[u := 5 for _ in 'x=y'])\nfor i in range(3): pass\nwith o() as (p, r): pass\nimport os as system\nfrom a import b as c\nn += 1\nm = n = k = 0  # k = 1\n",
  "class \\\n    Continued(Base): pass\nasync   def  spaced ( ): pass\ndef broken\\\n(): pass\nclass Ünïcode(Base): pass\ndef naïve(): pass\nclass Tab\t(Base)\t:\n    pass\n",
  "class A(B, c.D,):\n    pass\nclass E():\n    pass\nclass F(metaclass=M): pass\nclass G(B  # base\n): pass\nclass H(None): pass\nclass I(\n    B,\n    C,\n): pass\nclass J(B)  :\n    pass\nclass K(Bä): pass\nclass L(*bases): pass\nclass M(a . b): pass\nclass N(B, **kw): pass\nclass O(f(x)): pass\n",
  'X(1)\nY = (X  # c\n  (2))\nZ = X \\\n (3)\nX.partial\\\n(4)\nX . partial (5)\na.X(6)\ns = "X(7)"  # X(8)\nclass X(Y): pass\ndef X(): pass\n@X(9)\ndef g(): pass\n[X.partial(10), X.other(11), (X)(12), X(13)(14), X.partial(15).partial(16)]\nW = (\n    X\n    (17)\n)\nV = [X(a for a in b), X\n(c for c in d), X.partial\n(e for e in f), any(g for g in X)]\n',
  'a[0]\nb = x [1]\nc = (y  # c\n  [2])\nd = "s"[0]\ne = {"k": 1}["k"]\nf = [[1], [2]][0][1]\ng = f(x)[0]\nh = z \\\n [3]\ni = "a[0]"  # b[1]\nj = Ünï[0]\nk = [l for l in m][0]\nif n in [1]: pass\nr = lambda: o[p[q]]\ns = t[1:2, ::3]\n',
  // Keyword arguments, defaults, annotations and dicts in headers and constants: `=` and `:` that bind nothing, beside those that do.
  '@task(retries=2, params={"a": 1}, flag=(v := 3))\ndef t(x: int = 1, *, y: "T" = {"k": 2}): pass\nwith DAG(dag_id="d", default_args={"retries": 1, "owner": "o"}, schedule=(s := None)) as dag:\n    K: dict = {"a": {"b": 1}}\n    L = {"c": lambda q=1: q, "d": [1, 2][0:1]}\n    ann: int\n    f(a=1)[b:c] = {"e": 2}\nfor i in [j for j in range(3) if (k := j)]: pass\nclass C:\n    field: int\n    other: str = "x"\n    def m(self, p: int = 2): global G; G = p\nimport a, b as c; from d import (e as f, g)\n',
  "def outer():\n    try:\n        pass\n    except* ValueError as group:\n        handled = group\n    # a comment\n    if x := f():\n        y = [z for z in x]\n    else:\n        while (w := 1):\n            del w\n",
];

function texts(): { name: string; text: string }[] {
  const folders = [path.join(ROOT, "test/rules/fixtures"), path.join(ROOT, "examples/dags")];
  const files = folders.flatMap((folder) => fs.readdirSync(folder).filter((f) => f.endsWith(".py")).map((f) => path.join(folder, f)));
  return [
    ...files.map((file) => ({ name: path.relative(ROOT, file), text: fs.readFileSync(file, "utf8") })),
    ...generateCorpus({ seed: 5, files: 200 }).map((file) => ({ name: file.path, text: file.text })),
    ...MISLEADING.map((text, i) => ({ name: `misleading ${i}`, text })),
  ];
}

const ids = (nodes: readonly SyntaxNode[]) => nodes.map((node) => `${node.type}@${node.startIndex}-${node.endIndex}`);

describe("text-driven finders find what a tree walk finds", () => {
  const all = texts();

  test("definitions", () => {
    for (const { name, text } of all) {
      const tree = parsePython(text);
      assert.deepEqual(ids(definitions(tree, text)), ids(tree.rootNode.descendantsOfType(["function_definition", "class_definition"])), name);
    }
  });

  test("definitions walked with a tree cursor, with their keywords, names and bodies, whole or within a range", () => {
    let walkedTrees = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const nodes = tree.rootNode.descendantsOfType(["function_definition", "class_definition"]);
      if (tree.rootNode.hasError) {
        assert.equal(walkedDefinitions(tree, text), undefined, `${name}: a tree with errors is left to the text search`);
        continue;
      }
      walkedTrees++;
      const expected = (within?: { start: number; end: number }) =>
        nodes
          .map((node) => {
            const keyword = node.type === "function_definition" && node.firstChild?.type === "async" ? node.child(1)!.startIndex : node.startIndex;
            const range = (part: SyntaxNode | null) => part && { start: part.startIndex, end: part.endIndex };
            return { node, kind: node.type === "class_definition" ? "class" : "function", start: node.startIndex, end: node.endIndex, keyword, name: range(node.childForFieldName("name")) ?? undefined, body: range(node.childForFieldName("body")) ?? undefined };
          })
          .filter(({ keyword }) => !within || (keyword >= within.start && keyword < within.end));
      const ranges = [undefined, { start: 0, end: text.length >> 1 }, { start: text.length >> 1, end: text.length }, ...nodes.map((node) => ({ start: (node.parent?.type === "decorated_definition" ? node.parent : node).startIndex, end: node.endIndex }))];
      for (const within of ranges) {
        const walked = walkedDefinitions(tree, text, within);
        assert.deepEqual(walked, expected(within), `${name} within ${JSON.stringify(within)}`);
        // The objects the tree keeps for the nodes, not others made for the same nodes.
        walked!.forEach((definition, i) => assert.equal(definition.node, expected(within)[i].node, name));
      }
    }
    assert.ok(walkedTrees > 200, `trees without errors walked: ${walkedTrees}`);
  });

  test("plain class headers read from the text give the bases the tree gives, and the others are left to the tree", () => {
    let plain = 0;
    let left = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      for (const cls of tree.rootNode.descendantsOfType("class_definition")) {
        const body = cls.childForFieldName("body");
        if (!body) continue;
        const fromText = plainClassBases(text, cls.startIndex, body.startIndex);
        if (fromText === undefined) {
          left++;
          continue;
        }
        plain++;
        const bases = cls.childForFieldName("superclasses")?.namedChildren.filter((c) => c.type !== "keyword_argument" && c.type !== "comment") ?? [];
        assert.deepEqual(fromText, bases.map((base) => dottedParts(base)), `${name}: ${cls.text.split("\n")[0]}`);
      }
    }
    assert.ok(plain > 200 && left > 5, `plain headers: ${plain}, left to the tree: ${left}`);
    const header = (source: string) => plainClassBases(source, 0, source.indexOf(":") + 1);
    assert.deepEqual(header("class A(B, c.D,):"), [["B"], ["c", "D"]]);
    assert.deepEqual(header("class A():"), []);
    assert.deepEqual(header("class A :"), []);
    assert.deepEqual(header("class A(\n  B,\n  C\n) :"), [["B"], ["C"]]);
    for (const source of ["class A(metaclass=M):", "class A(B  # c\n):", "class A(None):", "class A(b.if):", "class A(Bä):", "class A(*b):", "class A(a . b):", "class A(f(x)):", "class A[T](B):", "class A(,):", "class A(B,,C):", "class \\\n A(B):"]) {
      assert.equal(header(source), undefined, source);
    }
    // The header must end before the body does.
    assert.equal(plainClassBases("class A(B): x", 0, 5), undefined);
  });

  test("calls of names found from the text's brackets: `name(...)` and `name.partial(...)`, none missed, none made up", () => {
    const calleeOf = (call: SyntaxNode, names: ReadonlySet<string>) => {
      const callee = call.childForFieldName("function");
      if (callee?.type === "identifier") return names.has(callee.text);
      const object = callee?.type === "attribute" && callee.childForFieldName("attribute")?.text === "partial" ? callee.childForFieldName("object") : null;
      return object?.type === "identifier" && names.has(object.text);
    };
    let found = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const identifiers = tree.rootNode.descendantsOfType("identifier").map((node) => node.text);
      // Every name of the file, and every other one: most names, and names that are not all of them.
      for (const names of [new Set(identifiers), new Set(identifiers.filter((_, i) => i % 2 === 0))]) {
        const expected = tree.rootNode.descendantsOfType("call").filter((call) => calleeOf(call, names));
        const calls = callsOfNames(tree, text, names, "partial");
        assert.deepEqual(ids(calls).sort(), ids(expected).sort(), name);
        found += calls.length;
      }
    }
    assert.ok(found > 1000, `calls found: ${found}`);
    const tricky = MISLEADING.find((text) => text.startsWith("X(1)"))!;
    const calls = callsOfNames(parsePython(tricky), tricky, new Set(["X"]), "partial");
    const arguments_ = calls.map((call) => call.childForFieldName("arguments")!.text);
    assert.deepEqual(arguments_.sort(), ["(1)", "(10)", "(13)", "(15)", "(17)", "(2)", "(3)", "(4)", "(5)", "(9)", "(a for a in b)", "(c for c in d)", "(e for e in f)"]);
  });

  test("subscripts, whole or within a range", () => {
    let found = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const every = tree.rootNode.descendantsOfType("subscript");
      assert.deepEqual(ids(subscripts(tree, text)), ids(every), name);
      found += every.length;
      for (const within of [{ start: 0, end: text.length >> 1 }, { start: text.length >> 2, end: text.length }]) {
        const inside = every.filter((node) => node.startIndex >= within.start && node.endIndex <= within.end);
        assert.deepEqual(ids(subscripts(tree, text, within)), ids(inside), `${name} within ${JSON.stringify(within)}`);
      }
    }
    assert.ok(found > 1000, `subscripts: ${found}`);
  });

  test("same-scope statements: every statement under the container reached through blocks and clauses only, none in a definition", () => {
    const blocksAndClauses = new Set(["block", "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement", "with_statement", "try_statement", "except_clause", "except_group_clause", "finally_clause", "match_statement", "case_clause"]);
    const definitionTypes = new Set(["function_definition", "class_definition", "decorated_definition"]);
    const inScopeOf = (statement: SyntaxNode, container: SyntaxNode) => {
      for (let node = statement; ; node = node.parent!) {
        const parent = node.parent;
        if (!parent || definitionTypes.has(parent.type)) return false;
        if (parent.id === container.id) return true;
        if (!blocksAndClauses.has(parent.type) || (parent.type !== "block" && !blocksAndClauses.has(node.type))) return false;
      }
    };
    let compared = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const named: SyntaxNode[] = [];
      for (const pending = [tree.rootNode]; pending.length > 0; ) {
        const node = pending.pop()!;
        named.push(node);
        pending.push(...[...node.namedChildren].reverse());
      }
      const containers = [tree.rootNode, ...named.filter((node) => node.type === "block" && (node.parent?.type === "function_definition" || node.parent?.type === "class_definition"))];
      for (const container of containers) {
        const expected = named.filter((node) => node.type.endsWith("_statement") && inScopeOf(node, container)).sort((a, b) => a.startIndex - b.startIndex);
        const walked = sameScopeStatements(container);
        assert.deepEqual(ids(walked), ids(expected), `${name}: ${container.type}@${container.startIndex}`);
        walked.forEach((statement, i) => assert.equal(statement, expected[i], `${name}: the tree's own node objects`));
        compared += walked.length;
      }
    }
    assert.ok(compared > 5000, `statements compared: ${compared}`);
  });

  test("binding nodes: every node of a binding type, whole or in a scope's own text", () => {
    let compared = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      if (tree.rootNode.hasError) continue;
      const walked = tree.rootNode.descendantsOfType(BINDING_TYPES);
      const found = (nodes: readonly SyntaxNode[]) => [...new Set(ids(nodes))].sort();
      assert.deepEqual(found(bindingNodes(tree, text)), found(walked), name);
      // The module's own statements: outside the bodies of its functions and classes.
      const bodies = tree.rootNode.descendantsOfType(["function_definition", "class_definition"]).map((d) => d.childForFieldName("body")!).map((b) => ({ start: b.startIndex, end: b.endIndex }));
      const outside = (node: SyntaxNode) => !bodies.some((b) => node.startIndex >= b.start && node.endIndex <= b.end);
      assert.deepEqual(found(bindingNodes(tree, text, { start: 0, end: text.length }, mergedInOrder(bodies))), found(walked.filter(outside)), `${name}: the module's own`);
      compared += walked.length;
    }
    assert.ok(compared > 3000, `binding nodes compared: ${compared}`);
  });

  test("with statements", () => {
    let found = 0;
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const walked = tree.rootNode.descendantsOfType("with_statement");
      found += walked.length;
      assert.deepEqual(ids(withStatements(tree, text)), ids(walked), name);
    }
    assert.ok(found > 10, `the texts hold with statements: ${found}`);
  });

  test("identifiers spelled any of several names, one a prefix of another", () => {
    const names = ["task", "task_state_store", "t", "context", "dag", "datetime", ""];
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const expected = tree.rootNode.descendantsOfType("identifier").filter((id) => names.includes(id.text));
      assert.deepEqual(ids(identifiersSpelledAny(tree, text, names)), ids(expected), name);
    }
  });

  test("identifiers spelled a name, inside a range and outside the ranges skipped", () => {
    for (const { name, text } of all) {
      const tree = parsePython(text);
      const functions = tree.rootNode.descendantsOfType("function_definition");
      const within = { start: Math.floor(text.length / 4), end: text.length };
      const skipped = functions.filter((fn) => fn.startIndex >= within.start).slice(0, 3).map((fn) => ({ start: fn.startIndex, end: fn.endIndex }));
      const disjoint = skipped.filter((range, i) => i === 0 || range.start >= skipped[i - 1].end);
      for (const spelled of ["task_state_store", "context", "self", "datetime"]) {
        const expected = tree.rootNode
          .descendantsOfType("identifier")
          .filter((id) => id.text === spelled && id.startIndex >= within.start && id.endIndex <= within.end && !disjoint.some((r) => id.startIndex >= r.start && id.startIndex < r.end));
        assert.deepEqual(ids(identifiersSpelled(tree, text, spelled, Infinity, within, disjoint)!), ids(expected), `${name}: ${spelled}`);
      }
    }
  });

  test("attribute calls inside a range", () => {
    for (const { name, text } of all) {
      const tree = parsePython(text);
      for (const fn of tree.rootNode.descendantsOfType("function_definition").slice(0, 3)) {
        const within = { start: fn.startIndex, end: fn.endIndex };
        const expected = attributeCalls(tree, text, ["get", "set"]).filter((call) => call.startIndex >= within.start && call.endIndex <= within.end);
        assert.deepEqual(ids(attributeCalls(tree, text, ["get", "set"], within)), ids(expected), name);
      }
    }
  });

  test("attribute calls on given receivers: those of all whose receiver is one of the names, or an attribute ending in one", () => {
    const receivers = new Set(["Variable", "V", "context", "dag"]);
    const onReceiver = (call: SyntaxNode) => {
      const receiver = call.childForFieldName("function")!.childForFieldName("object")!;
      return receivers.has(receiver.type === "attribute" ? receiver.childForFieldName("attribute")!.text : receiver.text);
    };
    let found = 0;
    for (const { name, text } of [...all, { name: "receivers written apart", text: RECEIVERS_APART }]) {
      const tree = parsePython(text);
      const expected = attributeCalls(tree, text, ["get", "set", "delete"]).filter(onReceiver);
      assert.deepEqual(ids(attributeCalls(tree, text, ["get", "set", "delete"], undefined, receivers)), ids(expected), name);
      found += expected.length;
    }
    assert.ok(found > 100, `calls on the receivers: ${found}`);
  });

  test("a name the text shows defined, or followed by neither ( nor ., is never a callee nor an attribute's object", () => {
    let callees = 0;
    for (const { name, text } of [...all, { name: "callees written apart", text: CALLEES_APART }]) {
      const tree = parsePython(text);
      for (const id of tree.rootNode.descendantsOfType("identifier")) {
        const parent = id.parent;
        const isCallee = (parent?.type === "call" && parent.childForFieldName("function")?.id === id.id) || (parent?.type === "attribute" && parent.childForFieldName("object")?.id === id.id);
        if (isCallee) {
          callees++;
          assert.ok(mayBeCalledOrAttributed(text, id.endIndex), `${name}: ${id.text}@${id.startIndex} is a callee or an object`);
          assert.ok(!isDefinedName(text, id.startIndex), `${name}: ${id.text}@${id.startIndex} is no definition's name`);
        }
        if (isDefinedName(text, id.startIndex) && !tree.rootNode.hasError) {
          assert.ok(parent && ["function_definition", "class_definition"].includes(parent.type) && parent.childForFieldName("name")?.id === id.id, `${name}: ${id.text}@${id.startIndex} is the name of its definition`);
        }
      }
    }
    assert.ok(callees > 1000, `callees: ${callees}`);
  });
});

/** Callees apart from their parentheses and dots: across lines, behind comments and continuations. */
const CALLEES_APART = [
  "a = load (1)",
  "b = (load",
  "     (2))",
  "c = (load  # the loader",
  "     .override(task_id='c')())",
  "d = load\\",
  "    (4)",
  "def load(x): return x",
  "async  def loader(): pass",
  "class Loader: pass",
  "undefined = defload(5)",
  "e = classy.load(6)",
  "f = Ünïdef(7)",
].join("\n");

/** Receivers and their methods apart on a line, across lines, behind comments and continuations. */
const RECEIVERS_APART = [
  'a = Variable.get("a")',
  'b = Variable .get("b")',
  'c = (Variable  # the store of settings',
  '     .get("c"))',
  'd = Variable.\\',
  '    get("d")',
  'e = models.Variable.set("e", 1)',
  'f = (models',
  '     .V',
  '     .delete("f"))',
  'g = ÜVariable.get("g")',
  'h = VariableX.get("h")',
  'i = context["k"].get("i")',
  'j = get_var().get("j")',
  'k = "Variable".get("k")',
  'l = (Variable).get("l")',
  '# Variable.get("m")',
  's = "Variable.get(n)"',
  'dag.get("o"); V.set("p", 2)',
].join("\n");

/** Ranges in order, those inside another left out. */
function mergedInOrder(ranges: { start: number; end: number }[]): { start: number; end: number }[] {
  const merged: { start: number; end: number }[] = [];
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && range.start < last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}
