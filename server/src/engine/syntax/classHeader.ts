/**
 * Python's words and the plainest class headers, read from the source text: a file of 20,000 classes
 * would otherwise ask the native binding for each class's argument list and each base in it, several
 * calls into N-API per class, where the text already says it all.
 */

/** Python's reserved words: never a name, whatever the grammar's error recovery makes of them. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "),
);

/** `class Name:` or `class Name(...):`, with nothing but names, dots, commas and white space between the brackets. */
const PLAIN_HEADER = /class[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*(?:\(([A-Za-z0-9_., \t\f\r\n]*)\))?[ \t]*:/y;
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
  PLAIN_HEADER.lastIndex = start;
  const header = PLAIN_HEADER.exec(text);
  if (!header || PLAIN_HEADER.lastIndex > bodyStart) return undefined;
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
