/**
 * A function's control flow, as far as lint rules can tell it without running anything: its own
 * `return` statements and whether it can run off the end of its body (and so return `None`).
 * Where Python's behaviour cannot be known from the text (loops, `match`, context managers that
 * swallow exceptions) the answers lean towards "it cannot fall off", so rules stay silent.
 */
import { SyntaxNode } from "../syntax/parser";

const NESTED_SCOPES = ["function_definition", "class_definition", "lambda"];

/** Nodes of `types` inside `body` that belong to it, not to a function, class or lambda nested in it. */
export function ownDescendants(body: SyntaxNode, types: string | string[]): SyntaxNode[] {
  const nested = body.descendantsOfType(NESTED_SCOPES);
  return body.descendantsOfType(types).filter((node) => !nested.some((n) => node.startIndex >= n.startIndex && node.endIndex <= n.endIndex));
}

/** Whether running `block` can reach its end (rather than certainly returning or raising). */
export function mayFallOffEnd(block: SyntaxNode | null | undefined): boolean {
  return !terminates(block);
}

/** Whether every path through `block` certainly ends in `return` or `raise` (or what cannot be told). */
function terminates(block: SyntaxNode | null | undefined): boolean {
  if (!block) return false;
  // A statement that never completes makes the rest of the block unreachable.
  return block.namedChildren.some(statementTerminates);
}

function statementTerminates(statement: SyntaxNode): boolean {
  switch (statement.type) {
    case "return_statement":
    case "raise_statement":
      return true;
    case "if_statement": {
      const branches = statement.childrenForFieldName("alternative");
      const elseClause = branches.find((b) => b.type === "else_clause");
      if (!elseClause || !terminates(statement.childForFieldName("consequence"))) return false;
      return branches.every((branch) => terminates(branch.type === "else_clause" ? branch.childForFieldName("body") : branch.childForFieldName("consequence")));
    }
    case "try_statement": {
      const clauses = statement.namedChildren;
      const finallyClause = clauses.find((c) => c.type === "finally_clause");
      if (finallyClause && terminates(lastBlock(finallyClause))) return true;
      const elseClause = clauses.find((c) => c.type === "else_clause");
      const bodyEnds = terminates(statement.childForFieldName("body")) || (elseClause !== undefined && terminates(elseClause.childForFieldName("body")));
      const handlers = clauses.filter((c) => c.type === "except_clause" || c.type === "except_group_clause");
      return bodyEnds && handlers.every((handler) => terminates(lastBlock(handler)));
    }
    case "with_statement":
      return terminates(statement.childForFieldName("body"));
    // Whether a loop runs at all, or a `match` covers every case, is not known from the text.
    case "while_statement":
    case "for_statement":
    case "match_statement":
      return true;
    case "assert_statement":
      return statement.namedChildren[0]?.type === "false";
    case "expression_statement":
      return neverReturns(statement.namedChildren[0]);
    default:
      return false;
  }
}

function lastBlock(clause: SyntaxNode): SyntaxNode | undefined {
  const blocks = clause.namedChildren.filter((c) => c.type === "block");
  return blocks[blocks.length - 1];
}

/** Calls whose name says they end the program or raise: `sys.exit(1)`, `self.fail(...)`, `self._raise_error(...)`. */
function neverReturns(expression: SyntaxNode | undefined): boolean {
  if (expression?.type !== "call") return false;
  const fn = expression.childForFieldName("function");
  const name = fn?.type === "attribute" ? fn.childForFieldName("attribute")?.text : fn?.type === "identifier" ? fn.text : undefined;
  return name !== undefined && /^_*(exit|fail|abort)$|^_*raise_(?!for_status)/.test(name);
}

/** Whether a body does nothing but hold a place: a docstring, `pass` or `...`. */
export function isPlaceholder(block: SyntaxNode | null | undefined): boolean {
  if (!block) return true;
  return block.namedChildren.every(
    (statement) =>
      statement.type === "comment" ||
      statement.type === "pass_statement" ||
      (statement.type === "expression_statement" && statement.namedChildCount === 1 && ["string", "concatenated_string", "ellipsis"].includes(statement.namedChildren[0].type)),
  );
}
