import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { SemanticModel } from "../airflow/model";
import { dictionaryEntry, providerOperatorInfo, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Reports `durable=False` on a `ResumableJobMixin` operator's call (or its `.partial(...)`), and
 * `"durable": False` in a DAG's `default_args`, once where each is written. Operators defined in
 * other modules of the workspace and the provider operators built on the mixin
 * (`SparkSubmitOperator`, `AthenaOperator`, ...: [the list](../provider-operators.md)) count. A name bound once to `False`
 * counts as `False`.
 *
 * ## Why is this bad?
 * `durable=False` makes the mixin skip the task state store entirely: the job id is not stored, so a
 * retry after a worker crash submits the job again instead of reconnecting to it. That is right in
 * tests, or when the external system deduplicates submissions itself, but it is easy to leave on by
 * mistake, and in `default_args` it turns crash safety off for every resumable operator of the DAG.
 * This is information, not a warning: confirm it is meant.
 *
 * ## Example
 * ```python
 * with DAG(dag_id="nightly", schedule="@daily", default_args={"durable": False}):
 *     SparkSubmitOperator(task_id="aggregate", application="s3://jobs/aggregate.py", durable=False)
 * ```
 *
 * ## Use instead
 * ```python
 * with DAG(dag_id="nightly", schedule="@daily", default_args={"retries": 2}):
 *     SparkSubmitOperator(task_id="aggregate", application="s3://jobs/aggregate.py")
 * ```
 *
 * ## Fix safety
 * There is no fix: only the author knows whether turning crash safety off is intended.
 */
export const AS307: Rule = {
  code: "AS307",
  name: "durable-disabled",
  summary: "`durable=False` turns off a ResumableJobMixin operator's crash safety",
  defaultSeverity: "info",
  category: "crash",
  fix: "none",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("durable"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("durable")) return;
    const resumable = ResumableOperators.of(context);
    for (const operator of resumable.operatorCallsWith("durable")) {
      const durable = operator.call.args.keywords.get("durable");
      if (!durable || !isFalse(model, durable.value)) continue;
      const name = operator.className.slice(operator.className.lastIndexOf(".") + 1);
      const key = providerOperatorInfo(operator.className)?.externalIdKey;
      report({
        node: durable.node,
        message: `\`durable=False\`: a retry of this ${codeSpan(name)} task after a worker crash submits the job again instead of reconnecting. The job id is not stored${key ? ` (under ${codeSpan(key)})` : ""}; make sure that is intended.`,
      });
    }
    // Finding the DAGs resolves every call of the file: only worth it when some DAG has default_args.
    if (!model.text.includes("default_args")) return;
    const reported = new Set<number>();
    for (const dag of model.dags) {
      const entry = dictionaryEntry(dag.defaultArgs, "durable");
      if (!entry || reported.has(entry.pair.startIndex) || !isFalse(model, entry.value)) continue;
      reported.add(entry.pair.startIndex);
      report({
        node: entry.pair,
        message: "`durable: False` in `default_args`: after a worker crash, this DAG's ResumableJobMixin tasks submit their job again. Their job ids are not stored; make sure that is intended.",
      });
    }
  },
};

function isFalse(model: SemanticModel, node: SyntaxNode): boolean {
  return model.resolveValue(node).type === "false";
}
