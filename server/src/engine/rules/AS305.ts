import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { ClassInfo, SemanticModel } from "../airflow/model";
import { dictionaryEntry, providerOperatorInfo, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for `retries=0` on a `ResumableJobMixin` operator: on the operator's call (or its
 * `.partial(...)`), in the `default_args` of the DAG it is created in when the call does not set
 * `retries` itself, and as the class's own default (a class attribute `retries = 0` or an
 * `__init__` parameter `retries=0`). Operators defined in other modules of the workspace and the
 * provider operators built on the mixin (`SparkSubmitOperator`, `AthenaOperator`,
 * `AzureDataFactoryRunPipelineOperator`, ...: [the list](../provider-operators.md)) count; for
 * those the message names the key they store the job id under. A name bound once to `0` counts as
 * `0`.
 *
 * ## Why is this bad?
 * The mixin stores the external job id so that the next try of the task instance can reconnect to
 * the running job instead of submitting it again. With no retries there is no next try: the stored
 * id is never read, and a worker crash fails the task while the job keeps running. The operator
 * pays for the store writes and gets no crash safety.
 *
 * ## Example
 * ```python
 * SparkSubmitOperator(task_id="nightly", application="s3://jobs/nightly.py", retries=0)
 * ```
 *
 * ## Use instead
 * ```python
 * SparkSubmitOperator(task_id="nightly", application="s3://jobs/nightly.py", retries=2)
 * ```
 *
 * ## Fix safety
 * There is no fix: how many retries a job deserves is the author's decision.
 */
export const AS305: Rule = {
  code: "AS305",
  name: "resumable-without-retries",
  summary: "`retries=0` on a ResumableJobMixin operator: the stored job id is never used",
  defaultSeverity: "warning",
  category: "crash",
  fix: "none",
  inputs: { workspace: true },
  // `isZero` needs `retries` given a zero literal (`0`, `0_0`, `0x0`), parenthesised or not, or a name
  // that may be bound to one: as a keyword, a dictionary key, a class attribute or a default.
  mayReport: ({ text, facts }) => facts.includes("retries") && RETRIES_MAY_BE_ZERO.test(text),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("retries")) return;
    const resumable = ResumableOperators.of(context);
    const message = (where: string, key?: string, tasks = "the task") =>
      `${where}: a worker crash fails ${tasks} instead of reconnecting to the running job. Without a retry the job id the mixin stores${key ? ` (under ${codeSpan(key)})` : ""} is never read; allow at least one retry, or drop the mixin.`;

    for (const operator of resumable.operatorCallsWith("retries")) {
      const retries = operator.call.args.keywords.get("retries")!;
      const key = providerOperatorInfo(operator.className)?.externalIdKey;
      if (isZero(model, retries.value)) report({ node: retries.node, message: message(`\`retries=0\` on this ${codeSpan(shortName(operator.className))} task`, key) });
    }
    const reported = new Set<number>();
    // Finding the DAGs resolves every call of the file: only worth it when some DAG has default_args.
    const dags = model.text.includes("default_args") ? resumable.dagScopes : [];
    for (const dag of dags) {
      const entry = dictionaryEntry(dag.dag.defaultArgs, "retries");
      if (!entry || reported.has(entry.pair.startIndex) || !isZero(model, entry.value)) continue;
      // Only operators that do not set retries themselves take it from default_args.
      const inheriting = resumable.operatorCallsIn(dag).some(({ call }) => !call.args.keywords.has("retries") && !call.args.hasSplat);
      if (!inheriting) continue;
      reported.add(entry.pair.startIndex);
      report({ node: entry.pair, message: message("`retries: 0` in `default_args`", undefined, "this DAG's ResumableJobMixin tasks") });
    }

    for (const cls of resumable.classes) {
      for (const node of zeroRetryDefaults(model, cls)) report({ node, message: message(`${codeSpan(cls.name)} defaults to \`retries=0\``) });
    }
  },
};

// A comment where the value could be (`retries=  # why`) counts as may-be-zero: a pattern that read
// through comments and white space in a row would try a run of `#` or spaces in exponentially many ways.
const RETRIES_MAY_BE_ZERO = /retries["']?[\s\\]*(?:#|[:=][\s\\]*(?:#|0(?:[xXoObB]?[0_]*)?(?![\w.])|[A-Za-z_(]))/;

function isZero(model: SemanticModel, node: SyntaxNode): boolean {
  const value = model.resolveValue(node);
  return value.type === "integer" && Number(value.text.replace(/_/g, "")) === 0;
}

/** `retries = 0` in the class body and `retries=0` as a default of its `__init__`. */
function zeroRetryDefaults(model: SemanticModel, cls: ClassInfo): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  const attribute = cls.attributes.get("retries");
  if (attribute?.value && cls.scope.own("retries")?.length === 1 && isZero(model, attribute.value)) {
    found.push(attribute.target.parent?.type === "assignment" ? attribute.target.parent : attribute.target);
  }
  const init = cls.methods.get("__init__");
  const parameter = init?.parameters.find((p) => p.name === "retries");
  if (parameter?.default && isZero(model, parameter.default)) found.push(parameter.node);
  return found;
}

function shortName(qualifiedName: string): string {
  return qualifiedName.slice(qualifiedName.lastIndexOf(".") + 1);
}
