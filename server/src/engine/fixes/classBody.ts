/** Edits that add statements to a class body, in the body's own indentation and line endings. */
import { insertAt } from "./edits";
import { SyntaxNode } from "../syntax/parser";
import { ClassInfo } from "../airflow/model";
import { indentationOf } from "../syntax/nodes";
import { TextEdit } from "../types";

const DEFINITIONS = new Set(["function_definition", "class_definition", "decorated_definition"]);

/** The class's docstring statement, if its body opens with one. */
export function docstringOf(body: SyntaxNode): SyntaxNode | undefined {
  const first = body.namedChildren.find((c) => c.type !== "comment");
  return first?.type === "expression_statement" && first.namedChildCount === 1 && ["string", "concatenated_string"].includes(first.namedChildren[0].type) ? first : undefined;
}

/**
 * Inserts `statement` as the first statement of the class body, after its docstring: on a line of its
 * own with the body's indentation (followed by a blank line when a definition comes next), or, for a
 * body on the header's line (`class C(Base): pass`), before the first statement and a `;`.
 */
export function insertFirstInClassBody(cls: ClassInfo, statement: string, text: string): TextEdit | undefined {
  const body = cls.node.childForFieldName("body");
  const colon = cls.node.children.find((c) => c.type === ":");
  const first = body?.namedChildren.find((c) => c.type !== "comment");
  if (!body || !colon || !first) return undefined;
  const docstring = docstringOf(body);
  if (body.startPosition.row === colon.endPosition.row) {
    return docstring ? insertAt(docstring.endIndex, `; ${statement}`) : insertAt(first.startIndex, `${statement}; `);
  }
  const eol = lineEnding(text);
  const indentation = indentationOf(first, text);
  if (docstring) return insertAt(lineEndAfter(docstring, text), `${eol}${indentation}${statement}`);
  // Above the comments that open the body: they describe what follows them. tree-sitter may attach a
  // comment before the first statement to the class rather than to its body.
  const comments = [...cls.node.children, ...body.children].filter((c) => c.type === "comment" && c.startPosition.row > colon.endPosition.row && c.startIndex < first.startIndex);
  const opening = [...comments, first].sort((a, b) => a.startIndex - b.startIndex)[0];
  const blankLine = DEFINITIONS.has(first.type) ? eol : "";
  return insertAt(opening.startIndex - opening.startPosition.column, `${indentation}${statement}${eol}${blankLine}`);
}

/**
 * Appends method definitions (each a list of lines: the `def` line, then its body lines without
 * indentation) at the end of the class body, each after a blank line, indented like the body.
 * Undefined for a body written on the class's own line, which cannot take a new line.
 */
export function appendMethodsToClassBody(cls: ClassInfo, methods: readonly (readonly string[])[], text: string): TextEdit | undefined {
  const body = cls.node.childForFieldName("body");
  const colon = cls.node.children.find((c) => c.type === ":");
  const statements = body?.namedChildren.filter((c) => c.type !== "comment") ?? [];
  const last = statements[statements.length - 1];
  if (!body || !colon || !last || body.startPosition.row === colon.endPosition.row) return undefined;
  const eol = lineEnding(text);
  const indentation = indentationOf(statements[0], text);
  const step = indentationStep(indentation, indentationOf(cls.node, text));
  const definitions = methods.map(([header, ...lines]) => [`${indentation}${header}`, ...lines.map((line) => `${indentation}${step}${line}`)].join(eol));
  return insertAt(lineEndAfter(last, text), definitions.map((d) => `${eol}${eol}${d}`).join(""));
}

/** What one level of indentation is in this file, from the body's and the class's own. */
function indentationStep(body: string, header: string): string {
  const step = body.startsWith(header) ? body.slice(header.length) : "";
  return step.length > 0 ? step : "    ";
}

function lineEnding(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** The offset of the end of the line `node` ends on, before its line break. */
function lineEndAfter(node: SyntaxNode, text: string): number {
  const newline = text.indexOf("\n", node.endIndex);
  if (newline < 0) return text.length;
  return text[newline - 1] === "\r" ? newline - 1 : newline;
}
