import { Rule } from "./rule";
import { mentionsStore } from "./textGates";
import { mappingOf } from "../airflow/taskMapping";

/**
 * ## What it does
 * Checks for `clear()` called on the task state store inside a mapped task (a TaskFlow task run
 * with `.expand(...)`, `.expand_kwargs(...)` or `.partial(...).expand(...)`, or a `python_callable`
 * run by `PythonOperator.partial(...).expand(...)`), without an explicit `all_map_indices=`.
 *
 * ## Why is this bad?
 * Each map index of a mapped task has its own task state store. `clear()` deletes the keys of the
 * current index only; the other indices keep theirs. A `clear()` meant as a reset of the whole task
 * silently leaves most of its state behind. This is reported as information: cleaning up after
 * one's own index is a valid use, and saying so with `all_map_indices=False` silences the rule.
 *
 * ## Example
 * ```python
 * @task
 * def ingest(partition_id, task_state_store=None):
 *     task_state_store.clear()  # meant to reset every partition's cursor
 *     ...
 *
 *
 * ingest.expand(partition_id=[0, 1, 2, 3])
 * ```
 *
 * ## Use instead
 * Clear every index once, after all of them have finished, from a downstream task through the CLI
 * or the core REST API (`DELETE /api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/ingest/state-store?all_map_indices=true`).
 * When each index only cleans up after itself, say so:
 * ```python
 * @task
 * def ingest(partition_id, task_state_store=None):
 *     ...
 *     task_state_store.clear(all_map_indices=False)  # this partition's keys only
 *
 *
 * ingest.expand(partition_id=[0, 1, 2, 3])
 * ```
 *
 * ## Fix safety
 * There is no fix: whether one index or all of them should be cleared, and from where, is the
 * author's decision.
 */
export const AS205: Rule = {
  code: "AS205",
  name: "mapped-task-store-clear",
  summary: "`clear()` on the task state store of a mapped task clears only the current map index",
  defaultSeverity: "info",
  category: "scope",
  fix: "none",
  mayReport: ({ text }) => mentionsStore(text, ["task_state_store"]) && text.includes(".expand") && text.includes("clear"),
  check({ model, report }) {
    for (const call of model.storeCalls) {
      if (call.store.kind !== "task" || call.method !== "clear" || !call.function) continue;
      // `clear(all_map_indices=...)` (or any argument) states which indices are meant.
      if (call.args.positional.length > 0 || call.args.keywords.size > 0 || call.args.hasSplat) continue;
      if (!mappingOf(model, call.function)) continue;
      report({
        node: call.node,
        message:
          "In a mapped task `clear()` deletes only this map index's keys, not the other indices'. " +
          "To reset every index, clear them once from a downstream task (CLI or core REST API with `all_map_indices=true`); to mean only this index, write `clear(all_map_indices=False)`.",
      });
    }
  },
};
