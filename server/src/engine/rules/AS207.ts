import { Rule } from "./rule";
import { StoreCall } from "../airflow/model";
import { unparenthesize } from "../syntax/nodes";
import { SyntaxNode } from "../syntax/parser";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

/** Arguments whose value dropping them cannot take away: literals and names. */
const INERT = new Set(["string", "concatenated_string", "integer", "float", "true", "false", "none", "identifier"]);

const RESET_EVERY_INDEX =
  "Every map index is reset from outside the running tasks: the core REST API's `DELETE .../state-store?all_map_indices=true`, or the UI.";

/**
 * ## What it does
 * Checks for arguments given to the task state store's `clear(...)`: `clear(all_map_indices=True)`,
 * `clear(all_map_indices=False)`, or any other positional or keyword argument. A call that passes
 * only `*args` or `**kwargs` is left alone: they may be empty.
 *
 * ## Why is this bad?
 * In a task, `clear()` takes no arguments on Airflow 3.3: `all_map_indices` was removed from the
 * task context before 3.3.0 (apache/airflow PR 68880). Any argument raises `TypeError` when the task
 * runs, and the state the task meant to reset is left as it was. `clear()` clears this task
 * instance's keys, which in a mapped task are this map index's; every index is reset from outside
 * the running tasks, through the core REST API
 * (`DELETE /api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/state-store?all_map_indices=true`)
 * or the Airflow UI.
 *
 * ## Example
 * ```python
 * @task
 * def ingest(partition_id, task_state_store=None):
 *     ...
 *     task_state_store.clear(all_map_indices=False)
 * ```
 *
 * ## Use instead
 * ```python
 * @task
 * def ingest(partition_id, task_state_store=None):
 *     ...
 *     task_state_store.clear()
 * ```
 *
 * ## Fix safety
 * The fix drops the arguments. It is safe when they are literals or names and none of them is
 * `all_map_indices=` with a value other than `False`: the call then does what it was written for
 * (clearing this index) instead of raising. It is unsafe for `all_map_indices=True` (or a value the
 * file does not tell): the code meant to reset every index, and after the fix it clears only its
 * own; reset the others from outside the running tasks. It is unsafe too when an argument is an
 * expression whose evaluation the fix would remove (a call, for instance).
 */
export const AS207: Rule = {
  code: "AS207",
  name: "clear-with-arguments",
  summary: "Arguments given to the task state store's `clear()`, which takes none in a task (TypeError at run time)",
  defaultSeverity: "error",
  category: "scope",
  fix: "safe or unsafe",
  mayReport: ({ facts }) => facts.mentionsStore(["task_state_store"]) && facts.includes("clear"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.store.kind !== "task" || call.method !== "clear") continue;
      const args = writtenArguments(call);
      if (!args || (call.args.positional.length === 0 && call.args.keywords.size === 0)) continue;
      const allIndices = call.args.keywords.get("all_map_indices");
      const meansEveryIndex = allIndices !== undefined && model.resolveValue(allIndices.value).type !== "false";
      const what = meansEveryIndex ? codeSpan(allIndices!.node.text) : "this call";
      report({
        start: args.start,
        end: args.end,
        message: meansEveryIndex
          ? `\`clear()\` takes no arguments in a task: ${what} raises \`TypeError\` when the task runs. \`clear()\` clears only this map index. ${RESET_EVERY_INDEX}`
          : `\`clear()\` takes no arguments in a task: ${what} raises \`TypeError\` when the task runs. \`clear()\` alone clears this task instance's keys (in a mapped task, this map index's).`,
        fix: dropArguments(call, args.list, meansEveryIndex),
      });
    }
  },
};

/** The argument list and the span from its first argument to its last. */
function writtenArguments(call: StoreCall): { list: SyntaxNode; start: number; end: number } | undefined {
  const list = call.node.childForFieldName("arguments");
  const items = list?.namedChildren.filter((c) => c.type !== "comment") ?? [];
  if (!list || list.type !== "argument_list" || items.length === 0) return undefined;
  return { list, start: items[0].startIndex, end: items[items.length - 1].endIndex };
}

function dropArguments(call: StoreCall, list: SyntaxNode, meansEveryIndex: boolean): Fix {
  const values = [...call.args.positional, ...[...call.args.keywords.values()].map((k) => k.value)];
  const inert = !call.args.hasSplat && values.every((value) => INERT.has(unparenthesize(value).type));
  // Comments inside the parentheses would be dropped with the arguments.
  const commented = list.namedChildren.some((c) => c.type === "comment");
  return {
    title: "Drop the arguments: `clear()`",
    safe: inert && !meansEveryIndex && !commented,
    kind: "quickfix",
    edits: [{ start: list.startIndex, end: list.endIndex, newText: "()" }],
  };
}
