/**
 * The one place that loads the native tree-sitter binding and the Python grammar.
 * Both are N-API prebuilds shipped inside their npm packages, so nothing is compiled at install time.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import Parser = require("tree-sitter");
import Python = require("tree-sitter-python");
import { withLineFeeds } from "./lineBreaks";
import type { OffsetRange } from "../types";
import { plainDefinitionHeader } from "./definitionHeaders";

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;
export type Edit = Parser.Edit;
export type Point = Parser.Point;

let sharedParser: Parser | undefined;

function parser(): Parser {
  if (!sharedParser) {
    sharedParser = new Parser();
    sharedParser.setLanguage(Python as unknown as Parser.Language);
    const binding = nativeBinding();
    if (bindingIsTheOneRead(binding)) {
      keepNodesInJavaScript(binding);
      readOnceWhatNeverChanges(binding);
    }
    roomForTwoNodes(sharedParser);
  }
  return sharedParser;
}

/**
 * node-tree-sitter hands nodes to the binding through one buffer per thread, which starts with room
 * for one node and grows only when the binding hands back a list. `childWithDescendant` (what
 * `parent` climbs with) writes two nodes into it: before any list of two or more, the second is
 * dropped, the binding reads past the buffer's end and the process dies (a segmentation fault on
 * `keyword.parent` in a fresh thread). A two-node list, once, makes the room.
 */
function roomForTwoNodes(parser: Parser): void {
  const tree = parser.parse("a\nb\n");
  void tree.rootNode.namedChildren;
}

/**
 * The node-tree-sitter release whose internals `keepNodesInJavaScript` and `readOnceWhatNeverChanges`
 * were written against (the transfer buffer's layout, the node methods, the node classes). Another
 * release is used as it comes: correct, only slower.
 */
export const NODE_TREE_SITTER_READ = "0.22.4";

function bindingIsTheOneRead(binding: NativeBinding): boolean {
  return (
    treeSitterVersion() === NODE_TREE_SITTER_READ &&
    typeof binding.NodeMethods === "object" &&
    binding.nodeTransferArray instanceof Uint32Array &&
    typeof binding.getNodeFieldNamesById === "function" &&
    typeof binding.getNodeTypeNamesById === "function"
  );
}

/** The installed node-tree-sitter's version, from the package.json beside the module (which the extension ships). */
export function treeSitterVersion(): string | undefined {
  try {
    const packageFolder = path.dirname(require.resolve("tree-sitter"));
    return (createRequire(path.join(packageFolder, "index.js"))("./package.json") as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Whether this process's nodes are kept in JavaScript (the installed node-tree-sitter is the release read). */
export function nodesKeptInJavaScript(): boolean {
  parser();
  return bindingIsTheOneRead(nativeBinding());
}

/** Node properties that never change within a tree, kept on the node object after the first read. */
const STABLE_PROPERTIES = ["endIndex", "parent", "firstChild", "lastChild", "namedChildren"] as const;
const FIELDS = Symbol("fields");
/** Node types whose named children, when there are as many as the fields listed and none is a comment, are these fields in order (tree-sitter-python's grammar). */
const FIELDS_IN_ORDER: Readonly<Record<string, readonly string[]>> = {
  call: ["function", "arguments"],
  attribute: ["object", "attribute"],
  keyword_argument: ["name", "value"],
  pair: ["key", "value"],
  subscript: ["value", "subscript"],
};
/** The nodes whose named children are statements, or the parts of a compound statement (clauses, blocks). */
const STATEMENT_CONTAINERS: ReadonlySet<string> = new Set([
  "module", "block", "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement", "try_statement",
  "except_clause", "except_group_clause", "finally_clause", "with_statement", "match_statement", "case_clause",
]);
/** Definitions, whose last child holds their statements. */
const ENDS_IN_ITS_BODY: ReadonlySet<string> = new Set(["decorated_definition", "function_definition", "class_definition"]);
/** How many children down from the statement around it a parent is looked for before tree-sitter is asked (an expression can nest as deep as the file). */
const MAX_PARENT_STEPS = 64;
const KEPT_PARENT = Symbol("parent");
/** Where a node keeps the list of its named children once asked for it. */
const KEPT_NAMED_CHILDREN = Symbol("namedChildren");
/** How many times tree-sitter was asked for a container's child at an offset (`statementAround`). */
const NATIVE_LOOKUPS = Symbol("nativeLookups");
/**
 * Lookups of a child at an offset that tree-sitter answers before the container's children are
 * listed: listing them cost as much as 500 to 1,200 such lookups (each scans the children up to the
 * one found), so a container asked far more often than that pays for its list at once.
 */
const LOOKUPS_BEFORE_LISTING = 256;

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
function readOnceWhatNeverChanges(binding: NativeBinding): void {
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
  // A node object holds the words the binding transferred it with (WORDS_PER_NODE): its id, then the
  // offset in bytes of its start (two per UTF-16 unit), its start row and column (in bytes). The
  // binding's `id`, `startIndex` and `startPosition` compute their answers from those same words.
  Object.defineProperties(base, {
    id: {
      get(this: ArrayLike<number>): number {
        return nodeKey(this, 0);
      },
    },
    startIndex: {
      get(this: ArrayLike<number>): number {
        return this[2] >>> 1;
      },
    },
    startPosition: {
      get(this: ArrayLike<number>): Parser.Point {
        return { row: this[3], column: this[4] >>> 1 };
      },
    },
  });
  // tree-sitter finds a node's parent by descending from the root, through every earlier child of
  // each node on the way (every task before it in a DAG's body): a node reached from its parent
  // (its children, its first or last child, a field) is told its parent instead.
  // Not in a tree with errors, where tree-sitter's own parent of a node can be another node than
  // the one that lists it among its children.
  const adopt = (child: unknown, parent: unknown) => {
    if (child && !(KEPT_PARENT in (child as object)) && !hasErrors((child as Parser.SyntaxNode).tree)) (child as Record<symbol, unknown>)[KEPT_PARENT] = parent;
  };
  const hasErrors = treeHasErrors;
  const nativeParent = Object.getOwnPropertyDescriptor(base, "parent")!.get!;
  // An identifier's end is where its word ends in the source, read there rather than asked of the
  // binding (the text of every name a rule reads needs it): when the word is ASCII, since beyond
  // that the source's characters would have to be classified as Python does, and when the tree has
  // no errors, where an identifier can be missing (an empty node before whatever the text holds).
  const identifierClasses = new Set<unknown>();
  const nodeClasses = (Python as unknown as { nodeSubclasses?: unknown[] }).nodeSubclasses ?? [];
  binding.getNodeTypeNamesById(Python).forEach((typeName, id) => typeName === "identifier" && nodeClasses[id] !== nodeClassOfBinding && identifierClasses.add(nodeClasses[id]));
  const nativeEnd = Object.getOwnPropertyDescriptor(base, "endIndex")!.get!;
  const endIndex = function (this: Parser.SyntaxNode): number {
    if (identifierClasses.has(this.constructor)) {
      const input = (this.tree as Parser.Tree & { input?: unknown }).input;
      if (typeof input === "string" && !hasErrors(this.tree)) {
        const start = this.startIndex;
        let end = start;
        while (isAsciiWordCharacter(input.charCodeAt(end))) end++;
        if (end > start && !(input.charCodeAt(end) >= 128)) return end;
      }
    }
    return nativeEnd.call(this);
  };
  // node-tree-sitter's own getter makes a map and an array for every list it hands out, to register
  // nodes that `keepNodesInJavaScript` has already registered: the node is handed to the binding as
  // its getter does (its words in the transfer buffer), and the list taken as the binding answers.
  const namedChildren = function (this: ArrayLike<number> & { tree: unknown }): unknown {
    const words = binding.nodeTransferArray;
    for (let i = 0; i < WORDS_PER_NODE; i++) words[i] = this[i];
    return binding.NodeMethods.namedChildren(this.tree);
  };
  const readers: Partial<Record<(typeof STABLE_PROPERTIES)[number], (this: never) => unknown>> = {
    parent(this: Parser.SyntaxNode) {
      return parentOf(this);
    },
    endIndex,
    namedChildren,
  };
  for (const property of STABLE_PROPERTIES) {
    const native = readers[property] ?? Object.getOwnPropertyDescriptor(base, property)!.get!;
    const kept = property === "parent" ? KEPT_PARENT : property === "namedChildren" ? KEPT_NAMED_CHILDREN : Symbol(property);
    const adopts = property === "namedChildren" || property === "firstChild" || property === "lastChild";
    Object.defineProperty(base, property, {
      get(this: Record<symbol, unknown>) {
        if (!(kept in this)) {
          const value = native.call(this);
          if (adopts) {
            if (Array.isArray(value)) for (const child of value) adopt(child, this);
            else adopt(value, this);
          }
          this[kept] = Array.isArray(value) ? Object.freeze(value) : value;
        }
        return this[kept];
      },
    });
  }
  // A node found by offset is found by tree-sitter the same way, from the root, through every
  // earlier child on the way. The statements of a module or a block (and the parts of compound
  // statements) are searched here instead, by offset among their kept children, down to the
  // statement that holds the range; tree-sitter goes on from there.
  const nativeDescendant = base.descendantForIndex;
  const nativeNamedDescendant = base.namedDescendantForIndex;
  base.descendantForIndex = function (this: Parser.SyntaxNode, start: number, end: number = start) {
    return nativeDescendant.call(end > start ? statementAround(this, start, end) : this, start, end);
  };
  base.namedDescendantForIndex = function (this: Parser.SyntaxNode, start: number, end: number = start) {
    return nativeNamedDescendant.call(end > start ? statementAround(this, start, end) : this, start, end);
  };
  const childWithDescendant = (base as unknown as { childWithDescendant(node: Parser.SyntaxNode): Parser.SyntaxNode | null }).childWithDescendant;
  /** A node's parent, found down from the statement around it, one child at a time. */
  const parentOf = (node: Parser.SyntaxNode): Parser.SyntaxNode | null => {
    const start = node.startIndex;
    const end = node.endIndex;
    const root = node.tree.rootNode;
    // In a tree with errors tree-sitter's own parent can disagree with the child it reports holding a node.
    if (end <= start || node.id === root.id || hasErrors(node.tree)) return nativeParent.call(node);
    let current = statementAround(root, start, end, node.id);
    for (let depth = 0; depth < MAX_PARENT_STEPS; depth++) {
      const child = childWithDescendant.call(current, node);
      if (!child) break;
      if (child.id === node.id) return current;
      adopt(child, current);
      current = child;
    }
    return nativeParent.call(node);
  };
  const nativeRoot = Object.getOwnPropertyDescriptor(classes.Tree.prototype, "rootNode")!.get!;
  const keptRoot = Symbol("rootNode");
  Object.defineProperty(classes.Tree.prototype, "rootNode", {
    get(this: Record<symbol, Parser.SyntaxNode>) {
      return (this[keptRoot] ??= nativeRoot.call(this));
    },
  });
  // A field asked for by its id: the binding turns a name into an id by comparing it with every field's name.
  const fieldIds = fieldIdsOf(binding);
  // Nodes whose named children are their fields, one each and in this order, when no comment sits
  // among them and the tree has no errors: the rules ask for both fields of most of them (a call's
  // callee and arguments, a keyword argument's name and value), and one list costs one call.
  const fieldIdsInOrder = new Map(Object.entries(FIELDS_IN_ORDER).map(([type, names]) => [type, names.map((name) => fieldIds.get(name)!)]));
  const childForFieldName = base.childForFieldName;
  const childForFieldId = (base as unknown as { childForFieldId(id: number): Parser.SyntaxNode | null }).childForFieldId;
  base.childForFieldName = function (this: Parser.SyntaxNode & { [FIELDS]?: (Parser.SyntaxNode | null)[] }, fieldName: string) {
    const id = fieldIds.get(fieldName);
    if (id === undefined) return childForFieldName.call(this, fieldName);
    // By field id: an array is lighter than a map, and a node of a lint gets one for the fields asked of it.
    const fields = (this[FIELDS] ??= []);
    let child = fields[id];
    if (child === undefined) {
      const inOrder = fieldIdsInOrder.get(this.type);
      if (inOrder && !hasErrors(this.tree)) {
        const children = this.namedChildren;
        if (children.length === inOrder.length && children.every((c) => c.type !== "comment")) {
          for (let i = 0; i < inOrder.length; i++) fields[inOrder[i]] = children[i];
          child = fields[id];
        }
      }
    }
    if (child === undefined) {
      fields[id] = child = childForFieldId.call(this, id);
      adopt(child, this);
    }
    return child;
  };
}

const KEPT_HAS_ERROR = Symbol("hasError");

/** Whether the tree holds a syntax error (or a missing token), asked of the binding once per tree. */
export function treeHasErrors(tree: Tree): boolean {
  return ((tree as Tree & { [KEPT_HAS_ERROR]?: boolean })[KEPT_HAS_ERROR] ??= tree.rootNode.hasError);
}

/** The node methods of the native binding, and the buffer through which it hands nodes to JavaScript. */
interface NativeBinding {
  NodeMethods: Record<string, (...args: unknown[]) => unknown>;
  nodeTransferArray: Uint32Array;
  getNodeFieldNamesById(language: unknown): (string | undefined)[];
  getNodeTypeNamesById(language: unknown): (string | undefined)[];
}

/** The binding node-tree-sitter loaded (node-gyp-build finds it in the package's folder; loading it again gives the same module). */
function nativeBinding(): NativeBinding {
  const packageFolder = path.dirname(require.resolve("tree-sitter"));
  return createRequire(path.join(packageFolder, "index.js"))("node-gyp-build")(packageFolder) as NativeBinding;
}

/** How many 32-bit words the binding transfers per node: its id (two words) and its four context words. */
const WORDS_PER_NODE = 6;
/** The symbol the binding gives an `ERROR` node, whose object is of node-tree-sitter's base class. */
const ERROR_SYMBOL = 0xffff;
const KEPT_NODES = Symbol("nodes");
type NodeKeeper = { [KEPT_NODES]?: KeptNodes };
type NodeClass = new (tree: unknown) => Parser.SyntaxNode;

/** A node's id (a pointer, below 2^53) as one number, from its two transferred words. */
function nodeKey(words: ArrayLike<number>, offset: number): number {
  return words[offset] + words[offset + 1] * 4294967296;
}

/**
 * The node objects of one tree by id. A pointer does not fit a small integer, and a map keyed by
 * larger numbers boxes each key it is asked: the nodes are found by their id's low word (as a
 * signed 32-bit integer), a node whose low word another node already has by its whole id.
 */
class KeptNodes {
  private readonly byLowWord = new Map<number, Parser.SyntaxNode>();
  private readonly sharingLowWord = new Map<number, Parser.SyntaxNode>();

  get(words: ArrayLike<number>, offset: number): Parser.SyntaxNode | undefined {
    const node = this.byLowWord.get(words[offset] | 0);
    if (node === undefined || (node as unknown as ArrayLike<number>)[1] === words[offset + 1]) return node;
    return this.sharingLowWord.get(nodeKey(words, offset));
  }

  add(node: Parser.SyntaxNode): void {
    const words = node as unknown as ArrayLike<number>;
    const low = words[0] | 0;
    const first = this.byLowWord.get(low);
    if (first === undefined) this.byLowWord.set(low, node);
    else if ((first as unknown as ArrayLike<number>)[1] !== words[1] && !this.sharingLowWord.has(nodeKey(words, 0))) this.sharingLowWord.set(nodeKey(words, 0), node);
  }
}

/**
 * node-tree-sitter gives each node the same JavaScript object every time it is asked for, so that
 * what is kept on it (see `readOnceWhatNeverChanges`) is shared: it registers every new node object
 * in a native per-tree cache under a weak reference with a finalizer, and reads each node's id as
 * a BigInt. That costs more than parsing the node did (a profile of a lint of 20,000 classes: a few
 * microseconds per node, plus the collector's work on the finalizers). The objects are made and
 * kept here instead, in a map on their tree (which lives as long as any of its nodes): every native
 * method that returns nodes is wrapped to answer each node with its object, made when it is new as
 * node-tree-sitter makes it (an instance of its grammar symbol's class holding the node's six
 * transferred words), so node-tree-sitter only passes it on. The nodes the binding still makes itself
 * (the root, query captures) are registered in the same map. The tree and its nodes are collected together.
 */
function keepNodesInJavaScript(binding: NativeBinding): void {
  const classes = Parser as unknown as { Tree: { prototype: Record<string, unknown> }; SyntaxNode: NodeClass };
  const keptNodes = (tree: NodeKeeper) => (tree[KEPT_NODES] ??= new KeptNodes());
  classes.Tree.prototype._cacheNode = function (this: NodeKeeper, node: Parser.SyntaxNode) {
    if (!keptNodes(this).get(node as unknown as ArrayLike<number>, 0)) keptNodes(this).add(node);
  };
  classes.Tree.prototype._cacheNodes = function (this: NodeKeeper, nodes: Parser.SyntaxNode[]) {
    const kept = keptNodes(this);
    for (const node of nodes) if (!kept.get(node as unknown as ArrayLike<number>, 0)) kept.add(node);
  };
  // The binding answers a node it has no object for with its grammar symbol, and puts the node's
  // words in the transfer buffer (a list's nodes one after the other).
  const objectFor = (tree: NodeKeeper & { language: { nodeSubclasses: NodeClass[] } }, symbol: number, words: Uint32Array, offset: number) => {
    const kept = keptNodes(tree);
    let node = kept.get(words, offset);
    if (!node) {
      const NodeClass = symbol === ERROR_SYMBOL ? classes.SyntaxNode : tree.language.nodeSubclasses[symbol];
      node = new NodeClass(tree);
      const fields = node as unknown as Record<number, number>;
      for (let i = 0; i < WORDS_PER_NODE; i++) fields[i] = words[offset + i];
      kept.add(node);
    }
    return node;
  };
  type Tree = Parameters<typeof objectFor>[0];
  const methods = binding.NodeMethods;
  for (const name of SINGLE_NODE_METHODS) {
    const native = methods[name];
    if (!native) continue;
    methods[name] = (tree: unknown, a: unknown, b: unknown) => {
      const value = native(tree, a, b);
      return typeof value === "number" ? objectFor(tree as Tree, value, binding.nodeTransferArray, 0) : value;
    };
  }
  for (const name of NODE_LIST_METHODS) {
    const native = methods[name];
    if (!native) continue;
    methods[name] = (tree: unknown, a: unknown, b: unknown, c: unknown) => {
      const list = native(tree, a, b, c);
      if (!Array.isArray(list)) return list;
      const words = binding.nodeTransferArray;
      let offset = 0;
      for (let i = 0; i < list.length; i++) {
        if (typeof list[i] !== "number") continue;
        list[i] = objectFor(tree as Tree, list[i], words, offset);
        offset += WORDS_PER_NODE;
      }
      return list;
    };
  }
}

/** The binding's node methods that return one node (or null). */
const SINGLE_NODE_METHODS = [
  "parent", "child", "namedChild", "firstChild", "firstNamedChild", "lastChild", "lastNamedChild",
  "nextSibling", "nextNamedSibling", "previousSibling", "previousNamedSibling",
  "childForFieldName", "childForFieldId", "childNodeForFieldId", "childWithDescendant",
  "firstChildForIndex", "firstNamedChildForIndex", "descendantForIndex", "namedDescendantForIndex",
  "descendantForPosition", "namedDescendantForPosition", "closest",
];
/** The binding's node methods that return a list of nodes. */
const NODE_LIST_METHODS = ["children", "namedChildren", "childrenForFieldName", "childrenForFieldId", "childNodesForFieldId", "descendantsOfType"];

/** The object kept for `node` when the binding made another for it (query captures are not looked up). */
function keptObject(node: SyntaxNode): SyntaxNode {
  return (node.tree as unknown as NodeKeeper)[KEPT_NODES]?.get(node as unknown as ArrayLike<number>, 0) ?? node;
}

/**
 * The deepest statement (or part of a compound statement) under `node` whose range holds
 * `start`–`end` (not empty), stopping above `stopAt`: a node tree-sitter's own search for that
 * range passes through, since it takes the first child holding the range and children do not overlap.
 */
function statementAround(node: Parser.SyntaxNode, start: number, end: number, stopAt?: number): Parser.SyntaxNode {
  let current = node;
  for (;;) {
    const type = current.type;
    if (ENDS_IN_ITS_BODY.has(type)) {
      // A definition's body (a decorated one's definition) is its last child: the one worth going into.
      const last = current.lastChild;
      if (!last || !(ENDS_IN_ITS_BODY.has(last.type) || STATEMENT_CONTAINERS.has(last.type))) break;
      if (last.startIndex > start || last.id === stopAt || end > last.endIndex || last.startIndex === last.endIndex) break;
      current = last;
      continue;
    }
    if (!STATEMENT_CONTAINERS.has(type)) break;
    // Children do not overlap, so only one can hold the range: the last that starts at or before
    // `start`, which is the first that runs past it. Among children already listed it is found by
    // bisection; otherwise tree-sitter finds it without handing over the list (a block can hold
    // thousands of statements, and a tree just re-parsed after a keystroke has no objects for them).
    // But tree-sitter looks through the children one by one: once a container has been searched
    // LOOKUPS_BEFORE_LISTING times its children are listed, and bisected from then on (a lint of
    // the examples repeated 15 times asked the module's 1,605 statements 17,000 times, 2 µs each).
    const kept = current as unknown as Record<symbol, unknown>;
    const listed = kept[KEPT_NAMED_CHILDREN] as readonly Parser.SyntaxNode[] | undefined;
    let child: Parser.SyntaxNode | null | undefined;
    if (listed) child = lastStartingAtOrBefore(listed, start);
    else {
      const lookups = ((kept[NATIVE_LOOKUPS] as number | undefined) ?? 0) + 1;
      kept[NATIVE_LOOKUPS] = lookups;
      child = lookups <= LOOKUPS_BEFORE_LISTING ? current.firstNamedChildForIndex(start) : lastStartingAtOrBefore(current.namedChildren, start);
    }
    if (!child || child.id === stopAt) break;
    const childEnd = child.endIndex;
    if (child.startIndex > start || end > childEnd || child.startIndex === childEnd) break;
    current = child;
  }
  return current;
}

/** The last of `children` (in document order) that starts at or before `offset`. */
function lastStartingAtOrBefore(children: readonly Parser.SyntaxNode[], offset: number): Parser.SyntaxNode | undefined {
  let low = 0;
  let high = children.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (children[middle].startIndex <= offset) low = middle + 1;
    else high = middle;
  }
  return children[low - 1];
}

/**
 * The statement of the tree around `start`–`end` (not empty): the deepest statement, block or
 * clause holding it, found by offset among the kept children of modules and blocks.
 */
export function statementAt(tree: Tree, start: number, end: number): SyntaxNode {
  return statementAround(tree.rootNode, start, end);
}

/**
 * `statementAt` of each range, ranges in document order: a range inside the statement found for the
 * range before it, where no statement nests (an expression statement, a `with` header, a
 * definition's decorators and header), lies in that statement too, and is not looked up again: the
 * keyword arguments of a call, of a `with DAG(...)` or of a task's decorator are many `=` in one.
 */
export function statementsAt(tree: Tree, ranges: readonly OffsetRange[]): SyntaxNode[] {
  const statements: SyntaxNode[] = [];
  let last: SyntaxNode | undefined;
  for (const { start, end } of ranges) {
    if (!last || start < last.startIndex || end > last.endIndex || !beforeAnyStatementOf(last, start)) last = statementAt(tree, start, end);
    statements.push(last);
  }
  return statements;
}

/**
 * Whether no statement of `found` (a node `statementAround` stopped at) starts at or before
 * `offset`: `statementAround` then stops at it again for any range in it from `offset` on.
 */
function beforeAnyStatementOf(found: SyntaxNode, offset: number): boolean {
  if (STATEMENT_CONTAINERS.has(found.type)) return false;
  if (!ENDS_IN_ITS_BODY.has(found.type)) return true;
  const body = found.lastChild;
  return body !== null && offset < body.startIndex;
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
    .map((c) => keptObject(c.node));
}

/**
 * The calls `object.name(...)` in the tree whose attribute `name` is one of `names` (plain
 * identifiers): what `captures` returns for
 * `(call function: (attribute attribute: (identifier) @name (#match? @name "^(names)$"))) @call`.
 * A query visits every node natively and hands each candidate to JavaScript for its predicate; the
 * names' occurrences in `text` (the tree's whole source) are far fewer.
 * With `within`, only the calls that lie inside it, found from the names' occurrences there.
 * With `receivers`, only calls whose receiver is one of these names or an attribute ending in one
 * (`Variable.get`, `models.Variable.get`): a name the text shows called on anything else
 * (`dict.get(...)`, `context.get(...)`) is passed over without asking the tree.
 */
export function attributeCalls(tree: Tree, text: string, names: readonly string[], within?: OffsetRange, receivers?: ReadonlySet<string>): SyntaxNode[] {
  const root = tree.rootNode;
  const found: { call: SyntaxNode; start: number }[] = [];
  const pattern = new RegExp(`\\b(?:${names.join("|")})\\b`, "g");
  pattern.lastIndex = within?.start ?? 0;
  const searchEnd = within?.end ?? text.length;
  for (let match = pattern.exec(text); match && match.index < searchEnd; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (receivers && !mayFollowReceiver(text, start, receivers)) continue;
    // The smallest node spanning the name and the character after it is the call when the name is
    // its callee's attribute (the arguments follow the name): no `parent`, one descent from the root.
    const call = root.descendantForIndex(start, end + 1);
    if (call.type !== "call") continue;
    const callee = call.childForFieldName("function");
    if (callee?.type !== "attribute") continue;
    const name = callee.childForFieldName("attribute");
    if (name?.type !== "identifier" || name.startIndex !== start || name.endIndex !== end) continue;
    if (within && (call.startIndex < within.start || call.endIndex > within.end)) continue;
    if (receivers && !receivers.has(receiverName(callee.childForFieldName("object")))) continue;
    found.push({ call, start: call.startIndex });
  }
  return inQueryOrder(found);
}

/** A receiver's name as `attributeCalls` matches it: an identifier's, an attribute's last; any other expression's text. */
function receiverName(receiver: SyntaxNode | null): string {
  if (!receiver) return "";
  return receiver.type === "attribute" ? receiver.childForFieldName("attribute")?.text ?? "" : receiver.text;
}

/**
 * Whether the word ending at `end` can be a callee or an attribute's object, as far as its line
 * tells: a `(` or a `.` follows it, blanks between. A line break, a continuation or a comment after
 * it leaves it to the tree.
 */
export function mayBeCalledOrAttributed(text: string, end: number): boolean {
  let at = end;
  while (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9) at++;
  const next = text.charCodeAt(at);
  return next === 40 /* ( */ || next === 46 /* . */ || next === 10 || next === 13 || next === 92 /* \ */ || next === 35 /* # */ || at >= text.length;
}

/** Whether the word starting at `start` is the name a `def` or `class` on its line defines (`def load(`). */
export function isDefinedName(text: string, start: number): boolean {
  const before = blanksBefore(text, start);
  if (before < 0 || before === start) return false;
  const keywordStart = wordBefore(text, before);
  if (keywordStart > 0 && text.charCodeAt(keywordStart - 1) >= 128) return false;
  const keyword = text.slice(keywordStart, before);
  return keyword === "def" || keyword === "class";
}

/**
 * Whether the attribute name at `start` can follow one of `receivers` and a dot, as far as its line
 * tells: the dot and the name before it on the same line, blanks between. A line break (or a
 * continuation, or a comment) between them, or a name that is not ASCII, leaves it to the tree.
 */
function mayFollowReceiver(text: string, start: number, receivers: ReadonlySet<string>): boolean {
  const dot = blanksBefore(text, start);
  if (dot < 0 || text.charCodeAt(dot - 1) === 92 /* \ */) return true;
  if (text.charCodeAt(dot - 1) !== 46 /* . */) return false;
  const objectEnd = blanksBefore(text, dot - 1);
  if (objectEnd < 0 || text.charCodeAt(objectEnd - 1) === 92 || text.charCodeAt(objectEnd - 1) >= 128) return true;
  const objectStart = wordBefore(text, objectEnd);
  if (objectStart > 0 && text.charCodeAt(objectStart - 1) >= 128) return true;
  return receivers.has(text.slice(objectStart, objectEnd));
}

/**
 * The function and class definitions of the tree, in document order: what
 * `root.descendantsOfType(["function_definition", "class_definition"])` returns, found from the
 * keywords `def` and `class` in `text` (the tree's whole source) instead of a walk of every node.
 * With `within`, only those whose keyword lies inside it.
 */
export function definitions(tree: Tree, text: string, within?: OffsetRange): SyntaxNode[] {
  return statementsStartedBy(tree, text, /\b(?:def|class)\b/g, DEFINITION_TYPES, within);
}

/** A function or class definition `walkedDefinitions` found, with the offsets of its parts. */
export interface WalkedDefinition {
  node: SyntaxNode;
  kind: "function" | "class";
  /** The node's range, read as the walk passes it (the node's own getters each call into the binding). */
  start: number;
  end: number;
  /** Where its `def` (after `async`) or `class` keyword starts. */
  keyword: number;
  /** Undefined when it has none (a tree with errors only). */
  name: OffsetRange | undefined;
  body: OffsetRange | undefined;
}

/**
 * What `definitions` finds in a tree without syntax errors, walked with a tree cursor through the
 * statements that can hold a definition (a module, blocks, compound statements and their clauses),
 * with each definition's keyword, name and body read from the cursor as it passes them (types and
 * fields by id, which the cursor answers without making a string). Finding each definition from its
 * keyword down from the root, then asking its node for its parts, took 230–300 ms for a file of
 * 20,000 classes, and the walk 95–140 ms. Undefined for a tree with errors, where a definition can
 * sit in an error node inside any expression: `definitions` finds those.
 */
export function walkedDefinitions(tree: Tree, text: string, within?: OffsetRange): WalkedDefinition[] | undefined {
  const ids = grammarIds();
  if (!ids || treeHasErrors(tree)) return undefined;
  const found: WalkedDefinition[] = [];
  const cursor = tree.walk();
  // A stack of nothing but the cursor's depth: statements can nest as deep as the file is long.
  let depth = 0;
  let descend = true;
  for (;;) {
    // Within a range, the children before it are passed over natively, not one by one (a DAG's
    // body can hold thousands of tasks), and those after it not visited.
    if (descend && (within ? nativeNull(cursor.gotoFirstChildForIndex(within.start)) : cursor.gotoFirstChild())) depth++;
    else {
      for (;;) {
        if (depth === 0) return found;
        if (cursor.gotoNextSibling() && !(within && cursor.startIndex >= within.end)) break;
        cursor.gotoParent();
        depth--;
      }
    }
    descend = false;
    if (within && (cursor.endIndex <= within.start || cursor.startIndex >= within.end)) continue;
    const type = cursor.nodeTypeId;
    const kind = ids.definitions.get(type);
    if (kind === undefined) {
      descend = ids.containers.has(type);
      continue;
    }
    // The binding makes a new object for the node; the one kept for it, if any, is the tree's.
    const node = keptObject(cursor.currentNode);
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    // A tree without errors spells a definition `[async] def|class name`: where the text says so
    // plainly, the keyword and the name are read from it and the body is the last child, a third
    // of the calls into the binding that reading every child costs.
    const header = plainDefinitionHeader(text, start);
    let keyword = header?.keyword ?? start;
    let name = header?.name;
    let body: OffsetRange | undefined;
    if (header && cursor.gotoLastChild()) {
      depth++;
      if (cursor.currentFieldId === ids.bodyField) {
        body = { start: cursor.startIndex, end: cursor.endIndex };
        descend = true;
      } else {
        cursor.gotoParent();
        depth--;
      }
    }
    // Its children, up to its body, where the walk goes on (a body is a definition's last child).
    if (!body && cursor.gotoFirstChild()) {
      depth++;
      // `async def`: the keyword is the second child.
      if (text.startsWith("async", keyword) && cursor.gotoNextSibling()) keyword = cursor.startIndex;
      for (;;) {
        const field = cursor.currentFieldId;
        if (field === ids.nameField) name = { start: cursor.startIndex, end: cursor.endIndex };
        else if (field === ids.bodyField) {
          body = { start: cursor.startIndex, end: cursor.endIndex };
          descend = true;
          break;
        }
        if (!cursor.gotoNextSibling()) break;
      }
    }
    if (!within || (keyword >= within.start && keyword < within.end)) found.push({ node, kind, start, end, keyword, name, body });
  }
}

/**
 * The statements of a module or block that run in its own scope, in document order: its own, and
 * those of the blocks and clauses of its compound statements (`if`, `for`, `while`, `with`, `try`,
 * `match`; the compound statement before its statements), however deep; not the definitions it
 * holds, nor what their bodies hold. Walked with a tree cursor, which passes over definitions and
 * comments by their type's id: a DAG's body can hold thousands of tasks, and making each a node
 * object cost 2-5 ms in a 20,000-line DAG. With another node-tree-sitter, walked node by node.
 */
export function sameScopeStatements(container: SyntaxNode): SyntaxNode[] {
  const ids = grammarIds();
  return ids ? walkedSameScopeStatements(container, ids) : sameScopeStatementsOfNodes(container);
}

function walkedSameScopeStatements(container: SyntaxNode, ids: GrammarIds): SyntaxNode[] {
  const statements: SyntaxNode[] = [];
  const cursor = container.walk();
  if (!cursor.gotoFirstChild()) return statements;
  // By depth: whether the node there is a compound statement or clause, of whose children only the
  // blocks and clauses are looked into (not its condition, iterable or patterns). The container is
  // looked into as a block. A stack, since blocks nest as deep as the input.
  const compound = [false];
  let depth = 1;
  for (;;) {
    let descended = false;
    if (cursor.nodeIsNamed) {
      const type = cursor.nodeTypeId;
      const block = ids.sameScopeBlocks.get(type);
      if (!(compound[depth - 1] && block === undefined) && !ids.ownScopes.has(type)) {
        if (ids.statements.has(type)) statements.push(keptObject(cursor.currentNode));
        if (block !== undefined && cursor.gotoFirstChild()) {
          compound[depth++] = !block;
          descended = true;
        }
      }
    }
    if (descended) continue;
    while (!cursor.gotoNextSibling()) {
      if (--depth === 0) return statements;
      cursor.gotoParent();
    }
  }
}

function sameScopeStatementsOfNodes(container: SyntaxNode): SyntaxNode[] {
  const statements: SyntaxNode[] = [];
  const pending: SyntaxNode[] = [...container.namedChildren].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (ENDS_IN_ITS_BODY.has(node.type) || node.type === "comment") continue;
    if (node.type.endsWith("_statement")) statements.push(node);
    if (!STATEMENT_CONTAINERS.has(node.type)) continue;
    const held = node.type === "block" ? node.namedChildren : node.namedChildren.filter((child) => STATEMENT_CONTAINERS.has(child.type));
    for (let i = held.length - 1; i >= 0; i--) pending.push(held[i]);
  }
  return statements;
}

/** The binding answers `gotoFirstChildForIndex` with the child's index, or null when there is none (not the boolean its types say). */
function nativeNull(answer: unknown): boolean {
  return answer !== null && answer !== false;
}

interface GrammarIds {
  definitions: ReadonlyMap<number, "function" | "class">;
  containers: ReadonlySet<number>;
  nameField: number | undefined;
  bodyField: number | undefined;
  /** Node types named `*_statement`. */
  statements: ReadonlySet<number>;
  /** The blocks (true) and the compound statements and clauses (false) whose statements run in the scope around them. */
  sameScopeBlocks: ReadonlyMap<number, boolean>;
  /** What `sameScopeStatements` passes over, and all it holds: definitions and comments. */
  ownScopes: ReadonlySet<number>;
}

let grammarIdTable: GrammarIds | null | undefined;

/**
 * The grammar's ids of named node types and of fields (a constant table): the cursor answers them
 * without making a string. Null with another node-tree-sitter than the release read.
 */
function grammarIds(): GrammarIds | null {
  if (grammarIdTable !== undefined) return grammarIdTable;
  const binding = nativeBinding();
  if (!bindingIsTheOneRead(binding)) return (grammarIdTable = null);
  const definitions = new Map<number, "function" | "class">();
  const containers = new Set<number>();
  const statements = new Set<number>();
  const sameScopeBlocks = new Map<number, boolean>();
  const ownScopes = new Set<number>();
  binding.getNodeTypeNamesById(Python).forEach((name, id) => {
    // The binding leaves the ids of hidden and unused symbols without a name (null).
    if (!name) return;
    if (name === "function_definition") definitions.set(id, "function");
    else if (name === "class_definition") definitions.set(id, "class");
    else if (STATEMENT_CONTAINERS.has(name) || ENDS_IN_ITS_BODY.has(name)) containers.add(id);
    if (name.endsWith("_statement")) statements.add(id);
    if (STATEMENT_CONTAINERS.has(name) && name !== "module") sameScopeBlocks.set(id, name === "block");
    if (ENDS_IN_ITS_BODY.has(name) || name === "comment") ownScopes.add(id);
  });
  const fields = fieldIdsOf(binding);
  return (grammarIdTable = { definitions, containers, nameField: fields.get("name"), bodyField: fields.get("body"), statements, sameScopeBlocks, ownScopes });
}

/** The grammar's field ids by name. */
function fieldIdsOf(binding: NativeBinding): Map<string, number> {
  const ids = new Map<string, number>();
  binding.getNodeFieldNamesById(Python).forEach((fieldName, id) => fieldName && ids.set(fieldName, id));
  return ids;
}

/** The function or class definition whose keyword (`def` or `class`) is the one at `start`, if that word is one. */
export function definitionWithKeyword(root: SyntaxNode, start: number, keyword: string): SyntaxNode | undefined {
  return statementWithKeyword(root, start, keyword, DEFINITION_TYPES);
}

const DEFINITION_TYPES: ReadonlySet<string> = new Set(["function_definition", "class_definition"]);

/**
 * The `with` statements of the tree (`async with` ones too), in document order: what
 * `root.descendantsOfType("with_statement")` returns, found from the keyword in `text` (the tree's
 * whole source) as `definitions` finds definitions. The walk of every node cost a lint after an
 * edit of a 10,000-line DAG more than the rules that asked for them.
 */
export function withStatements(tree: Tree, text: string): SyntaxNode[] {
  return statementsStartedBy(tree, text, /\bwith\b/g, WITH_TYPES);
}

const WITH_TYPES: ReadonlySet<string> = new Set(["with_statement"]);

/** The statements of one of `types` begun by a match of `keywords` (global) in `text`, in document order; with `within`, only those whose keyword lies inside it. */
function statementsStartedBy(tree: Tree, text: string, keywords: RegExp, types: ReadonlySet<string>, within?: OffsetRange): SyntaxNode[] {
  const root = tree.rootNode;
  const found: SyntaxNode[] = [];
  keywords.lastIndex = within?.start ?? 0;
  const searchEnd = within?.end ?? text.length;
  for (let match = keywords.exec(text); match && match.index < searchEnd; match = keywords.exec(text)) {
    const statement = statementWithKeyword(root, match.index, match[0], types);
    if (statement) found.push(statement);
  }
  return found;
}

/** The statement of one of `types` that the keyword at `start` begins (after `async`, for some), if that word is that keyword. */
function statementWithKeyword(root: SyntaxNode, start: number, keyword: string, types: ReadonlySet<string>): SyntaxNode | undefined {
  // The keyword is an anonymous token, so the smallest named node around it is its parent: a
  // statement that starts with it is found in one call. (`async def` starts before its `def`.)
  const end = start + keyword.length;
  const around = root.namedDescendantForIndex(start, end);
  if (around.startIndex === start && types.has(around.type)) return around;
  const token = root.descendantForIndex(start, end);
  if (token.type !== keyword || token.startIndex !== start) return undefined;
  const statement = token.parent;
  return statement && types.has(statement.type) ? statement : undefined;
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
 * The calls `name(...)` and `name.method(...)` for each `name` of `names`, in the order a query's
 * captures come: found from the text's opening brackets and the words right before them, so that
 * thousands of names cost one pass over the text, not a search for each (a file of 20,000 classes
 * asks which of them are instantiated). A bracket whose callee the text alone cannot tell (a line
 * break or a comment between them) is looked up in the tree; every call found is checked on it.
 */
export function callsOfNames(tree: Tree, text: string, names: ReadonlySet<string>, method: string): SyntaxNode[] {
  const root = tree.rootNode;
  const found: { call: SyntaxNode; start: number }[] = [];
  for (let open = text.indexOf("("); open >= 0; open = text.indexOf("(", open + 1)) {
    if (!mayOpenCallOf(text, open, names, method)) continue;
    const call = callOpenedAt(root, open);
    const callee = call?.childForFieldName("function");
    if (call && callee && isCalleeOf(callee, names, method)) found.push({ call, start: call.startIndex });
  }
  return inQueryOrder(found);
}

/**
 * Whether the text before the bracket at `open` spells `name` or `name.method` for a name of
 * `names`, or cannot tell (a line break comes first, where a comment may hide the callee).
 */
function mayOpenCallOf(text: string, open: number, names: ReadonlySet<string>, method: string): boolean {
  const end = blanksBefore(text, open);
  if (end < 0) return true;
  const start = wordBefore(text, end);
  if (start === end) return false;
  const word = text.slice(start, end);
  if (!names.has(word) && word !== method) return false;
  const before = blanksBefore(text, start);
  if (before < 0) return true;
  const afterDot = text.charCodeAt(before - 1) === 46; /* . */
  // `class Name(` and `def name(` define, they do not call.
  if (names.has(word) && !afterDot && !isDefinedName(text, start)) return true;
  if (word !== method || !afterDot) return false;
  const objectEnd = blanksBefore(text, before - 1);
  return objectEnd < 0 || names.has(text.slice(wordBefore(text, objectEnd), objectEnd));
}

/**
 * The subscripts (`value[index]`) of the tree, or of those inside `within`, in document order: what
 * `descendantsOfType("subscript")` gives, found from the text's `[` that follow what can end a
 * value (a name, a closing bracket, a quote; or a line break, past which the tree is asked), not
 * from every node of the tree handed to JavaScript.
 */
export function subscripts(tree: Tree, text: string, within?: OffsetRange): SyntaxNode[] {
  const root = tree.rootNode;
  const start = within?.start ?? 0;
  const end = within?.end ?? text.length;
  const found: { node: SyntaxNode; start: number; end: number }[] = [];
  for (let open = text.indexOf("[", start); open >= 0 && open < end; open = text.indexOf("[", open + 1)) {
    const before = blanksBefore(text, open);
    if (before >= 0 && !mayEndValue(text.charCodeAt(before - 1))) continue;
    // The bracket's smallest named node is the subscript whose bracket it is (an index's own
    // brackets belong to a list or a subscript inside it); its parent would be found from the root.
    const node = root.namedDescendantForIndex(open, open + 1);
    if (node.type !== "subscript") continue;
    const subscript = { node, start: node.startIndex, end: node.endIndex };
    if (subscript.start < start || subscript.end > end) continue;
    found.push(subscript);
  }
  // `a[b][c]`: the outer subscript starts with the inner one and comes first, as a walk meets them.
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  return found.map((subscript) => subscript.node);
}

/** Whether a character can be the last of a value a subscript indexes: a name's, a bracket's, a string's. */
function mayEndValue(code: number): boolean {
  return isAsciiWordCharacter(code) || code > 127 || code === 41 /* ) */ || code === 93 /* ] */ || code === 125 /* } */ || code === 34 /* " */ || code === 39 /* ' */;
}

/** Where the spaces and tabs before `offset` start; -1 when a line break comes first (the callee may lie on an earlier line, past a comment). */
function blanksBefore(text: string, offset: number): number {
  let at = offset;
  for (;;) {
    const code = text.charCodeAt(at - 1);
    if (code === 32 || code === 9 || code === 12) at--;
    else return code === 10 || code === 13 ? -1 : at;
  }
}

/** Where the ASCII word that ends at `end` starts (`end` when none does). */
function wordBefore(text: string, end: number): number {
  let start = end;
  while (start > 0 && isAsciiWordCharacter(text.charCodeAt(start - 1))) start--;
  return start;
}

/** The call whose arguments open at `open`: an argument list, or a generator expression as the only argument (`any(x for x in y)`). */
function callOpenedAt(root: SyntaxNode, open: number): SyntaxNode | undefined {
  // The bracket's smallest named node is what it opens; its parent is found from the root.
  const opened = root.namedDescendantForIndex(open, open + 1);
  if ((opened.type !== "argument_list" && opened.type !== "generator_expression") || opened.startIndex !== open) return undefined;
  const call = opened.parent;
  return call?.type === "call" && call.childForFieldName("arguments")?.id === opened.id ? call : undefined;
}

function isCalleeOf(callee: SyntaxNode, names: ReadonlySet<string>, method: string): boolean {
  if (callee.type === "identifier") return names.has(callee.text);
  if (callee.type !== "attribute" || callee.childForFieldName("attribute")?.text !== method) return false;
  const object = callee.childForFieldName("object");
  return object?.type === "identifier" && names.has(object.text);
}

/**
 * The calls `callOf` finds around each identifier in the tree spelled as one of `names`, in the order
 * a query's captures come.
 */
function callsAround(tree: Tree, text: string, names: readonly string[], callOf: (name: SyntaxNode) => SyntaxNode | undefined): SyntaxNode[] {
  const root = tree.rootNode;
  const found: { call: SyntaxNode; start: number }[] = [];
  for (const [start, end] of wordsSpelled(text, names)) {
    const name = root.descendantForIndex(start, end);
    if (name.type !== "identifier" || name.startIndex !== start || name.endIndex !== end) continue;
    const call = callOf(name);
    if (call) found.push({ call, start: call.startIndex });
  }
  return inQueryOrder(found);
}

/**
 * Where `names` occur in `text` as whole words (`\b` on both sides), in text order: one search for
 * all of them, short of names so many or so long (a class name of a million letters) that the
 * pattern would be too large, when each is searched alone.
 */
function wordsSpelled(text: string, names: readonly string[]): [number, number][] {
  if (names.length === 0) return [];
  const pattern = names.join("|");
  if (pattern.length <= MAX_NAMES_PATTERN) return [...text.matchAll(new RegExp(`\\b(?:${pattern})\\b`, "g"))].map((match) => [match.index!, match.index! + match[0].length]);
  const found = new Map<number, number>();
  for (const name of new Set(names)) {
    if (name.length === 0) continue;
    for (let start = text.indexOf(name); start >= 0; start = text.indexOf(name, start + 1)) {
      const end = start + name.length;
      if (!isAsciiWordCharacter(text.charCodeAt(start - 1)) && !isAsciiWordCharacter(text.charCodeAt(end))) found.set(start, end);
    }
  }
  return [...found].sort((a, b) => a[0] - b[0]);
}

/** The longest alternation of names searched for with one regular expression. */
const MAX_NAMES_PATTERN = 32_768;

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
  return identifiersFound(tree.rootNode, text, 0, name, { limit, within, skipped, wanted });
}

/**
 * The identifiers spelled as any of `names`, in document order: `identifiersSpelled` for several
 * names in one search of the text instead of one per name (a file with hundreds of tasks asks for
 * their names together).
 * With `wanted`, only the spellings it accepts (from the text around them) are looked up in the tree.
 */
export function identifiersSpelledAny(tree: Tree, text: string, names: Iterable<string>, wanted?: (start: number, end: number) => boolean): SyntaxNode[] {
  const root = tree.rootNode;
  const found: SyntaxNode[] = [];
  for (const [start, end] of wordsSpelled(text, [...new Set(names)].filter((name) => name.length > 0))) {
    if (wanted && !wanted(start, end)) continue;
    const node = root.descendantForIndex(start, end);
    if (node.type === "identifier" && node.startIndex === start && node.endIndex === end) found.push(node);
  }
  return found;
}

/**
 * The identifiers spelled `name` inside `node` (itself included), in document order: what
 * `node.descendantsOfType("identifier")` filtered by text gives, found as `identifiersSpelled` finds
 * them, from the name's occurrences in the node's own text, without handing every identifier to JavaScript.
 */
export function identifiersIn(node: SyntaxNode, name: string): SyntaxNode[] {
  return identifiersFound(node, node.text, node.startIndex, name, { limit: Infinity, skipped: [], wanted: () => true })!;
}

/** What `identifiersSpelled` narrows its search with (see there). */
interface SpellingSearch {
  limit: number;
  within?: OffsetRange;
  skipped: readonly OffsetRange[];
  wanted: (end: number) => boolean;
}

/** `identifiersSpelled` in `text`, the source from offset `textStart` on, looked up under `searchRoot`. */
function identifiersFound(searchRoot: SyntaxNode, text: string, textStart: number, name: string, { limit, within, skipped, wanted }: SpellingSearch): SyntaxNode[] | undefined {
  const found: SyntaxNode[] = [];
  if (name.length === 0) return found;
  let checked = 0;
  const searchStart = within?.start ?? 0;
  const searchEnd = within?.end ?? text.length;
  // The first skipped range that ends after the search starts: a scope can hold as many nested
  // bodies as the file has definitions, and few of them lie around the name's occurrences.
  let skip = firstEndingAfter(skipped, searchStart);
  // Searched up to the end only: a scope's lookup of a name it never spells must not read on to the
  // end of the file (V8 slices a string without copying it).
  const searched = searchEnd < text.length ? text.slice(0, searchEnd) : text;
  // Two occurrences that overlap lie inside one longer word, so neither is the identifier: the search
  // goes on after each occurrence (from the next character, a long name in a long run of its
  // letters would be compared again at every position).
  for (let start = searched.indexOf(name, searchStart); start >= 0; start = searched.indexOf(name, start + name.length)) {
    if (skip < skipped.length && skipped[skip].end <= start) skip = firstEndingAfter(skipped, start, skip + 1);
    if (skip < skipped.length && skipped[skip].start <= start) {
      // Inside a skipped range: go on from its end.
      start = skipped[skip].end - name.length;
      continue;
    }
    const end = start + name.length;
    if (isAsciiWordCharacter(text.charCodeAt(start - 1)) || isAsciiWordCharacter(text.charCodeAt(end)) || !wanted(end)) continue;
    if (++checked > limit) return undefined;
    const node = searchRoot.descendantForIndex(textStart + start, textStart + end);
    if (node.type === "identifier" && node.startIndex === textStart + start && node.endIndex === textStart + end) found.push(node);
  }
  return found;
}

/** Whether `offset` lies in one of `ranges` (in order, not overlapping). */
export function insideAny(ranges: readonly OffsetRange[], offset: number): boolean {
  const at = firstEndingAfter(ranges, offset);
  return at < ranges.length && ranges[at].start <= offset;
}

/** The index of the first of `ranges` (in order, not overlapping) that ends after `offset`, searched from `from`. */
function firstEndingAfter(ranges: readonly OffsetRange[], offset: number, from = 0): number {
  let low = from;
  let high = ranges.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ranges[mid].end <= offset) low = mid + 1;
    else high = mid;
  }
  return low;
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
