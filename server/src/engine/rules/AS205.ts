import { Rule } from "./rule";
import { mappingOf } from "../airflow/taskMapping";

/**
 * ## What it does
 * Checks for `clear()` called on the task state store inside a mapped task (a TaskFlow task run
 * with `.expand(...)`, `.expand_kwargs(...)` or `.partial(...).expand(...)`, or a `python_callable`
 * run by `PythonOperator.partial(...).expand(...)`). A `clear(...)` with arguments is AS207's: it
 * raises `TypeError`.
 *
 * ## Why is this bad?
 * Each map index of a mapped task has its own task state store. `clear()` deletes the keys of the
 * current index only; the other indices keep theirs. A `clear()` meant as a reset of the whole task
 * silently leaves most of its state behind. In a task there is no way to clear the other indices:
 * `clear()` takes no arguments on Airflow 3.3 (`all_map_indices` was removed from the task context
 * before 3.3.0, so `clear(all_map_indices=...)` raises `TypeError`). This is reported as
 * information: cleaning up after one's own index is a valid use.
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
 * Reset every index from outside the running tasks, once all of them have finished: the core REST
 * API (`DELETE /api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/ingest/state-store?all_map_indices=true`)
 * or the Airflow UI (task instance → Storage → Task State Store → clear). When each index only
 * cleans up after itself, say so with a `# noqa` comment:
 * ```python
 * @task
 * def ingest(partition_id, task_state_store=None):
 *     ...
 *     task_state_store.clear()  # noqa: AS205 - this partition's keys only
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
  mayReport: ({ facts }) => facts.mentionsStore(["task_state_store"]) && facts.includes(".expand") && facts.includes("clear"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.store.kind !== "task" || call.method !== "clear" || !call.function) continue;
      // A `clear(...)` with arguments raises `TypeError` (AS207).
      if (call.args.positional.length > 0 || call.args.keywords.size > 0 || call.args.hasSplat) continue;
      if (!mappingOf(model, call.function)) continue;
      report({
        node: call.node,
        message:
          "In a mapped task `clear()` deletes only this map index's keys: the other indices keep theirs. " +
          "Every index is reset from outside the running tasks (core REST API `DELETE .../state-store?all_map_indices=true`, or the UI); if only this index is meant, add `# noqa: AS205`.",
      });
    }
  },
};
