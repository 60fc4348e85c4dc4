/**
 * The suppression edits. "On this line" extends the line's `# noqa: ...` list, or appends
 * `  # noqa: ASxxx`; the linter honours `# noqa` on the line where a diagnostic starts, so that is
 * the line edited. "In this file" extends the file's `# airflow-state-lint: noqa: ...` list, or
 * adds that comment on a line of its own near the top.
 */
import { FILE_NOQA_PREFIX, parseFileNoqa, parseNoqa, type PythonDocument } from "../engine";
import type { PlacedEdit } from "./workerProtocol";

type SyntaxNode = PythonDocument["tree"]["rootNode"];

/**
 * Whether a line of `text` can end inside a string: only a triple-quoted string or an f-string's
 * replacement field spans lines (a line continued with a backslash is told by its last character).
 * Asked once per lint, so that the tree is searched for strings only in files that have such.
 */
export function linesMayEndInsideStrings(text: string): boolean {
  return /"""|'''|[fF][rR]?["']|[rR][fF]["']/.test(text);
}

/** Undefined when no comment can go at the end of the line: it ends inside a string or continues with a backslash. */
export function suppressionEdit(document: PythonDocument, line: number, code: string, mayEndInsideString = true): PlacedEdit | undefined {
  const text = document.lineText(line);
  const root = document.tree.rootNode;
  // Called for every finding on every lint: a line without `#` has no comment to look for.
  const comments = text.includes("#") ? root.descendantsOfType("comment", { row: line, column: 0 }, { row: line, column: text.length }) : [];
  for (const comment of comments) {
    if (comment.startPosition.row !== line) continue;
    // A bare `# noqa` already silences everything, so only a list of codes is extended.
    const noqa = parseNoqa(comment.text);
    if (!noqa || noqa.codes === "all" || noqa.listEnd === undefined) continue;
    if (noqa.codes.has(code.toUpperCase())) return undefined;
    const character = comment.startPosition.column + noqa.listEnd;
    return { range: { start: { line, character }, end: { line, character } }, newText: `, ${code}` };
  }
  const end = text.trimEnd().length;
  if (text.slice(0, end).endsWith("\\")) return undefined;
  if (mayEndInsideString && isInsideString(root, document.offsetAt({ line, character: end }))) return undefined;
  return { range: { start: { line, character: end }, end: { line, character: end } }, newText: `  # noqa: ${code}` };
}

/** A string never holds a statement, so the search for one around the offset ends at the first statement. */
const HOLDS_NO_STRING = /^(?:module|block|.*_statement|.*_definition)$/;

function isInsideString(root: SyntaxNode, offset: number): boolean {
  for (let node: SyntaxNode | null = root.descendantForIndex(Math.max(0, offset - 1), offset); node; node = node.parent) {
    if (node.type === "string" && node.startIndex < offset && node.endIndex > offset) return true;
    if (HOLDS_NO_STRING.test(node.type)) return false;
  }
  return false;
}

/** Undefined when the file already silences every rule or this one (the finding would not exist). */
export function fileSuppressionEdit(document: PythonDocument, code: string): PlacedEdit | undefined {
  // Every comment of the file is looked at only when one can be the file's `noqa`.
  const comments = /airflow-state-lint/i.test(document.getText()) ? document.tree.rootNode.descendantsOfType("comment") : [];
  for (const comment of comments) {
    const { row, column } = comment.startPosition;
    if (document.lineText(row).slice(0, column).trim() !== "") continue;
    const noqa = parseFileNoqa(comment.text);
    if (!noqa || noqa.codes === "all" || noqa.listEnd === undefined) continue;
    if (noqa.codes.has(code.toUpperCase())) return undefined;
    const character = column + noqa.listEnd;
    return { range: { start: { line: row, character }, end: { line: row, character } }, newText: `, ${code}` };
  }
  const line = firstLineAfterHeader(document);
  const eol = lineBreakOf(document.getText());
  if (line < document.lineCount) return { range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${FILE_NOQA_PREFIX}: ${code}${eol}` };
  // The header is the whole file and its last line has no line break.
  const last = document.lineCount - 1;
  const end = { line: last, character: document.lineText(last).length };
  return { range: { start: end, end }, newText: `${eol}${FILE_NOQA_PREFIX}: ${code}` };
}

/** The first line after a shebang and an encoding declaration, which must stay on the first two lines. */
function firstLineAfterHeader(document: PythonDocument): number {
  let line = 0;
  if (document.lineText(0).startsWith("#!")) line++;
  const candidate = document.lineText(line);
  if (line < document.lineCount && candidate.trimStart().startsWith("#") && /coding[:=]/.test(candidate)) line++;
  return line;
}

/** The file's own line break, so the added line matches the others. */
function lineBreakOf(text: string): string {
  const index = text.search(/[\r\n]/);
  if (index === -1) return "\n";
  if (text[index] === "\n") return "\n";
  return text[index + 1] === "\n" ? "\r\n" : "\r";
}
