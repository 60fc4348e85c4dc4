import { replaceNode } from "../fixes/edits";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { mappingOf, TaskMapping } from "../airflow/taskMapping";
import { FunctionInfo, SemanticModel, StoreCall } from "../airflow/model";
import { plainString, stringLiteral, unparenthesize } from "../syntax/nodes";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a constant key — a string literal, or a name bound once to one — given to an asset
 * state store's `set` or `delete` (or `aset` / `adelete`) inside a mapped task: a TaskFlow task run with `.expand(...)`,
 * `.expand_kwargs(...)` or `.partial(...).expand(...)`, or a `python_callable` run by
 * `PythonOperator.partial(...).expand(...)`.
 *
 * Writes that only some indices make are left alone: the rule is silent when an `if` in the task
 * tests a mapped parameter or `map_index` before the write (`if partition_id == 0:`).
 *
 * ## Why is this bad?
 * Each map index has its own task state store, but an asset's store is shared by every task that
 * declares the asset — and so by every index of a mapped task. When all indices write the same key,
 * they overwrite each other: the last one to finish wins and the others' values are lost, in an
 * order that changes from run to run.
 *
 * ## Example
 * ```python
 * @task(outlets=[EVENTS])
 * def ingest(partition_id, asset_state_store=None):
 *     asset_state_store[EVENTS].set("offset", read_offset(partition_id))
 *
 *
 * ingest.expand(partition_id=[0, 1, 2, 3])
 * ```
 *
 * ## Use instead
 * ```python
 * @task(outlets=[EVENTS])
 * def ingest(partition_id, asset_state_store=None):
 *     asset_state_store[EVENTS].set(f"offset_{partition_id}", read_offset(partition_id))
 *
 *
 * ingest.expand(partition_id=[0, 1, 2, 3])
 * ```
 * Or let a single index (or a downstream task) write the shared key.
 *
 * ## Fix safety
 * The fix suffixes the key with the mapped parameter in an f-string (`"offset"` becomes
 * `f"offset_{partition_id}"`, a name `OFFSET_KEY` becomes `f"{OFFSET_KEY}_{partition_id}"`). It is
 * offered only when exactly one parameter is mapped and the task declares it. It is unsafe: the key
 * changes, so values already stored under the old key are no longer found, and readers of the old
 * key (other tasks, other DAGs) must be changed too.
 */
export const AS204: Rule = {
  code: "AS204",
  name: "shared-key-in-mapped-task",
  summary: "Constant asset store key written by every index of a mapped task: the last writer wins",
  defaultSeverity: "warning",
  category: "scope",
  fix: "unsafe",
  mayReport: ({ facts }) => facts.mentionsStore(["asset_state_store"]) && facts.includes(".expand") && facts.mentionsAny(["set", "delete"]),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.store.kind !== "asset" || (call.method !== "set" && call.method !== "delete") || !call.key || !call.function) continue;
      const mapping = mappingOf(model, call.function);
      if (!mapping) continue;
      const key = plainString(model.resolveValue(call.key));
      if (key === undefined || onlySomeIndicesWrite(model, call, call.function, mapping)) continue;
      const parameter = mappedParameter(model, call, call.function, mapping);
      const fix = parameter ? perIndexKeyFix(call.key, parameter) : undefined;
      // Without a fix, the message still shows the shape of a per-index key.
      const example = mapping.mappedParameters?.find((p) => call.function!.parameters.some((q) => q.name === p)) ?? "<mapped parameter>";
      const suggestion = fix ? fix.newKey : `f"${escapeBraces(key)}_{${example}}"`;
      report({
        node: call.key,
        message:
          `Every index of this mapped task ${call.method === "set" ? "writes" : "deletes"} the asset store key "${key}": the last writer wins. ` +
          `The indices share the asset's store; give each index its own key (${codeSpan(suggestion)}) or let one index write it.`,
        fix: fix?.fix,
      });
    }
  },
};

/** The one mapped parameter the key can be suffixed with: declared by the task and meaning the parameter where the key is written. */
function mappedParameter(model: SemanticModel, call: StoreCall, fn: FunctionInfo, mapping: TaskMapping): string | undefined {
  const mapped = mapping.mappedParameters;
  if (mapped?.length !== 1) return undefined;
  const binding = model.scopeOf(call.key!).unique(mapped[0]);
  return binding?.kind === "parameter" && binding.scope === fn.scope ? mapped[0] : undefined;
}

/**
 * Whether an `if` of the task tests a mapped parameter (any parameter when they are not known) or
 * `map_index` before the write or around it: then only some indices write (`if partition_id == 0:`,
 * or `if map_index != 0: return`).
 */
function onlySomeIndicesWrite(model: SemanticModel, call: StoreCall, fn: FunctionInfo, mapping: TaskMapping): boolean {
  const body = fn.node.childForFieldName("body");
  if (!body) return false;
  const guards = new Set(mapping.mappedParameters ?? fn.parameters.map((p) => p.name));
  guards.add("map_index");
  for (const statement of body.descendantsOfType("if_statement")) {
    if (statement.startIndex > call.node.startIndex) break;
    const condition = statement.childForFieldName("condition");
    if (!condition) continue;
    const names = condition.type === "identifier" ? [condition] : condition.descendantsOfType("identifier");
    if (names.some((n) => guards.has(n.text))) return true;
  }
  return false;
}

function perIndexKeyFix(key: SyntaxNode, parameter: string): { newKey: string; fix: Fix } | undefined {
  const node = unparenthesize(key);
  let text: string | undefined;
  if (node.type === "identifier") text = `f"{${node.text}}_{${parameter}}"`;
  else if (node.type === "string") {
    const literal = stringLiteral(node)!;
    const start = node.firstChild!.text;
    const quote = start.slice(literal.prefix.length);
    // `u` cannot be combined with `f`; `r` can.
    const prefix = start.slice(0, literal.prefix.length).replace(/u/i, "");
    text = `${prefix}f${quote}${escapeBraces(literal.value)}_{${parameter}}${quote}`;
  }
  if (!text) return undefined;
  return { newKey: text, fix: { title: `Use the per-index key ${codeSpan(text)}`, safe: false, kind: "quickfix", edits: [replaceNode(key, text)] } };
}

function escapeBraces(text: string): string {
  return text.replace(/[{}]/g, (brace) => brace + brace);
}
