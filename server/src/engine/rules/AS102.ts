import { replaceNode } from "../fixes/edits";
import { Rule } from "./rule";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for `None` given as the value of a task or asset state store's `set` (or the asset store's
 * async `aset`), directly or through a name bound to `None` in the same function.
 *
 * ## Why is this bad?
 * The store refuses `None`: `set` raises `ValueError("Cannot set value as None")` at run time, so the
 * task fails on the line that was meant to record its progress. To forget a key, delete it.
 *
 * ## Example
 * ```python
 * @task
 * def load(task_state_store=None):
 *     task_state_store.set("cursor", None)
 * ```
 *
 * ## Use instead
 * ```python
 * @task
 * def load(task_state_store=None):
 *     task_state_store.delete("cursor")
 * ```
 *
 * ## Fix safety
 * The fix replaces the call with `delete(key)`. It is unsafe: the line no longer raises, and a
 * later `get(key)` returns its default instead of failing, which is usually what was meant but is a
 * change of behaviour.
 */
export const AS102: Rule = {
  code: "AS102",
  name: "none-value",
  summary: "`None` stored as a value (ValueError at run time)",
  defaultSeverity: "error",
  category: "values",
  fix: "unsafe",
  mayReport: ({ facts }) => facts.mentionsStore() && facts.includes("set") && facts.includes("None"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.method !== "set" || !call.value || model.resolveValue(call.value).type !== "none") continue;
      const receiver = call.node.childForFieldName("function")!.childForFieldName("object")!;
      // Keep `key=` when the key was passed by keyword.
      const keyArgument = call.args.positional[0] ?? call.args.keywords.get("key")?.node;
      // `await store.aset(k, None)` becomes `await store.adelete(k)`.
      const deletion = keyArgument && `${receiver.text}.${call.async ? "adelete" : "delete"}(${keyArgument.text})`;
      report({
        node: call.value,
        message: "Storing `None` raises `ValueError` at run time; delete the key instead to forget it.",
        fix: deletion
          ? {
              title: `Replace with ${codeSpan(deletion)}`,
              safe: false,
              kind: "quickfix",
              edits: [replaceNode(call.node, deletion)],
            }
          : undefined,
      });
    }
  },
};
