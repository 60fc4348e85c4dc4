import { insertAt, replaceNode } from "../fixes/edits";
import { Rule } from "./rule";
import { SemanticModel } from "../airflow/model";
import { indentationOf } from "../syntax/nodes";
import { appearsOutside, XComCall, xcomRoundTrips, XComRoundTrip } from "../airflow/variablesAndXcom";
import { storeAccess } from "../fixes/storeRewrite";
import { Fix, TextEdit } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a task that pushes a job id to XCom to find it again on a retry: `xcom_push` of a
 * job-id-like key (`job_id`, `run_id`, `*_job_id`, `*_run_id`) on the task instance (`ti`,
 * `context["ti"]`) and an `xcom_pull` of the same key, before it, from the task itself (`task_ids`
 * absent, `None`, the task's own id or `ti.task_id`), in one task body. Each task and key is
 * reported once, on its first push or pull, with the others as related locations (shown with the
 * finding in the editor, "also at lines …" in the CLI).
 *
 * Pulls of another task's XCom, of other DAGs (`dag_id=`) or of earlier runs
 * (`include_prior_dates=True`), and a task that only pushes the id for a downstream sensor, are left
 * alone.
 *
 * ## Why is this bad?
 * Airflow clears a task instance's XComs when a new try of it starts. A retry after a worker crash
 * therefore pulls nothing, takes the branch that submits, and starts a second copy of the job that
 * is still running. `task_state_store` is kept across the task instance's retries, which is what
 * reconnecting needs (or build the operator on `ResumableJobMixin`, which does it for you).
 *
 * ## Example
 * From `examples/dags/variables_before.py`:
 * ```python
 * @task(retries=2)
 * def run_dbt_models(ti=None):
 *     dbt = DbtCloudClient(account_id=42)
 *     run_id = ti.xcom_pull(key="dbt_run_id", task_ids=ti.task_id)
 *     if run_id is None:
 *         run_id = dbt.trigger_job(job_id=7)
 *         ti.xcom_push(key="dbt_run_id", value=run_id)
 *     dbt.wait_for_run(run_id)
 * ```
 *
 * ## Use instead
 * The rewrite's result (`ti`, no longer used, removed by hand), as in `examples/dags/variables_after.py`:
 * ```python
 * @task(retries=2)
 * def run_dbt_models(task_state_store=None):
 *     dbt = DbtCloudClient(account_id=42)
 *     run_id = task_state_store.get("dbt_run_id")
 *     if run_id is None:
 *         run_id = dbt.trigger_job(job_id=7)
 *         task_state_store.set("dbt_run_id", run_id)
 *     dbt.wait_for_run(run_id)
 * ```
 *
 * ## Fix safety
 * The rewrite turns every pull of the key into `task_state_store.get(key)` and every push into
 * `task_state_store.set(key, value)`, in one edit, reaching the store as AS401 does (a new parameter,
 * or `task_state_store = context["task_state_store"]`). When the key also appears elsewhere in the
 * file, where a downstream task or template may pull it, the push is kept and the `set` is added on
 * the line after it (offered only when the pushed value is a plain name).
 *
 * It is an unsafe refactoring, never applied by `--fix` or fix-all: a value the store refuses
 * (`None`, a `datetime`) now raises where XCom took it, and a job whose task instance is cleared
 * (rather than retried) is submitted again, as the store is discarded with it.
 */
export const AS403: Rule = {
  code: "AS403",
  name: "xcom-job-id-for-retries",
  summary: "A job id pushed to XCom to survive retries: XCom is cleared when the task is retried",
  defaultSeverity: "warning",
  category: "state",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("xcom_push") && facts.includes("xcom_pull"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("xcom_p")) return;
    for (const trip of xcomRoundTrips(context)) {
      const calls = [...trip.pulls, ...trip.pushes].sort((a, b) => a.node.startIndex - b.node.startIndex);
      report({
        node: calls[0].node,
        message: `On a retry the pull of "${trip.key}" finds nothing (Airflow clears the task's XComs), so the job is submitted again. The first one may still be running; keep the id in \`task_state_store\`, which survives retries (or build the operator on \`ResumableJobMixin\`).`,
        fix: taskStoreFix(model, trip),
        related: { message: `Another push or pull of "${trip.key}" in this task`, nodes: calls.slice(1).map((c) => c.node) },
      });
    }
  },
};

/** One edit for every push and pull of the key, which the key's one report carries. */
function taskStoreFix(model: SemanticModel, trip: XComRoundTrip): Fix | undefined {
  const access = storeAccess(model, trip.task, "task", trip.pulls[0].node);
  if (!access) return undefined;
  const edits: TextEdit[] = [...access.edits];
  const ownKeys = [...trip.pulls, ...trip.pushes].map((c) => c.key);
  // A downstream task or a template may pull the key: the push stays, and the store gets a copy.
  const keepPush = appearsOutside(model, trip.task.fn.node, trip.key, ownKeys.map((k) => model.resolveValue(k)));
  for (const pull of trip.pulls) edits.push(replaceNode(pull.node, `${access.name}.get(${pull.key.text})`));
  for (const push of trip.pushes) {
    const edit = keepPush ? copyToStore(model, push, access.name) : push.rewritable && push.value ? replaceNode(push.node, `${access.name}.set(${push.key.text}, ${push.value.text})`) : undefined;
    if (!edit) return undefined;
    edits.push(edit);
  }
  return { title: `Keep "${trip.key}" in ${codeSpan(access.name)}${keepPush ? " as well as XCom" : " instead of XCom"}`, safe: false, kind: "refactor.rewrite", edits };
}

/** `task_state_store.set(key, value)` on the line after a push that is a statement of its own and pushes a plain name. */
function copyToStore(model: SemanticModel, push: XComCall, store: string): TextEdit | undefined {
  const statement = push.node.parent;
  if (statement?.type !== "expression_statement" || statement.parent?.type !== "block" || push.value?.type !== "identifier") return undefined;
  const eol = model.text.includes("\r\n") ? "\r\n" : "\n";
  const lineEnd = model.text.indexOf("\n", statement.endIndex);
  const rest = model.text.slice(statement.endIndex, lineEnd < 0 ? model.text.length : lineEnd).trim();
  if (rest !== "" && !rest.startsWith("#")) return undefined;
  const at = lineEnd < 0 ? model.text.length : lineEnd + 1;
  return insertAt(at, `${lineEnd < 0 ? eol : ""}${indentationOf(statement, model.text)}${store}.set(${push.key.text}, ${push.value.text})${eol}`);
}
