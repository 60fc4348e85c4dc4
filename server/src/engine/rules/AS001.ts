import { Rule } from "./rule";
import { SyntaxNode } from "../syntax/parser";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Reports a file that does not parse, once, at the first place the parser cannot read: code it
 * cannot make sense of, or a token that is missing (an unclosed parenthesis, a `:` after `def f()`).
 * Like ruff's `invalid-syntax`, it is what the command line says about such a file instead of "All
 * checks passed!": a file that cannot be read completely cannot be said to pass. Files that never
 * name Airflow, a store or `ResumableJobMixin` are not checked at all, by this rule or any other.
 *
 * In the editor it is off by default, since Python's own language server already shows syntax
 * errors; `"airflowStateStore.showSyntaxErrors": true` turns it on (as ruff's `showSyntaxErrors`).
 *
 * The parser is tree-sitter's Python grammar, which reads Python up to 3.13: a template string
 * (`t"..."`, Python 3.14) is not reported. It is also more lenient than Python in places (it
 * accepts Python 2's `print "x"`, and indentation it can make sense of), so a file this rule passes
 * can still fail to import.
 *
 * ## Why is this bad?
 * Importing the file raises `SyntaxError`: Airflow's DAG processor records an import error for it and
 * loads none of its DAGs, and DAG files that import it as a module fail the same way. The other rules
 * read the file only as far as the parser could make sense of it, so their findings may be
 * incomplete, and rules that prove something is absent stay silent where the parser could not read:
 * AS303 (a missing method) and AS308 (no `external_id_key`) on a class whose body, or a base's body,
 * does not parse, AS302 (`execute` never calls `execute_resumable`) on an `execute` that does not.
 *
 * ## Example
 * ```python
 * @task
 * def export(task_state_store=None:
 *     task_state_store.set("cursor", 0)
 * ```
 *
 * ## Use instead
 * ```python
 * @task
 * def export(task_state_store=None):
 *     task_state_store.set("cursor", 0)
 * ```
 *
 * ## Fix safety
 * There is no fix: which code was meant is the author's decision.
 */
export const AS001: Rule = {
  code: "AS001",
  name: "invalid-syntax",
  summary: "A file that does not parse: importing it raises `SyntaxError`, so Airflow loads none of its DAGs",
  defaultSeverity: "error",
  category: "syntax",
  fix: "none",
  // No text test: only the parse can tell, so every file the linter reads is parsed while this rule is on.
  check(context) {
    const root = context.tree.rootNode;
    if (!root.hasError) return;
    const error = firstError(root);
    if (!error) return;
    const { text } = context;
    const lineEnd = text.indexOf("\n", error.startIndex);
    const end = error.isMissing ? error.startIndex : Math.min(error.endIndex, lineEnd < 0 ? text.length : lineEnd);
    context.report({
      start: error.startIndex,
      end,
      message: `Python cannot parse this file: importing it raises \`SyntaxError\`, so Airflow loads none of its DAGs. ${where(error, text.slice(error.startIndex, end))} The other rules read only what the parser could make sense of.`,
    });
  },
};

/** What the parser could not read, said in a sentence. */
function where(error: SyntaxNode, shown: string): string {
  if (error.isMissing) return `${codeSpan(error.type)} is missing here.`;
  const snippet = shown.trim();
  return snippet === "" ? "The parser cannot read the code from here." : `The parser cannot read ${codeSpan(snippet.length > 40 ? `${snippet.slice(0, 40)}…` : snippet)}.`;
}

/**
 * The first node, in document order, that the parser could not read (`ERROR`) or had to assume
 * (a missing token), other than a template string's prefix (`t"..."`, valid from Python 3.14, which
 * the grammar reads as a name followed by a string). Iterative: error nodes can nest as deep as the
 * file is long.
 */
function firstError(root: SyntaxNode): SyntaxNode | undefined {
  const pending: SyntaxNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.isMissing) return node;
    if (node.type === "ERROR" && !isTemplateStringPrefix(node)) return node;
    const children = node.children;
    // Children pushed last to first, so the first is visited next.
    for (let i = children.length - 1; i >= 0; i--) if (children[i].hasError || children[i].isMissing) pending.push(children[i]);
  }
  return undefined;
}

function isTemplateStringPrefix(node: SyntaxNode): boolean {
  const next = node.nextSibling;
  return /^(?:[rR]?[tT]|[tT][rR])$/.test(node.text) && next?.type === "string" && next.startIndex === node.endIndex;
}
