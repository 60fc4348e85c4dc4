import { Rule } from "./rule";
import { SemanticModel } from "../airflow/model";
import { assetHome, laterCalls, variableFindings, VariableState } from "../airflow/variablesAndXcom";
import { jsonMode, storeAccess, storeCallFor } from "../fixes/storeRewrite";
import { Fix, TextEdit } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a task that keeps its own state in an Airflow Variable: `Variable.get` and
 * `Variable.set` of the same key (a literal, or a name bound once) in one task body — a `@task`
 * function, a `python_callable`, or an operator's `execute` — with nothing else in the file using the
 * key. Each task and key is reported once, on its first call, with the key's other calls as related
 * locations (shown with the finding in the editor, "also at lines …" in the CLI).
 *
 * A Variable only read (configuration), one only ever set to a literal constant
 * (`Variable.set("env", "prod")`, a number, `True`, a list or dict of constants: configuration the
 * task writes, even when it reads it back), one written by a task and read by another or by a
 * template (`{{ var.value.key }}`), and Variables read at the top level of the DAG file are left
 * alone. Keys that look like a watermark, or belong to the one asset the task produces, are
 * AS402's; a job id kept for reconnecting is AS404's.
 *
 * ## Why is this bad?
 * A Variable is global: one value for every run of every DAG. Two runs of the DAG at once (a backfill,
 * a manual trigger, `max_active_runs > 1`) overwrite each other's progress, and a cleared or new run
 * starts from whatever the last run left instead of from the beginning. `task_state_store` is scoped to
 * the task instance (DAG, run, task, map index) and is kept across its retries, which is what
 * checkpointing progress needs.
 *
 * ## Example
 * From `examples/dags/variables_before.py`:
 * ```python
 * @task(retries=3)
 * def export_invoices():
 *     warehouse = WarehouseClient()
 *     cursor = int(Variable.get("invoice_export_cursor", default_var=0))
 *     for page in warehouse.invoice_pages_after(cursor):
 *         warehouse.upload_invoices(page)
 *         cursor = page.last_id
 *         Variable.set("invoice_export_cursor", cursor)
 * ```
 *
 * ## Use instead
 * The rewrite's result, as in `examples/dags/variables_after.py`:
 * ```python
 * @task(retries=3)
 * def export_invoices(task_state_store=None):
 *     warehouse = WarehouseClient()
 *     cursor = int(task_state_store.get("invoice_export_cursor", default=0))
 *     for page in warehouse.invoice_pages_after(cursor):
 *         warehouse.upload_invoices(page)
 *         cursor = page.last_id
 *         task_state_store.set("invoice_export_cursor", str(cursor))
 * ```
 *
 * ## Fix safety
 * The rewrite moves every `Variable` call of the key in the task to `task_state_store` in one edit:
 * `Variable.get(k, default_var=d)` becomes `task_state_store.get(k, default=d)`, `Variable.set(k, v)`
 * becomes `task_state_store.set(k, str(v))` — a Variable holds the text of what it is given, so reads
 * keep getting a string; the `str(...)` is left out when `v` is certainly a string, and when the calls
 * use `serialize_json=True` / `deserialize_json=True` the store holds the JSON value itself. The store
 * is reached through a new `task_state_store=None` parameter of a `@task` function or
 * `python_callable`, or `task_state_store = context["task_state_store"]` at the top of a body that
 * takes `**context` or of `execute`.
 *
 * It is an unsafe refactoring, never applied by `--fix` or fix-all: the value now starts empty in
 * every run (the Variable's current value is not carried over, so state that must survive from one
 * run to the next belongs in the asset store instead), `get` without a default returns `None` where
 * `Variable.get` raised `KeyError`, other DAGs that read the Variable no longer see it change, and
 * a `description=` given to `Variable.set` is dropped. It is not offered when the calls mix JSON
 * and plain values, pass arguments the store has no counterpart for, or when the function runs
 * outside the worker (`@task.virtualenv`, `@task.docker`, ...).
 */
export const AS401: Rule = {
  code: "AS401",
  name: "variable-as-task-state",
  summary: "A task reads and writes the same Variable: per-run state kept in a global",
  defaultSeverity: "warning",
  category: "state",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("Variable") && facts.includes("get") && facts.includes("set"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("Variable")) return;
    for (const state of variableFindings(context).states) {
      if (assetHome(model, state)) continue;
      const key = state.key.text;
      report({
        node: state.calls[0].call.node,
        message: `The Variable ${codeSpan(key)} holds this task's state, but Variables are global: concurrent runs overwrite it. If it is this run's progress, keep it in \`task_state_store\` (it survives retries); if the next run must continue from it, keep it in the asset store of the data it tracks.`,
        fix: taskStoreFix(model, state),
        related: laterCalls(state),
      });
    }
  },
};

/** One edit for every call of the key, which the one report of the key carries. */
function taskStoreFix(model: SemanticModel, state: VariableState): Fix | undefined {
  const json = jsonMode(state.calls);
  const access = json === undefined ? undefined : storeAccess(model, state.task, "task", state.calls[0].call.node);
  if (json === undefined || !access) return undefined;
  const edits: TextEdit[] = [...access.edits];
  for (const call of state.calls) {
    const edit = storeCallFor(model, call, access.name, json);
    if (!edit) return undefined;
    edits.push(edit);
  }
  return { title: `Keep ${codeSpan(state.key.text)} in ${codeSpan(access.name)} instead of a Variable`, safe: false, kind: "refactor.rewrite", edits };
}
