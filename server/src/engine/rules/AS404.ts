import { generateOperatorFix, plannedOperator } from "../fixes/resumableClass";
import { Rule } from "./rule";
import { ClassInfo, SemanticModel } from "../airflow/model";
import { EXTERNAL_ID_KEY, ResumableOperators } from "../airflow/resumableOperators";
import { plainString } from "../syntax/nodes";
import { laterCalls, variableFindings } from "../airflow/variablesAndXcom";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a hand-written reconnect-or-submit through an Airflow Variable in a task body (a `@task`
 * function, a `python_callable`, an operator's `execute`): a job id read with
 * `job_id = Variable.get(K)`, an `if` on it with a branch that submits (`job_id = submit(...)`) and a
 * part that waits for the job (`wait(job_id)`) — the other branch, or the code after the `if` — and
 * the id written back with `Variable.set(K, ...)`. The key or the name must be about a job
 * (`spark_job_id`, `batch_id`, `application_id`, ...), and nothing else in the file may use the key.
 * Each task and key is reported once, on its first `Variable` call, with the others as related
 * locations; AS401 and AS402 leave these calls to this rule.
 *
 * Once the file holds a `ResumableJobMixin` operator whose `external_id_key` is the one the rewrite
 * derives (the Variable's key), the rule stays silent: the hand-written code is then left to be
 * removed, as the generated class's TODO says.
 *
 * ## Why is this bad?
 * It re-implements what `ResumableJobMixin` does, without its guarantees. The Variable is global:
 * runs of the DAG at once (or two DAGs using the key) overwrite each other's id, so one run waits for
 * another's job; the id outlives the run, so the next run reconnects to a job that already finished;
 * and a worker that dies between the submit and `Variable.set` leaves no id, so the retry submits the
 * job a second time. The mixin stores the id in the task instance's `task_state_store` as soon as
 * `submit_job` returns, and on a retry reconnects to a running job, returns the result of a
 * finished one, or submits again only after a failure.
 *
 * ## Example
 * From `examples/dags/variables_before.py`:
 * ```python
 * class SparkAggregateOperator(BaseOperator):
 *     def __init__(self, *, application: str, **kwargs):
 *         super().__init__(**kwargs)
 *         self.application = application
 *         self.client = SparkClient(conn_id="spark_default")
 *
 *     def execute(self, context):
 *         job_id = Variable.get("spark_aggregate_job_id", default_var=None)
 *         if job_id and self.client.status(job_id) in ("SUBMITTED", "RUNNING"):
 *             self.client.wait(job_id)
 *         else:
 *             job_id = self.client.submit(self.application)
 *             Variable.set("spark_aggregate_job_id", job_id)
 *             self.client.wait(job_id)
 * ```
 *
 * ## Use instead
 * As in `examples/dags/variables_after.py`: the rewrite generates every method below except
 * `is_job_succeeded` and `get_job_result` (left as TODO stubs, filled in here by hand), as a subclass
 * of the old operator that keeps its constructor; the old `execute` was then removed and the class
 * renamed back.
 * ```python
 * class SparkAggregateOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "spark_aggregate_job_id"
 *
 *     def __init__(self, *, application: str, **kwargs):
 *         super().__init__(**kwargs)
 *         self.application = application
 *         self.client = SparkClient(conn_id="spark_default")
 *
 *     def execute(self, context):
 *         return self.execute_resumable(context)
 *
 *     def submit_job(self, context):
 *         return self.client.submit(self.application)
 *
 *     def get_job_status(self, external_id, context) -> str:
 *         return self.client.status(external_id)
 *
 *     def is_job_active(self, status) -> bool:
 *         return status in ("SUBMITTED", "RUNNING")
 *
 *     def is_job_succeeded(self, status) -> bool:
 *         return status == "FINISHED"
 *
 *     def poll_until_complete(self, external_id, context) -> None:
 *         self.client.wait(external_id)
 *
 *     def get_job_result(self, external_id, context):
 *         return None
 * ```
 *
 * ## Fix safety
 * The rewrite generates the operator class next to the code, with the Variable's key as its
 * `external_id_key` (the class name in snake case plus `_id` when the key is not a plain
 * identifier). For an operator's `execute` it derives from that operator, keeping its constructor,
 * hooks and helpers, and goes right after it. For a task function it derives from `BaseOperator`,
 * turns the function's parameters into keyword arguments of its constructor (`self.table`), reads
 * context keys from `context` (`context["ti"]`), and goes at module level: after the function, or
 * before the DAG that holds it. The call whose result is the new job id becomes `submit_job`, the
 * calls that wait `poll_until_complete`, a status call of the `if` `get_job_status` and the values it
 * is compared with `is_job_active`; the job id becomes `external_id`, and a name the task assigned
 * once before the copied call (`hook = Hook(conn_id)`) is assigned again in the method. Methods
 * nothing fills raise `NotImplementedError` under a TODO, and other names local to the task are
 * listed in one. It adds the imports it needs. The hand-written code stays for the user to switch
 * the task over and delete it.
 *
 * It is an unsafe refactoring, never applied by `--fix` or fix-all, and it changes nothing that
 * runs until a task uses the new class, which fails at its stubs until they are filled in. Not
 * offered when the operator class is not defined at module level or the task function takes
 * `*args`.
 */
export const AS404: Rule = {
  code: "AS404",
  name: "hand-written-resumable-job",
  summary: "A hand-written reconnect-or-submit through a Variable: re-implements ResumableJobMixin without its guarantees",
  defaultSeverity: "warning",
  category: "state",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("Variable") && facts.includes("get") && facts.includes("set") && facts.includes("if"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("Variable")) return;
    const resumable = ResumableOperators.of(context);
    const reconnects = variableFindings(context).reconnects;
    if (reconnects.length === 0) return;
    const keys = new Set(resumable.classes.map((cls) => ownKey(model, cls)).filter((k): k is string => k !== undefined));
    for (const pattern of reconnects) {
      if (keys.has(plannedOperator(pattern).key)) continue;
      const fix = generateOperatorFix(model, pattern);
      const key = pattern.state.key.text;
      report({
        node: pattern.state.calls[0].call.node,
        message: `The job id is kept in the global Variable ${codeSpan(key)}: concurrent runs overwrite each other's id. A worker crash between the submit and \`Variable.set\` makes the retry submit the job again. \`ResumableJobMixin\` does this crash-safely with the task's own store: move the submit and the wait into an operator built on it.`,
        fix,
        related: laterCalls(pattern.state),
      });
    }
  },
};

/** The literal `external_id_key` a class of the file sets itself. */
function ownKey(model: SemanticModel, cls: ClassInfo): string | undefined {
  const value = cls.attributes.get(EXTERNAL_ID_KEY)?.value;
  return value && plainString(model.resolveValue(value));
}
