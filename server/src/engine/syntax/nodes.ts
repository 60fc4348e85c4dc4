/** Small questions asked of tree-sitter-python nodes, so rules never poke at raw node shapes. */
import { identifiersIn, SyntaxNode, treeHasErrors } from "./parser";

export interface StringLiteral {
  /** The literal's value when it has no interpolation; escape sequences are kept as written. */
  value: string;
  prefix: string;
  isBytes: boolean;
  isFString: boolean;
}

/** A string or implicitly concatenated strings; undefined for anything else. */
export function stringLiteral(node: SyntaxNode | null | undefined): StringLiteral | undefined {
  if (!node) return undefined;
  // Each node property is a call into the native binding: read each once.
  const type = node.type;
  if (type === "concatenated_string") {
    const parts = node.namedChildren.map(stringLiteral);
    if (parts.some((p) => !p)) return undefined;
    const literals = parts as StringLiteral[];
    return {
      value: literals.map((p) => p.value).join(""),
      prefix: literals[0].prefix,
      isBytes: literals.some((p) => p.isBytes),
      isFString: literals.some((p) => p.isFString),
    };
  }
  if (type !== "string") return undefined;
  if (!treeHasErrors(node.tree)) {
    const literal = stringFromText(node, node.text);
    if (literal) return literal;
  }
  const start = node.firstChild;
  const end = node.lastChild;
  if (!start || !end || start.type !== "string_start") return undefined;
  const opening = start.text;
  const whole = node.text;
  const prefix = opening.replace(/["']+$/, "").toLowerCase();
  const value = whole.slice(opening.length, whole.length - end.text.length);
  return { value, prefix, isBytes: prefix.includes("b"), isFString: prefix.includes("f") && node.namedChildren.some((c) => c.type === "interpolation") };
}

/**
 * A `string` node of a tree without errors, read from its text: its `string_start` is the prefix and
 * the opening quotes, its `string_end` the same quotes (each of those nodes is a call into the native
 * binding, and so is each one's text). Not a raw string, whose `string_end` tree-sitter-python
 * extends over the backslashes before the quotes (`r"a\\"`): those are read from the nodes.
 */
function stringFromText(node: SyntaxNode, whole: string): StringLiteral | undefined {
  let prefixLength = 0;
  for (let code = whole.charCodeAt(0); isAsciiLetter(code); code = whole.charCodeAt(++prefixLength)) if (code === 82 /* R */ || code === 114 /* r */) return undefined;
  const quote = whole.charCodeAt(prefixLength);
  const quotes = whole.charCodeAt(prefixLength + 1) === quote && whole.charCodeAt(prefixLength + 2) === quote && whole.length >= prefixLength + 6 ? 3 : 1;
  const prefix = whole.slice(0, prefixLength).toLowerCase();
  const value = whole.slice(prefixLength + quotes, whole.length - quotes);
  return { value, prefix, isBytes: prefix.includes("b"), isFString: prefix.includes("f") && node.namedChildren.some((c) => c.type === "interpolation") };
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** The value of a plain (non-f, non-bytes) string literal. */
export function plainString(node: SyntaxNode | null | undefined): string | undefined {
  const literal = stringLiteral(node);
  return literal && !literal.isBytes && !literal.isFString ? literal.value : undefined;
}

export function isNumberLiteral(node: SyntaxNode | null | undefined): boolean {
  // A loop, not recursion: `- - - 1` can nest as deep as the file is long.
  for (let current = node; current; current = current.child(1)) {
    const type = current.type;
    if (type === "integer" || type === "float") return true;
    if (type !== "unary_operator" || !/^[-+]$/.test(current.child(0)?.text ?? "")) return false;
  }
  return false;
}

export interface CallArguments {
  positional: SyntaxNode[];
  keywords: Map<string, KeywordArgument>;
  /** `*args` or `**kwargs` were passed: the call's arguments are not fully known. */
  hasSplat: boolean;
}

export interface KeywordArgument {
  /** The whole `name=value` node. */
  node: SyntaxNode;
  name: string;
  value: SyntaxNode;
}

export function callArguments(call: SyntaxNode): CallArguments {
  const result: CallArguments = { positional: [], keywords: new Map(), hasSplat: false };
  const list = call.childForFieldName("arguments");
  if (!list || list.type !== "argument_list") {
    // `f(x for x in y)`: the generator is the only argument.
    if (list) result.positional.push(list);
    return result;
  }
  // Each node property is a call into the native binding: read each once.
  for (const arg of list.namedChildren) {
    const type = arg.type;
    if (type === "keyword_argument") {
      const name = arg.childForFieldName("name");
      const value = arg.childForFieldName("value");
      if (name && value) {
        const text = name.text;
        result.keywords.set(text, { node: arg, name: text, value });
      }
    } else if (type === "list_splat" || type === "dictionary_splat") {
      result.hasSplat = true;
    } else if (type !== "comment") {
      result.positional.push(arg);
    }
  }
  return result;
}

/** `a.b.c` as ["a", "b", "c"]; undefined when the expression is not a plain dotted name. */
export function dottedParts(node: SyntaxNode | null | undefined): string[] | undefined {
  // Walks down the objects in a loop (an attribute chain can be as long as the file), collecting the names last first.
  const reversed: string[] = [];
  let current = node;
  while (current?.type === "attribute") {
    const attribute = current.childForFieldName("attribute");
    if (!attribute) return undefined;
    reversed.push(attribute.text);
    current = current.childForFieldName("object");
  }
  if (current?.type !== "identifier") return undefined;
  reversed.push(current.text);
  return reversed.reverse();
}

/** Where a comment's text ends: tree-sitter counts the `\r` of a `\r\n` after it as part of the comment. */
export function commentEnd(comment: SyntaxNode): number {
  return comment.text.endsWith("\r") ? comment.endIndex - 1 : comment.endIndex;
}

/** The statement a function or class definition stands as: its `decorated_definition` when it is decorated. */
export function definitionStatement(definition: SyntaxNode): SyntaxNode {
  const parent = definition.parent;
  return parent?.type === "decorated_definition" ? parent : definition;
}

/** Drops the parentheses around an expression: `(x)` is `x`. */
export function unparenthesize(node: SyntaxNode): SyntaxNode {
  let current = node;
  while (current.type === "parenthesized_expression" && current.namedChildCount === 1) current = current.namedChildren[0];
  return current;
}

/** The text of the line's leading white space at `node`'s statement. */
export function indentationOf(node: SyntaxNode, text: string): string {
  const lineStart = text.lastIndexOf("\n", node.startIndex - 1) + 1;
  const match = /^[ \t]*/.exec(text.slice(lineStart, node.startIndex + 1));
  return match ? match[0] : "";
}

/**
 * The identifiers spelled `name` in `node` (itself included) that read a variable: not an
 * attribute's name (`x.name`) and not a keyword argument's (`f(name=...)`).
 */
export function variableReferences(node: SyntaxNode, name: string): SyntaxNode[] {
  return identifiersIn(node, name).filter((id) => !isAttributeOrKeywordName(id));
}

function isAttributeOrKeywordName(identifier: SyntaxNode): boolean {
  const parent = identifier.parent;
  return (
    (parent?.type === "attribute" && parent.childForFieldName("attribute")?.id === identifier.id) ||
    (parent?.type === "keyword_argument" && parent.childForFieldName("name")?.id === identifier.id)
  );
}
