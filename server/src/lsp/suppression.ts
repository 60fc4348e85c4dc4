/**
 * The "Suppress ASxxx on this line" edit: extends the line's `# noqa: ...` list, or appends
 * `  # noqa: ASxxx`. The linter honours `# noqa` on the line where a diagnostic starts, so that is
 * the line edited.
 */
import { parseNoqa, type PythonDocument } from "../engine";
import type { PlacedEdit } from "./workerProtocol";

type SyntaxNode = PythonDocument["tree"]["rootNode"];

/** Undefined when no comment can go at the end of the line: it ends inside a string or continues with a backslash. */
export function suppressionEdit(document: PythonDocument, line: number, code: string): PlacedEdit | undefined {
  const text = document.lineText(line);
  const root = document.tree.rootNode;
  for (const comment of root.descendantsOfType("comment", { row: line, column: 0 }, { row: line, column: text.length })) {
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
  if (isInsideString(root, document.offsetAt({ line, character: end }))) return undefined;
  return { range: { start: { line, character: end }, end: { line, character: end } }, newText: `  # noqa: ${code}` };
}

function isInsideString(root: SyntaxNode, offset: number): boolean {
  for (let node: SyntaxNode | null = root.descendantForIndex(Math.max(0, offset - 1), offset); node; node = node.parent) {
    if (node.type === "string" && node.startIndex < offset && node.endIndex > offset) return true;
  }
  return false;
}
