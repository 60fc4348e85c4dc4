/**
 * The one place that loads the native tree-sitter binding and the Python grammar.
 * Both are N-API prebuilds shipped inside their npm packages, so nothing is compiled at install time.
 */
import Parser = require("tree-sitter");
import Python = require("tree-sitter-python");
import { withLineFeeds } from "./lineBreaks";
import type { OffsetRange } from "../types";

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;
export type Edit = Parser.Edit;
export type Point = Parser.Point;

let sharedParser: Parser | undefined;

function parser(): Parser {
  if (!sharedParser) {
    sharedParser = new Parser();
    sharedParser.setLanguage(Python as unknown as Parser.Language);
    readOnceWhatNeverChanges();
  }
  return sharedParser;
}

/** Node properties that never change within a tree, kept on the node object after the first read. */
const STABLE_PROPERTIES = ["startIndex", "endIndex", "id", "parent", "firstChild", "lastChild", "namedChildren"] as const;
const FIELDS = Symbol("fields");

/**
 * node-tree-sitter 0.22 answers every node property with a call into the native binding, and the
 * engine asks the same nodes the same questions many times: in a profile of a lint, a third of the
 * time went to those calls. What never changes for a node is read once:
 * - `type`: the binding makes a class per named node type (per grammar symbol) and means to set the
 *   type's name on it, but the base class's `type` getter shadows that assignment; so the first
 *   answer for a node of such a class is defined on the class. Nodes of the base class (anonymous
 *   tokens, `ERROR`) still ask the binding.
 * - `STABLE_PROPERTIES` and `childForFieldName`, kept on the node object (and a tree's root node on the tree), which the tree keeps for its
 *   lifetime. The engine never reads a tree again once it is edited (PythonDocument re-parses into a
 *   new tree before anything reads it), so nothing kept goes stale. Children arrays are frozen, since
 *   callers share them.
 */
function readOnceWhatNeverChanges(): void {
  // The binding exports its node and tree classes, but its type declarations do not say so.
  const classes = Parser as unknown as { SyntaxNode: new (...args: never[]) => Parser.SyntaxNode; Tree: new (...args: never[]) => Parser.Tree };
  const nodeClassOfBinding = classes.SyntaxNode;
  const base = nodeClassOfBinding.prototype as Parser.SyntaxNode;
  const nativeType = Object.getOwnPropertyDescriptor(base, "type")!.get!;
  Object.defineProperty(base, "type", {
    get(this: Parser.SyntaxNode): string {
      const name: string = nativeType.call(this);
      const nodeClass = this.constructor;
      if (nodeClass !== nodeClassOfBinding) Object.defineProperty(nodeClass.prototype, "type", { value: name });
      return name;
    },
  });
  for (const property of STABLE_PROPERTIES) {
    const native = Object.getOwnPropertyDescriptor(base, property)!.get!;
    const kept = Symbol(property);
    Object.defineProperty(base, property, {
      get(this: Record<symbol, unknown>) {
        if (!(kept in this)) {
          const value = native.call(this);
          this[kept] = Array.isArray(value) ? Object.freeze(value) : value;
        }
        return this[kept];
      },
    });
  }
  const nativeRoot = Object.getOwnPropertyDescriptor(classes.Tree.prototype, "rootNode")!.get!;
  const keptRoot = Symbol("rootNode");
  Object.defineProperty(classes.Tree.prototype, "rootNode", {
    get(this: Record<symbol, Parser.SyntaxNode>) {
      return (this[keptRoot] ??= nativeRoot.call(this));
    },
  });
  const childForFieldName = base.childForFieldName;
  base.childForFieldName = function (this: Parser.SyntaxNode & { [FIELDS]?: Map<string, Parser.SyntaxNode | null> }, fieldName: string) {
    const fields = (this[FIELDS] ??= new Map());
    let child = fields.get(fieldName);
    if (child === undefined) fields.set(fieldName, (child = childForFieldName.call(this, fieldName)));
    return child;
  };
}

/** The tree of `text`, with a lone `\r` ending a line as Python reads it (`lineBreaks.ts`). */
export function parsePython(text: string, oldTree?: Tree): Tree {
  return parser().parse(withLineFeeds(text), oldTree ?? null);
}

const compiledQueries = new Map<string, Parser.Query>();

/** A compiled tree-sitter query; queries run natively, so rules use them to find candidates fast. */
export function query(source: string): Parser.Query {
  let compiled = compiledQueries.get(source);
  if (!compiled) {
    compiled = new Parser.Query(Python as unknown as Parser.Language, source);
    compiledQueries.set(source, compiled);
  }
  return compiled;
}

/** The nodes captured as `@name` by `source` under `node`, in document order. */
export function captures(node: SyntaxNode, source: string, name: string): SyntaxNode[] {
  return query(source)
    .captures(node)
    .filter((c) => c.name === name)
    .map((c) => c.node);
}

/**
 * The calls `object.name(...)` in the tree whose attribute `name` is one of `names` (plain
 * identifiers): what `captures` returns for
 * `(call function: (attribute attribute: (identifier) @name (#match? @name "^(names)$"))) @call`.
 * A query visits every node natively and hands each candidate to JavaScript for its predicate; the
 * names' occurrences in `text` (the tree's whole source) are far fewer.
 * With `within`, only the calls that lie inside it, found from the names' occurrences there.
 */
export function attributeCalls(tree: Tree, text: string, names: readonly string[], within?: OffsetRange): SyntaxNode[] {
  const root = tree.rootNode;
  const found: { call: SyntaxNode; start: number }[] = [];
  const pattern = new RegExp(`\\b(?:${names.join("|")})\\b`, "g");
  pattern.lastIndex = within?.start ?? 0;
  const searchEnd = within?.end ?? text.length;
  for (let match = pattern.exec(text); match && match.index < searchEnd; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    // The smallest node spanning the name and the character after it is the call when the name is
    // its callee's attribute (the arguments follow the name): no `parent`, one descent from the root.
    const call = root.descendantForIndex(start, end + 1);
    if (call.type !== "call") continue;
    const callee = call.childForFieldName("function");
    if (callee?.type !== "attribute") continue;
    const name = callee.childForFieldName("attribute");
    if (name?.type !== "identifier" || name.startIndex !== start || name.endIndex !== end) continue;
    if (within && (call.startIndex < within.start || call.endIndex > within.end)) continue;
    found.push({ call, start: call.startIndex });
  }
  return inQueryOrder(found);
}

/**
 * The function and class definitions of the tree, in document order: what
 * `root.descendantsOfType(["function_definition", "class_definition"])` returns, found from the
 * keywords `def` and `class` in `text` (the tree's whole source) instead of a walk of every node.
 */
export function definitions(tree: Tree, text: string): SyntaxNode[] {
  const root = tree.rootNode;
  const found: SyntaxNode[] = [];
  for (const match of text.matchAll(/\b(?:def|class)\b/g)) {
    const keyword = root.descendantForIndex(match.index, match.index + match[0].length);
    if (keyword.type !== match[0] || keyword.startIndex !== match.index) continue;
    const definition = keyword.parent;
    if (definition && (definition.type === "function_definition" || definition.type === "class_definition")) found.push(definition);
  }
  return found;
}

/**
 * The calls passing `keyword=` (a plain identifier), once per such argument: what `captures` returns for
 * `(call arguments: (argument_list (keyword_argument name: (identifier) @k (#eq? @k "keyword")))) @call`,
 * found from the keyword's occurrences in `text` (the tree's whole source).
 */
export function keywordCalls(tree: Tree, text: string, keyword: string): SyntaxNode[] {
  return callsAround(tree, text, [keyword], (name) => {
    const argument = name.parent;
    if (argument?.type !== "keyword_argument" || argument.childForFieldName("name")?.id !== name.id) return undefined;
    const list = argument.parent;
    if (list?.type !== "argument_list") return undefined;
    const call = list.parent;
    return call?.type === "call" && call.childForFieldName("arguments")?.id === list.id ? call : undefined;
  });
}

/**
 * The calls whose callee is one of `names` or ends in one (`DAG(...)`, `models.DAG(...)`), found
 * from the names' occurrences in `text` (the tree's whole source).
 */
export function callsNamed(tree: Tree, text: string, names: readonly string[]): SyntaxNode[] {
  return callsAround(tree, text, names, (name) => {
    const parent = name.parent;
    const callee = parent?.type === "attribute" && parent.childForFieldName("attribute")?.id === name.id ? parent : name;
    const call = callee.parent;
    return call?.type === "call" && call.childForFieldName("function")?.id === callee.id ? call : undefined;
  });
}

/**
 * The calls `callOf` finds around each identifier in the tree spelled as one of `names`, in the order
 * a query's captures come.
 */
function callsAround(tree: Tree, text: string, names: readonly string[], callOf: (name: SyntaxNode) => SyntaxNode | undefined): SyntaxNode[] {
  const root = tree.rootNode;
  const found: { call: SyntaxNode; start: number }[] = [];
  for (const match of text.matchAll(new RegExp(`\\b(?:${names.join("|")})\\b`, "g"))) {
    const start = match.index!;
    const end = start + match[0].length;
    const name = root.descendantForIndex(start, end);
    if (name.type !== "identifier" || name.startIndex !== start || name.endIndex !== end) continue;
    const call = callOf(name);
    if (call) found.push({ call, start: call.startIndex });
  }
  return inQueryOrder(found);
}

/**
 * Calls found from their names, in text order, put in the order a query's captures come: a stable
 * sort by start keeps calls that start together in the order of their names (`a.get(x).set(y)`: the
 * inner call first), and several matches of one call together.
 */
function inQueryOrder(found: { call: SyntaxNode; start: number }[]): SyntaxNode[] {
  return found.sort((a, b) => a.start - b.start).map((f) => f.call);
}

/**
 * The identifiers spelled `name`, in document order: what `root.descendantsOfType("identifier")`
 * filtered by text gives, without handing every identifier of the file to JavaScript. An occurrence
 * next to an ASCII letter, digit or `_` is part of a longer word and is skipped; every other one is
 * checked on the tree, so nothing is assumed about other characters that can border an identifier.
 * With `limit`, undefined once more than that many occurrences would have to be checked. With
 * `within`, only the occurrences inside it, leaving out those in `skipped` (in order, not overlapping);
 * with `wanted`, only the occurrences it accepts, given the offset after the name (a cheap text test
 * before the tree is asked).
 */
export function identifiersSpelled(
  tree: Tree,
  text: string,
  name: string,
  limit = Infinity,
  within?: OffsetRange,
  skipped: readonly OffsetRange[] = [],
  wanted: (end: number) => boolean = () => true,
): SyntaxNode[] | undefined {
  const root = tree.rootNode;
  const found: SyntaxNode[] = [];
  if (name.length === 0) return found;
  let checked = 0;
  let skip = 0;
  const searchEnd = within?.end ?? text.length;
  // Two occurrences that overlap lie inside one longer word, so neither is the identifier: the search
  // goes on after each occurrence (from the next character, a long name in a long run of its
  // letters would be compared again at every position).
  for (let start = text.indexOf(name, within?.start ?? 0); start >= 0 && start + name.length <= searchEnd; start = text.indexOf(name, start + name.length)) {
    while (skip < skipped.length && skipped[skip].end <= start) skip++;
    if (skip < skipped.length && skipped[skip].start <= start) {
      // Inside a skipped range: go on from its end.
      start = skipped[skip].end - name.length;
      continue;
    }
    const end = start + name.length;
    if (isAsciiWordCharacter(text.charCodeAt(start - 1)) || isAsciiWordCharacter(text.charCodeAt(end)) || !wanted(end)) continue;
    if (++checked > limit) return undefined;
    const node = root.descendantForIndex(start, end);
    if (node.type === "identifier" && node.startIndex === start && node.endIndex === end) found.push(node);
  }
  return found;
}

function isAsciiWordCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/**
 * The binary operations (`a >> b`) whose operator is one of `operators`: what `captures` returns for
 * `[(binary_operator operator: ">>") ...] @expression`, found from the operators' occurrences in
 * `text` (the tree's whole source), every occurrence checked (overlapping ones too).
 */
export function binaryOperators(tree: Tree, text: string, operators: readonly string[]): SyntaxNode[] {
  const root = tree.rootNode;
  const found: { node: SyntaxNode; start: number; operator: number }[] = [];
  for (const operator of operators) {
    for (let start = text.indexOf(operator); start >= 0; start = text.indexOf(operator, start + 1)) {
      const end = start + operator.length;
      const token = root.descendantForIndex(start, end);
      if (token.type !== operator || token.startIndex !== start || token.endIndex !== end) continue;
      const expression = token.parent;
      if (expression?.type !== "binary_operator" || expression.childForFieldName("operator")?.id !== token.id) continue;
      found.push({ node: expression, start: expression.startIndex, operator: start });
    }
  }
  // By start, and operations that start together in the order of their operators, as a query's captures come.
  return found.sort((a, b) => a.start - b.start || a.operator - b.operator).map((f) => f.node);
}
