/**
 * Python's reserved words, and definition headers written so plainly that the source text says what
 * the tree would: a definition's keyword and name, a class's bases. A file of 20,000 classes would
 * otherwise ask the native binding for each one's children, argument list and bases, several calls
 * into N-API per class.
 */
import type { OffsetRange } from "../types";

/** Python's reserved words: never a name, whatever the grammar's error recovery makes of them. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "),
);

/** `async def`, `def` or `class`, blanks, then an ASCII name. */
const PLAIN_DEFINITION_HEADER = /(async[ \t]+)?(def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)/y;
/** What can follow a definition's name: its parameters, bases or type parameters, its colon, blanks, a line continuation. */
const NAME_FOLLOWERS: ReadonlySet<number> = new Set([40 /* ( */, 58 /* : */, 91 /* [ */, 32, 9, 12, 92 /* \\ */]);
/** After a class's name: `:` or `(...):`, with nothing but names, dots, commas and white space between the brackets. */
const PLAIN_BASE_LIST = /[ \t]*(?:\(([A-Za-z0-9_., \t\f\r\n]*)\))?[ \t]*:/y;
const BLANK = /^[ \t\f\r\n]*$/;
/** One base: a dotted name, with white space (line breaks too, inside the brackets) around it. */
const PLAIN_BASE = /^[ \t\f\r\n]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)[ \t\f\r\n]*$/;

/**
 * The bases of the class whose `class` keyword is at `start`, each as its dotted parts
 * (`class A(B, pkg.C):` gives `[["B"], ["pkg", "C"]]`), when the header ends before `bodyStart` and
 * is written so plainly that the text cannot mean anything else: ASCII names only, no reserved word,
 * no keyword argument, splat, comment, call or type parameter. Undefined otherwise: then the tree
 * says what the bases are.
 */
export function plainClassBases(text: string, start: number, bodyStart: number): string[][] | undefined {
  const definition = plainDefinitionHeader(text, start);
  if (!definition?.isClass) return undefined;
  PLAIN_BASE_LIST.lastIndex = definition.name.end;
  const header = PLAIN_BASE_LIST.exec(text);
  if (!header || PLAIN_BASE_LIST.lastIndex > bodyStart) return undefined;
  const list = header[1];
  if (list === undefined) return [];
  // An empty list is `()`; a trailing comma follows a base (`class A(B,):`).
  if (BLANK.test(list)) return [];
  const items = list.split(",");
  if (items.length > 1 && BLANK.test(items[items.length - 1])) items.pop();
  const bases: string[][] = [];
  for (const item of items) {
    const name = PLAIN_BASE.exec(item)?.[1];
    if (name === undefined) return undefined;
    const parts = name.split(".");
    if (parts.some((part) => PYTHON_KEYWORDS.has(part))) return undefined;
    bases.push(parts);
  }
  return bases;
}

/**
 * The keyword and the name of the definition at `start`, where the text spells them plainly:
 * `[async] def|class name` with blanks between, an ASCII name, no line continuation before it.
 */
export function plainDefinitionHeader(text: string, start: number): { keyword: number; name: OffsetRange; isClass: boolean } | undefined {
  PLAIN_DEFINITION_HEADER.lastIndex = start;
  const match = PLAIN_DEFINITION_HEADER.exec(text);
  const end = PLAIN_DEFINITION_HEADER.lastIndex;
  if (!match || !NAME_FOLLOWERS.has(text.charCodeAt(end))) return undefined;
  return { keyword: start + (match[1]?.length ?? 0), name: { start: end - match[3].length, end }, isClass: match[2] === "class" };
}
