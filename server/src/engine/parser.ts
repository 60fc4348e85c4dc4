/**
 * The one place that loads the native tree-sitter binding and the Python grammar.
 * Both are N-API prebuilds shipped inside their npm packages, so nothing is compiled at install time.
 */
import Parser = require("tree-sitter");
import Python = require("tree-sitter-python");

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;
export type Edit = Parser.Edit;
export type Point = Parser.Point;

let sharedParser: Parser | undefined;

function parser(): Parser {
  if (!sharedParser) {
    sharedParser = new Parser();
    sharedParser.setLanguage(Python as unknown as Parser.Language);
  }
  return sharedParser;
}

export function parsePython(text: string, oldTree?: Tree): Tree {
  return parser().parse(text, oldTree ?? null);
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
