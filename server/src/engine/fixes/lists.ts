/**
 * Edits that add an item to something bracketed in the file: a list or tuple display, a call's
 * argument list, a function's parameter list, or the `keyword=[...]` argument of a call. Each edit
 * keeps the layout it finds (inline, or one item per line with or without a trailing comma).
 */
import { insertAt, replaceNode } from "./edits";
import { SyntaxNode } from "../syntax/parser";
import { SemanticModel } from "../airflow/model";
import { commentEnd, KeywordArgument, unparenthesize } from "../syntax/nodes";
import { TextEdit } from "../types";

/**
 * Adds `text` as the last item of a list, tuple, argument list or parameter list, in its layout:
 * inline after the last item, or on a line of its own, indented like the last item, when the closing
 * bracket stands on its own line. Undefined when the container has no brackets of its own or only
 * comments inside.
 */
export function appendItem(model: SemanticModel, container: SyntaxNode, text: string): TextEdit[] | undefined {
  const tokens = container.children;
  const open = tokens[0];
  const close = tokens[tokens.length - 1];
  if (!open || !close || !["(", "["].includes(open.type) || ![")", "]"].includes(close.type)) return undefined;
  const items = container.namedChildren.filter((c) => c.type !== "comment");
  if (items.length === 0) {
    if (tokens.some((t) => t.type === "comment")) return undefined;
    // `()` is the empty tuple: a single item needs its comma to stay a tuple.
    return [insertAt(open.endIndex, container.type === "tuple" ? `${text},` : text)];
  }
  const last = items[items.length - 1];
  const after = tokens.slice(tokens.findIndex((t) => t.id === last.id) + 1, -1);
  const comma = after.find((t) => t.type === ",");
  if (close.startPosition.row === last.endPosition.row) {
    return [comma ? insertAt(comma.endIndex, ` ${text}`) : insertAt(last.endIndex, `, ${text}`)];
  }
  const lineEnd = comma ?? last;
  const comment = after.find((t) => t.type === "comment" && t.startPosition.row === lineEnd.endPosition.row);
  const indentation = model.text.slice(last.startIndex - last.startPosition.column, last.startIndex);
  const indent = /^[ \t]*$/.test(indentation) ? indentation : "    ";
  const eol = model.text.includes("\r\n") ? "\r\n" : "\n";
  const newLine = `${eol}${indent}${text}${comma ? "," : ""}`;
  if (comma) return [insertAt(comment ? commentEnd(comment) : comma.endIndex, newLine)];
  // No trailing comma: the last item gets one, and the comment ending its line stays there.
  return comment ? [insertAt(last.endIndex, ","), insertAt(commentEnd(comment), newLine)] : [insertAt(last.endIndex, `,${newLine}`)];
}

/**
 * Adds `item` to the `keyword=` list of a call, or of a decorator written without a call (`@task`
 * becomes `@task(outlets=[X])`), creating the keyword when it is missing. A list or tuple written in
 * place is extended, `None` becomes `[item]` and a single value `[value, item]`. Undefined when the
 * value is a list bound to a name (other calls may share it) or the call cannot take another argument.
 */
export function addToKeywordList(model: SemanticModel, node: SyntaxNode, keywords: ReadonlyMap<string, KeywordArgument>, keyword: string, item: string): TextEdit[] | undefined {
  const existing = keywords.get(keyword);
  if (existing) {
    const value = unparenthesize(existing.value);
    if (value.type === "list" || value.type === "tuple") return appendItem(model, value, item);
    if (value.type === "none") return [replaceNode(existing.value, `[${item}]`)];
    // A list bound to a name may be shared by other tasks: extending it would change them too.
    const resolved = model.resolveValue(value);
    if (resolved.type === "list" || resolved.type === "tuple") return undefined;
    return [replaceNode(existing.value, `[${existing.value.text}, ${item}]`)];
  }
  const argument = `${keyword}=[${item}]`;
  if (node.type !== "call") return [replaceNode(node, `${node.text}(${argument})`)];
  const list = node.childForFieldName("arguments");
  return list?.type === "argument_list" ? appendItem(model, list, argument) : undefined;
}
