import { removeArgument, replaceNode, wholeLines } from "../fixes/edits";
import { SyntaxNode } from "../syntax/parser";
import { PYTHON_KEYWORDS } from "../syntax/definitionHeaders";
import { Rule } from "./rule";
import { FunctionInfo, Parameter, SemanticModel } from "../airflow/model";
import { callArguments, plainString, unparenthesize, variableReferences } from "../syntax/nodes";
import { Fix, TextEdit } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for task functions (`@task` functions and `python_callable`s of `PythonOperator`) that
 * declare an `asset_state_store` parameter together with a `**context` (or any `**kwargs`) parameter.
 *
 * ## Why is this bad?
 * Airflow calls the task with every context key as a keyword argument, so Python binds the store to
 * the `asset_state_store` parameter and puts only the *other* keys into `**context`. The task still
 * gets its store, but the context dictionary silently lacks it: `context["asset_state_store"]` raises
 * `KeyError`, `context.get("asset_state_store")` returns `None`, and a helper that is handed `context`
 * does not find the store either. The guidance is to declare `asset_state_store` as a named
 * parameter and not to combine it with `**context`; naming the context keys the task uses keeps one
 * way in for each of them.
 *
 * A task that reads the store through the dictionary fails, and gets a warning. Otherwise nothing
 * fails yet (the rule cannot see into helpers defined elsewhere that may be handed `context`), so the
 * finding is information that points at the guidance (information, not a hint, so that it shows in
 * the Problems panel and its counts). A severity set for AS201 in the settings applies to both.
 *
 * ## Example
 * ```python
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None, **context):
 *     ti = context["ti"]
 *     asset_state_store[ORDERS].set("watermark", context["ds"])
 *     print(ti.try_number)
 * ```
 *
 * ## Use instead
 * ```python
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None, ti=None, ds=None):
 *     asset_state_store[ORDERS].set("watermark", ds)
 *     print(ti.try_number)
 * ```
 *
 * ## Fix safety
 * The fix replaces `**context` with a `key=None` parameter for each context key the body reads
 * (`context["ds"]` and `context.get("ds")` become `ds`, an assignment `ti = context["ti"]` goes away),
 * or removes `**context` when the body never uses it. `None` is the only default TaskFlow accepts for
 * a parameter named after a context key. It is offered only when every use of `context`
 * is such a read with a literal key that is a valid parameter name and does not clash with another
 * name in the function; a `context.get(key, default)` with a default other than `None`, a write, or
 * `context` passed on whole leaves the diagnostic without an edit.
 *
 * The fix is unsafe: `**context` also swallowed keyword arguments the body never reads, and without
 * it a TaskFlow call such as `load(table="orders")` fails with `TypeError` when the DAG is parsed. A
 * key missing from the context now gives `None` where it raised `KeyError`.
 */
export const AS201: Rule = {
  code: "AS201",
  name: "asset-store-with-kwargs",
  summary: "`asset_state_store` parameter combined with `**context`: the store is missing from the context dictionary",
  defaultSeverity: "warning",
  category: "scope",
  fix: "unsafe",
  mayReport: ({ facts }) => facts.mentionsStore(["asset_state_store"]) && facts.includes("**"),
  scope: "function",
  check({ model, report, regions }) {
    for (const fn of model.functionsOverlapping(regions)) {
      if (!fn.task && fn.callableOf.length === 0) continue;
      const store = fn.parameters.find((p) => p.name === STORE && (p.kind === "positional" || p.kind === "keyword-only"));
      const splat = fn.parameters.find((p) => p.kind === "var-keyword");
      if (!store || !splat) continue;
      const body = fn.node.childForFieldName("body");
      const references = body ? variableReferences(body, splat.name) : [];
      const reads = contextReads(model, fn, splat, references);
      // Named in the message even when the fix is not offered: it is the line that fails.
      const storeRead = (reads ?? references.map(readThrough)).find((r) => r?.key === STORE);
      const name = splat.name;
      const message = storeRead
        ? `${codeSpan(storeRead.node.text)} ${storeRead.node.type === "subscript" ? "raises `KeyError`" : "returns `None`"} when the task runs: ${codeSpan(`**${name}`)} never holds the asset store. Airflow passes the store to the ${codeSpan(STORE)} parameter; use it, and declare the other context keys the task reads as parameters instead of ${codeSpan(`**${name}`)}.`
        : `${codeSpan(`**${name}`)} never holds the asset store: a helper handed ${codeSpan(name)} to reach it gets \`KeyError\`. Airflow passes the store to the ${codeSpan(STORE)} parameter, and the guidance asks for explicit parameters with it; declare the context keys the task reads (\`ds=None\`) instead of ${codeSpan(`**${name}`)}.`;
      // Without a read of the store through the dictionary nothing fails yet: information, not a warning.
      report({ node: splat.node, message, severity: storeRead ? undefined : "info", fix: reads ? explicitParametersFix(model, fn, splat, reads) : undefined });
    }
  },
};

const STORE = "asset_state_store";

/** `context["key"]`, `context.get("key")` or `context.get("key", None)`: the expressions the fix turns into `key`. */
interface ContextRead {
  node: SyntaxNode;
  key: string;
}

/**
 * Every use of the `**` parameter in the function's body (`references`) as a read of a literal key,
 * or undefined when some use is anything else (a write, `context` passed on or iterated, a computed
 * key, a `get` default).
 */
function contextReads(model: SemanticModel, fn: FunctionInfo, splat: Parameter, references: readonly SyntaxNode[]): ContextRead[] | undefined {
  const body = fn.node.childForFieldName("body");
  if (!body) return [];
  // `context` must mean the parameter everywhere in the body.
  if (fn.scope.own(splat.name)?.length !== 1 || bindsWithin(model, body, splat.name)) return undefined;
  const reads: ContextRead[] = [];
  for (const identifier of references) {
    const read = readThrough(identifier);
    if (!read) return undefined;
    reads.push(read);
  }
  return reads;
}

function readThrough(identifier: SyntaxNode): ContextRead | undefined {
  const parent = identifier.parent!;
  if (parent.type === "subscript" && parent.childForFieldName("value")?.id === identifier.id) {
    const index = parent.childrenForFieldName("subscript");
    const key = index.length === 1 ? plainString(index[0]) : undefined;
    return key !== undefined && !isAssignmentTarget(parent) ? { node: parent, key } : undefined;
  }
  if (parent.type === "attribute" && parent.childForFieldName("attribute")?.text === "get") {
    const call = parent.parent;
    if (call?.type !== "call" || call.childForFieldName("function")?.id !== parent.id) return undefined;
    const args = callArguments(call);
    if (args.hasSplat || args.keywords.size > 0 || args.positional.length < 1 || args.positional.length > 2) return undefined;
    // `context.get("k", default)` is not `k if k is not None else default` when the key holds None.
    if (args.positional.length === 2 && unparenthesize(args.positional[1]).type !== "none") return undefined;
    const key = plainString(args.positional[0]);
    return key !== undefined ? { node: call, key } : undefined;
  }
  return undefined;
}

function explicitParametersFix(model: SemanticModel, fn: FunctionInfo, splat: Parameter, reads: ContextRead[]): Fix | undefined {
  const keys = [...new Set(reads.map((r) => r.key))];
  if (!keys.every((key) => canBecomeParameter(model, fn, splat, key, reads))) return undefined;
  const declared = new Set(fn.parameters.map((p) => p.name));
  const added = keys.filter((key) => !declared.has(key));
  const edits: TextEdit[] = [];
  const removed = redundantAssignments(model.text, reads);
  for (const read of reads) {
    if (!removed.some((statement) => read.node.startIndex >= statement.start && read.node.endIndex <= statement.end)) {
      edits.push(replaceNode(read.node, read.key));
    }
  }
  edits.push(...removed);
  const parameters = added.map((key) => `${key}=None`).join(", ");
  edits.push(added.length > 0 ? replaceNode(splat.node, parameters) : removeArgument(splat.node));
  return {
    title: added.length > 0 ? `Replace ${codeSpan(`**${splat.name}`)} with ${codeSpan(parameters)}` : `Remove ${codeSpan(`**${splat.name}`)}`,
    safe: false,
    kind: "quickfix",
    edits,
  };
}

/** Whether `context["key"]` can become a parameter `key` without changing what any name in the function means. */
function canBecomeParameter(model: SemanticModel, fn: FunctionInfo, splat: Parameter, key: string, reads: ContextRead[]): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || PYTHON_KEYWORDS.has(key) || key === splat.name) return false;
  const body = fn.node.childForFieldName("body")!;
  if (bindsWithin(model, body, key)) return false;
  const bindings = fn.scope.own(key);
  if (!bindings) {
    // A name the body takes from an enclosing scope or the builtins would be shadowed by the new parameter.
    return variableReferences(body, key).length === 0;
  }
  // Already a parameter, or assigned only from the context itself (`ti = context["ti"]`).
  const readNodes = new Set(reads.filter((r) => r.key === key).map((r) => r.node.id));
  return bindings.every(
    (b) =>
      (b.kind === "parameter" && fn.parameters.some((p) => p.name === key && (p.kind === "positional" || p.kind === "keyword-only"))) ||
      (b.kind === "assign" && b.value !== undefined && readNodes.has(unparenthesize(b.value).id)),
  );
}

/**
 * `ti = context["ti"]` statements that become `ti = ti` after the rewrite: deleted with their line,
 * as long as each one stands alone on its lines and its block keeps at least one statement.
 */
function redundantAssignments(text: string, reads: ContextRead[]): TextEdit[] {
  const byBlock = new Map<number, { block: SyntaxNode; statements: SyntaxNode[] }>();
  for (const read of reads) {
    const assignment = read.node.parent;
    if (assignment?.type !== "assignment" || assignment.childForFieldName("right")?.id !== read.node.id) continue;
    if (assignment.childForFieldName("type") || assignment.childForFieldName("left")?.text !== read.key) continue;
    const statement = assignment.parent;
    const block = statement?.parent;
    if (statement?.type !== "expression_statement" || statement.namedChildCount !== 1 || block?.type !== "block") continue;
    const entry = byBlock.get(block.id) ?? { block, statements: [] };
    entry.statements.push(statement);
    byBlock.set(block.id, entry);
  }
  const edits: TextEdit[] = [];
  for (const { block, statements } of byBlock.values()) {
    let remaining = block.namedChildren.filter((c) => c.type !== "comment").length;
    for (const statement of statements) {
      const line = wholeLines(text, statement, "alone");
      if (!line || remaining <= 1) continue;
      edits.push({ start: line.start, end: line.end, newText: "" });
      remaining--;
    }
  }
  return edits;
}

/**
 * Whether a scope nested in `node` binds `name` (a nested function or class, a lambda parameter, a
 * comprehension variable), so that `name` there would not mean the function's own variable.
 */
function bindsWithin(model: SemanticModel, node: SyntaxNode, name: string): boolean {
  // Scopes carry their body offsets as plain numbers; reading node offsets would cross into the
  // native binding for every function of the file, for every task checked.
  const start = node.startIndex;
  const end = node.endIndex;
  // Strictly after the start: the function whose body this is is not one of its nested scopes.
  if (model.scopesWithin(start, end).some((scope) => scope.own(name) !== undefined)) return true;
  // A lambda holds the word `lambda` and a comprehension's clause the word `for`: the text says
  // cheaply whether the tree is worth a walk.
  const text = model.text.slice(start, end);
  if (text.includes("lambda")) {
    for (const lambda of node.descendantsOfType("lambda")) {
    const parameters = lambda.childForFieldName("parameters");
      if (parameters?.descendantsOfType("identifier").some((id) => id.text === name)) return true;
    }
  }
  if (text.includes("for")) {
    for (const clause of node.descendantsOfType("for_in_clause")) {
      if (clause.childForFieldName("left")?.descendantsOfType("identifier").some((id) => id.text === name)) return true;
      if (clause.childForFieldName("left")?.text === name) return true;
    }
  }
  return false;
}

/** Whether an expression is written to (`x[k] = v`, `x[k] += v`, `del x[k]`, `for x[k] in ...`). */
function isAssignmentTarget(node: SyntaxNode): boolean {
  let current = node;
  let parent = node.parent;
  while (parent && ["pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list", "parenthesized_expression", "list_splat_pattern"].includes(parent.type)) {
    current = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if (parent.type === "assignment" || parent.type === "augmented_assignment" || parent.type === "for_statement" || parent.type === "for_in_clause") {
    return parent.childForFieldName("left")?.id === current.id;
  }
  return parent.type === "delete_statement" || parent.type === "as_pattern_target";
}
