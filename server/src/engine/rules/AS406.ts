import { replaceNode } from "../fixes/edits";
import { appendItem } from "../fixes/lists";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { capitalize } from "./messageText";
import { DependencyGraph, Task } from "../airflow/dependencies";
import { SemanticModel } from "../airflow/model";
import { dictionaryEntry, ResumableOperators } from "../airflow/resumableOperators";
import { isSensor } from "../airflow/submitAndPoll";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Reports `deferrable=True` written on an operator call together with `wait_for_termination=False`,
 * on the same call or in the `default_args` of its DAG (sensors, which take no
 * `wait_for_termination`, are left out), and both set in a DAG's `default_args`. The diagnostic is on
 * the `wait_for_termination` keyword, or on `deferrable=True` when the `False` comes from
 * `default_args`.
 *
 * ## Why is this bad?
 * `deferrable=True` does not imply waiting. Operators such as `DatabricksSubmitRunOperator`,
 * `DatabricksRunNowOperator`, `DbtCloudRunJobOperator` and `AzureDataFactoryRunPipelineOperator`
 * defer to the Triggerer only when they wait for the job: with `wait_for_termination=False` they
 * return as soon as the job is submitted, nothing is deferred and nothing is awaited. The task turns
 * green while the job may still fail, which is the fire-and-forget behaviour `deferrable=True` was
 * meant to avoid.
 *
 * ## Example
 * ```python
 * run_job = DatabricksSubmitRunOperator(
 *     task_id="run_job",
 *     json=RUN_SPEC,
 *     deferrable=True,
 *     wait_for_termination=False,
 * )
 * ```
 *
 * ## Use instead
 * ```python
 * run_job = DatabricksSubmitRunOperator(
 *     task_id="run_job",
 *     json=RUN_SPEC,
 *     deferrable=True,
 *     wait_for_termination=True,   # required: deferrable=True alone does not wait
 * )
 * ```
 * `examples/dags/submit_and_poll_before.py` shows the mistake, `examples/dags/submit_and_poll_after.py`
 * the correct form.
 *
 * ## Fix safety
 * The fix sets `wait_for_termination=True` (on the call, or in `default_args` when both are set
 * there). It is unsafe: the task then waits in the Triggerer for the job to finish, so it takes as
 * long as the job, fails when the job fails, and its downstream tasks start later. That is what
 * `deferrable=True` asks for, but it changes what the DAG does today.
 */
export const AS406: Rule = {
  code: "AS406",
  name: "deferrable-without-wait",
  summary: "`deferrable=True` with `wait_for_termination=False`: nothing is deferred and nothing waits for the job",
  defaultSeverity: "error",
  category: "submit",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("deferrable") && facts.includes("wait_for_termination"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("deferrable") || !model.text.includes("wait_for_termination")) return;
    const operators = ResumableOperators.of(context);
    for (const task of DependencyGraph.of(model).tasks) {
      if (task.kind !== "operator") continue;
      const deferrable = task.keywords.get("deferrable");
      if (!deferrable || !isTrue(model, deferrable.value)) continue;
      const wait = task.keywords.get("wait_for_termination");
      if (wait) {
        if (!isFalse(model, wait.value)) continue;
        report({
          node: wait.node,
          message: `\`deferrable=True\` with \`wait_for_termination=False\` defers nothing, and nothing waits for the job. ${capitalize(operatorName(task))} returns as soon as the job is submitted, so the task's success only means the job was accepted; set \`wait_for_termination=True\`.`,
          fix: setTrue(wait.value),
        });
        continue;
      }
      if (isSensor(task)) continue;
      const defaults = operators.defaultArgsOf(task.node);
      const fromDefaults = dictionaryEntry(defaults, "wait_for_termination");
      if (!fromDefaults || !isFalse(model, fromDefaults.value)) continue;
      // Both set in `default_args` is reported once, there.
      const deferrableDefault = dictionaryEntry(defaults, "deferrable");
      if (deferrableDefault && isTrue(model, deferrableDefault.value)) continue;
      report({
        node: deferrable.node,
        message: `\`deferrable=True\` defers nothing here, and nothing waits for the job: \`default_args\` set \`wait_for_termination\` to \`False\`. ${capitalize(operatorName(task))} returns as soon as the job is submitted; pass \`wait_for_termination=True\` to this operator.`,
        fix: addWait(model, task),
      });
    }
    if (!model.text.includes("default_args")) return;
    const reported = new Set<number>();
    for (const dag of model.dags) {
      const deferrable = dictionaryEntry(dag.defaultArgs, "deferrable");
      const wait = dictionaryEntry(dag.defaultArgs, "wait_for_termination");
      if (!deferrable || !wait || reported.has(wait.pair.id) || !isTrue(model, deferrable.value) || !isFalse(model, wait.value)) continue;
      reported.add(wait.pair.id);
      report({
        node: wait.pair,
        message: "`deferrable: True` with `wait_for_termination: False` in `default_args`: nothing is deferred, and nothing waits for the jobs. The DAG's operators return as soon as their job is submitted; set `wait_for_termination` to `True`.",
        fix: setTrue(wait.value),
      });
    }
  },
};

function isTrue(model: SemanticModel, node: SyntaxNode): boolean {
  return model.resolveValue(node).type === "true";
}

function isFalse(model: SemanticModel, node: SyntaxNode): boolean {
  return model.resolveValue(node).type === "false";
}

function operatorName(task: Task): string {
  const name = task.className?.slice(task.className.lastIndexOf(".") + 1);
  return name ? codeSpan(name) : "the operator";
}

function setTrue(value: SyntaxNode): Fix {
  return { title: "Set `wait_for_termination=True`", safe: false, kind: "quickfix", edits: [replaceNode(value, "True")] };
}

function addWait(model: SemanticModel, task: Task): Fix | undefined {
  const list = task.call.node.childForFieldName("arguments");
  const edits = list?.type === "argument_list" ? appendItem(model, list, "wait_for_termination=True") : undefined;
  return edits && { title: "Pass `wait_for_termination=True`", safe: false, kind: "quickfix", edits };
}
