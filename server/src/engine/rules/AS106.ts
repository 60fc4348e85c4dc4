import { replaceNode } from "../fixes/edits";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { FunctionInfo, SemanticModel } from "../airflow/model";
import { callArguments, plainString, unparenthesize } from "../syntax/nodes";
import { Fix, OffsetRange } from "../types";
import { codeSpan } from "../syntax/markdown";

/** Context keys from AIP-103's development that never shipped, and the names Airflow 3.3 uses. */
const SHIPPED_NAME: Readonly<Record<string, string>> = {
  task_state: "task_state_store",
  task_store: "task_state_store",
  asset_state: "asset_state_store",
  asset_store: "asset_state_store",
};

/** Each old name as a string's whole content: `"task_state"`, `'task_state'`, ... */
const QUOTED_OLD_NAMES = Object.keys(SHIPPED_NAME).flatMap((name) => [`"${name}"`, `'${name}'`]);

/** Operator methods that Airflow calls with the task's context as their `context` parameter. */
const CONTEXT_METHODS = new Set(["execute", "pre_execute", "post_execute", "execute_complete", "poke", "submit_job", "get_job_status", "poll_until_complete", "get_job_result"]);
const GET_CURRENT_CONTEXT = /^airflow\.(.+\.)?get_current_context$/;

/**
 * ## What it does
 * Checks for the task context read under a name the state stores had during their development but
 * that never shipped: `context["task_state"]`, `context["task_store"]`, `context["asset_state"]`,
 * `context["asset_store"]`, and the same keys read with `context.get(...)`. A context is the `**`
 * parameter of a TaskFlow task or of a `python_callable` (`**context`, `**kwargs`), the `context`
 * parameter of an operator's `execute` (also `pre_execute`, `post_execute`, `execute_complete`,
 * `poke` and the `ResumableJobMixin` methods), `get_current_context()`, or a name bound once to one
 * of these.
 *
 * ## Why is this bad?
 * Airflow 3.3 puts the stores in the context as `task_state_store` and `asset_state_store` only.
 * `context["task_state"]` raises `KeyError` when the task runs, and `context.get("task_state")`
 * returns `None`, so the first store call on it fails with `AttributeError`: code copied from early
 * AIP-103 drafts or blog posts never reaches the store.
 *
 * ## Example
 * ```python
 * @task
 * def export(**context):
 *     store = context["task_state"]
 *     page = store.get("page", default=0)
 * ```
 *
 * ## Use instead
 * ```python
 * @task
 * def export(**context):
 *     store = context["task_state_store"]
 *     page = store.get("page", default=0)
 * ```
 *
 * ## Fix safety
 * The fix renames the key to `task_state_store` or `asset_state_store`. For a subscript it is safe:
 * the original always raises `KeyError`, so no working path can depend on it. For `.get(...)` it is
 * unsafe: the original returns `None` (or the given default), and code that checks for that
 * (`if store:`) takes another branch once the store is found.
 */
export const AS106: Rule = {
  code: "AS106",
  name: "unshipped-context-key",
  summary: "Context key from the stores' development that never shipped (`task_state`, `asset_store`, ...): KeyError on Airflow 3.3",
  defaultSeverity: "error",
  category: "scope",
  fix: "safe or unsafe",
  // `oldNameContents` needs one of the names between two quotes of the same kind. Any file that
  // names a store spells `task_state` or `asset_state`, so the bare names would pass nearly all.
  mayReport: ({ facts }) => facts.mentionsAny(QUOTED_OLD_NAMES),
  scope: "expression",
  check({ model, text, report, regions }) {
    const reads = oldKeyReads(model, text, regions);
    if (reads.subscripts.length === 0 && reads.getCalls.length === 0) return;
    const subscripts = reads.subscripts;
    // A function that first writes `context["task_state"] = ...` can read it back.
    const writtenWhere = (context: SyntaxNode, name: string) => `${model.functionOf(context)?.node.id ?? "module"}:${context.text}:${name}`;
    const written = new Set(subscripts.filter(isWritten).map((w) => writtenWhere(w.childForFieldName("value")!, plainString(w.childForFieldName("subscript")) ?? "")));
    for (const read of subscripts) {
      const key = read.childForFieldName("subscript")!;
      const oldName = plainString(key);
      const context = read.childForFieldName("value")!;
      if (!oldName || read.childrenForFieldName("subscript").length !== 1 || isWritten(read) || written.has(writtenWhere(context, oldName))) continue;
      if (!isContext(model, context)) continue;
      const newName = SHIPPED_NAME[oldName];
      report({
        node: read,
        message: `${codeSpan(read.text)} raises \`KeyError\` on Airflow 3.3: ${codeSpan(oldName)} is a development name that never shipped. The store is ${codeSpan(`${context.text}["${newName}"]`)}.`,
        fix: renameKey(key, newName, true),
      });
    }
    for (const read of reads.getCalls) {
      const args = callArguments(read);
      const key = args.positional[0];
      const oldName = plainString(key);
      const context = read.childForFieldName("function")!.childForFieldName("object")!;
      if (!oldName || !key || written.has(writtenWhere(context, oldName)) || !isContext(model, context)) continue;
      const newName = SHIPPED_NAME[oldName];
      const returns = args.positional.length > 1 || args.keywords.has("default") ? "its default" : "`None`";
      report({
        node: read,
        message: `${codeSpan(read.text)} returns ${returns} on Airflow 3.3, so the store is never reached. ${codeSpan(oldName)} is a development name that never shipped; read ${codeSpan(`"${newName}"`)} instead.`,
        fix: renameKey(key, newName, false),
      });
    }
  },
};

/**
 * The reads of an old name as a context key: `x["task_state"]` (the subscripts) and
 * `x.get("task_state", ...)` (the calls), in document order, those inside `regions` when given.
 * Found from the names in the text, not by a query over the tree: a query visits every node of the
 * file (about 50 ms on a 10,000-line one), and the names are in few strings, if any.
 */
function oldKeyReads(model: SemanticModel, text: string, regions: readonly OffsetRange[] | undefined): { subscripts: SyntaxNode[]; getCalls: SyntaxNode[] } {
  // By id: a subscript of two old names (`x["task_state", "asset_store"]`) is found from each.
  const subscripts = new Map<number, SyntaxNode>();
  const getCalls = new Map<number, SyntaxNode>();
  for (const { start, end } of regions ?? [{ start: 0, end: text.length }]) {
    for (const content of oldNameContents(model, text, start, end)) {
      const string = content.parent;
      const holder = string?.parent;
      if (string?.type !== "string" || !holder) continue;
      // A read that reaches past the region is another region's, or no region's.
      const inside = (read: SyntaxNode) => read.startIndex >= start && read.endIndex <= end;
      if (holder.type === "subscript") {
        if (holder.childrenForFieldName("subscript").some((index) => index.id === string.id) && inside(holder)) subscripts.set(holder.id, holder);
      } else if (holder.type === "argument_list" && holder.firstNamedChild?.id === string.id) {
        const call = holder.parent;
        const callee = call?.type === "call" ? call.childForFieldName("function") : null;
        if (call && callee?.type === "attribute" && callee.childForFieldName("attribute")?.text === "get" && inside(call)) getCalls.set(call.id, call);
      }
    }
  }
  const inOrder = (a: SyntaxNode, b: SyntaxNode) => a.startIndex - b.startIndex;
  return { subscripts: [...subscripts.values()].sort(inOrder), getCalls: [...getCalls.values()].sort(inOrder) };
}

/**
 * The string contents between `from` and `to` that are exactly one of the old names. A string's
 * content is exactly the name only between two quotes: `task_state` in `task_state_store` is passed
 * over. Searched from the names' stems (`task_st`, `asset_st`): a regular expression with the four
 * names scanned the text ten times slower, on every keystroke of a 20,000-line DAG.
 */
function oldNameContents(model: SemanticModel, text: string, from: number, to: number): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (const stem of OLD_NAME_STEMS) {
    for (let at = text.indexOf(stem, from); at >= 0 && at < to; at = text.indexOf(stem, at + stem.length)) {
      const quote = text.charCodeAt(at - 1);
      if (quote !== 34 /* " */ && quote !== 39 /* ' */) continue;
      // Each name is its stem and three letters more.
      const end = at + stem.length + 3;
      if (!Object.hasOwn(SHIPPED_NAME, text.slice(at, end)) || text.charCodeAt(end) !== quote) continue;
      // The smallest node spanning the name is the string's content exactly when the content is the name.
      const node = model.root.descendantForIndex(at, end);
      if (node.type === "string_content" && node.startIndex === at && node.endIndex === end) found.push(node);
    }
  }
  return found;
}

/** The old names without their last three letters: `task_st` (`task_state`, `task_store`), `asset_st`. */
const OLD_NAME_STEMS = [...new Set(Object.keys(SHIPPED_NAME).map((name) => name.slice(0, -3)))];

/** Replaces the key's text inside its quotes, so the quote style stays. */
function renameKey(key: SyntaxNode, newName: string, safe: boolean): Fix | undefined {
  const content = key.namedChildren.find((c) => c.type === "string_content");
  if (!content) return undefined;
  return { title: `Use ${codeSpan(newName)}`, safe, kind: "quickfix", edits: [replaceNode(content, newName)] };
}

/** `context["task_state"] = ...`: a write, after which the key exists. */
function isWritten(subscript: SyntaxNode): boolean {
  const parent = subscript.parent;
  return parent?.type === "assignment" && parent.childForFieldName("left")?.id === subscript.id;
}

/** Whether an expression certainly evaluates to the task's context. */
function isContext(model: SemanticModel, expression: SyntaxNode, depth = 0): boolean {
  const node = unparenthesize(expression);
  if (depth > 8) return false;
  if (node.type === "call") return GET_CURRENT_CONTEXT.test(model.callInfo(node).callee ?? "");
  if (node.type !== "identifier") return false;
  const binding = model.bindingOf(node);
  if (!binding) return false;
  if (binding.kind === "assign") return !!binding.value && isContext(model, binding.value, depth + 1);
  if (binding.kind !== "parameter") return false;
  const fn = functionWithScope(model, binding.scope);
  const parameter = fn?.parameters.find((p) => p.nameNode.id === binding.target.id);
  if (!fn || !parameter) return false;
  if (parameter.kind === "var-keyword") return !!fn.task || fn.callableOf.length > 0;
  return parameter.name === "context" && parameter.kind === "positional" && !!fn.enclosingClass && CONTEXT_METHODS.has(fn.name);
}

function functionWithScope(model: SemanticModel, scope: FunctionInfo["scope"]): FunctionInfo | undefined {
  return model.functions.find((f) => f.scope === scope);
}
