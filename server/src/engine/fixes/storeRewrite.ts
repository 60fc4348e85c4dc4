/**
 * Rewrites that move a task's state into a state store (the fixes of AS401–AS403): how a task body
 * reaches the store (a parameter Airflow fills, or a name bound from the context at the top of the
 * body), and a `Variable` call's counterpart on the store.
 */
import { docstringOf } from "./classBody";
import { insertAt, replaceNode } from "./edits";
import { appendItem } from "./lists";
import { SyntaxNode } from "../syntax/parser";
import { StoreKind, SemanticModel } from "../airflow/model";
import { indentationOf, stringLiteral, unparenthesize } from "../syntax/nodes";
import { TaskBody, VariableCall } from "../airflow/variablesAndXcom";
import { TextEdit } from "../types";

export const STORE_NAMES: Record<StoreKind, string> = { task: "task_state_store", asset: "asset_state_store" };

/** TaskFlow variants whose function runs in the worker with the live context (not in another interpreter or container). */
const IN_PROCESS_VARIANTS = new Set(["task", "task.python", "task.branch", "task.short_circuit", "task.sensor"]);

export interface StoreAccess {
  /** The name that holds the store in the task body. */
  name: string;
  /** What makes the name hold it: a new parameter, or a statement at the top of the body. */
  edits: TextEdit[];
}

/**
 * How code in `task` reaches the store of `kind` (un-indexed): a name that already holds it and is
 * bound before `firstUse`; else a new `task_state_store=None` parameter (TaskFlow and
 * `python_callable`, which Airflow fills by name), or `task_state_store = context["task_state_store"]`
 * at the top of a body that takes `**context` or is an operator's `execute(self, context)`.
 * Undefined when the name is already taken by something else, or the function runs outside the
 * worker's process (`@task.virtualenv`, `@task.docker`, ...).
 */
export function storeAccess(model: SemanticModel, task: TaskBody, kind: StoreKind, firstUse: SyntaxNode): StoreAccess | undefined {
  const { fn } = task;
  const name = STORE_NAMES[kind];
  for (const [bound, bindings] of fn.scope.bindings) {
    if (bindings.length !== 1) continue;
    const binding = bindings[0];
    // Airflow fills a parameter named after the store; `store = context["task_state_store"]` before the first use holds it too.
    if (binding.kind === "parameter" && bound === name && fn.parameters.some((p) => p.name === name && p.kind !== "var-keyword" && p.kind !== "var-positional")) return { name, edits: [] };
    if (binding.kind !== "assign" || binding.target.startIndex > firstUse.startIndex) continue;
    const store = model.storeReference(binding.target);
    if (store?.kind === kind && !store.indexed) return { name: bound, edits: [] };
  }
  if (fn.scope.lookup(name)) return undefined;
  if (task.kind === "taskflow" && !IN_PROCESS_VARIANTS.has(fn.task!.variant)) return undefined;
  const splat = fn.parameters.find((p) => p.kind === "var-keyword");
  const contextName = task.kind === "execute" ? (fn.parameters[1]?.kind === "positional" ? fn.parameters[1].name : undefined) : splat?.name;
  if (task.kind === "execute" || splat) {
    if (!contextName) return undefined;
    const edit = insertFirstStatement(model, fn.node, `${name} = ${contextName}["${name}"]`);
    return edit && { name, edits: [edit] };
  }
  const parameters = fn.node.childForFieldName("parameters");
  const edits = parameters ? appendItem(model, parameters, `${name}=None`) : undefined;
  return edits && { name, edits };
}

/**
 * Inserts `statement` as the first statement of a function's body, after its docstring and above
 * the comments that open the body, in the body's indentation. Undefined for a body written on the
 * `def` line.
 */
function insertFirstStatement(model: SemanticModel, fn: SyntaxNode, statement: string): TextEdit | undefined {
  const body = fn.childForFieldName("body");
  const colon = fn.children.find((c) => c.type === ":");
  if (!body || !colon || body.startPosition.row === colon.endPosition.row) return undefined;
  const docstring = docstringOf(body);
  const first = body.namedChildren.find((c) => c.type !== "comment" && c.id !== docstring?.id);
  if (!first) return undefined;
  const after = docstring?.endIndex ?? colon.endIndex;
  // tree-sitter may attach a comment that opens the body to the function rather than to the body.
  const comments = [...fn.children, ...body.children].filter((c) => c.type === "comment" && c.startIndex > after && c.startIndex < first.startIndex && c.startPosition.row > colon.endPosition.row);
  const opening = [...comments, first].sort((a, b) => a.startIndex - b.startIndex)[0];
  const eol = model.text.includes("\r\n") ? "\r\n" : "\n";
  return insertAt(opening.startIndex - opening.startPosition.column, `${indentationOf(first, model.text)}${statement}${eol}`);
}

/**
 * Whether the calls of one key agree on JSON: all with `deserialize_json=True` / `serialize_json=True`
 * (the store then holds the same JSON value), or all without (the Variable held strings).
 * Undefined when they mix or a flag is not a literal.
 */
export function jsonMode(calls: readonly VariableCall[]): boolean | undefined {
  const flags = calls.filter((c) => c.method !== "delete").map((c) => c.json);
  if (flags.some((f) => f === undefined)) return undefined;
  return flags.every((f) => f === flags[0]) ? flags[0] : undefined;
}

/**
 * The store counterpart of a `Variable` call, on `receiver` (`task_state_store`,
 * `asset_state_store[ORDERS]`):
 * - `Variable.get(k, default_var=d)` → `get(k, default=d)`, `deserialize_json=` dropped;
 * - `Variable.set(k, v)` → `set(k, str(v))`: a Variable holds the text of what it was given, so reads
 *   keep getting a string (unless `v` is certainly one already, or the calls use JSON, which the store
 *   holds natively: `set(k, v)`);
 * - `Variable.delete(k)` → `delete(k)`.
 */
export function storeCallFor(model: SemanticModel, call: VariableCall, receiver: string, json: boolean): TextEdit | undefined {
  if (!call.rewritable || !call.key) return undefined;
  const key = call.key.text;
  switch (call.method) {
    case "get":
      return replaceNode(call.call.node, `${receiver}.get(${key}${call.defaultValue ? `, default=${call.defaultValue.text}` : ""})`);
    case "set": {
      const value = call.value!;
      const text = json || isCertainlyString(model, value) ? value.text : `str(${value.text})`;
      return replaceNode(call.call.node, `${receiver}.set(${key}, ${text})`);
    }
    case "delete":
      return replaceNode(call.call.node, `${receiver}.delete(${key})`);
  }
}

const STRING_METHODS = new Set(["isoformat", "strftime", "format", "join", "upper", "lower", "strip", "lstrip", "rstrip", "hexdigest", "to_iso8601_string", "to_date_string", "to_datetime_string"]);
const STRING_FUNCTIONS = new Set(["str", "repr", "json.dumps"]);

/** Whether an expression certainly evaluates to a `str`: a literal, an f-string, `str(...)`, `x.isoformat()`, or a name bound once to one. */
export function isCertainlyString(model: SemanticModel, expression: SyntaxNode, depth = 0): boolean {
  const node = unparenthesize(expression);
  if (depth > 8) return false;
  const literal = stringLiteral(node);
  if (literal) return !literal.isBytes;
  switch (node.type) {
    case "identifier": {
      const binding = model.bindingOf(node);
      return binding?.kind === "assign" && binding.value !== undefined && isCertainlyString(model, binding.value, depth + 1);
    }
    case "call": {
      const fn = node.childForFieldName("function");
      const name = model.qualifiedName(fn);
      if (name && STRING_FUNCTIONS.has(name)) return true;
      return fn?.type === "attribute" && STRING_METHODS.has(fn.childForFieldName("attribute")!.text);
    }
    case "binary_operator": {
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      return node.childForFieldName("operator")?.type === "+" && !!left && !!right && isCertainlyString(model, left, depth + 1) && isCertainlyString(model, right, depth + 1);
    }
    default:
      return false;
  }
}
