import { keywordCalls, SyntaxNode } from "../syntax/parser";
import { pinStatement } from "../project/pin";
import { Rule } from "./rule";
import { ClassInfo, SemanticModel } from "../airflow/model";
import { dictionaryEntry, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for crash-safe resubmission relied on in a project that pins Airflow below 3.3 (read as for
 * AS501): a class derived from `ResumableJobMixin` (directly, through classes of the file or of the
 * workspace's other modules), and `durable=True` written on an operator or in a DAG's
 * `default_args`. A hierarchy of such classes is reported once, at the name of its base class in the
 * file. Subclasses of provider operators built on the mixin (`SparkSubmitOperator`, ...:
 * [the list](../provider-operators.md)) are not reported:
 * they ask for nothing the provider operator does not already do. A class with more than 16 classes
 * between it and the mixin in its chain of bases is not taken for one.
 *
 * ## Why is this bad?
 * `ResumableJobMixin` keeps the external job id in the task state store, which exists from Airflow
 * 3.3 on. Below 3.3 provider operators ship a compatibility shim of the mixin that stores nothing:
 * `durable=True` is accepted and does nothing, and a retry after a worker crash submits the job
 * again, a duplicate Spark or Databricks run. Importing `ResumableJobMixin` from `airflow.sdk` fails
 * there altogether.
 *
 * ## Example
 * ```python
 * # requirements.txt: apache-airflow==2.10.5
 * submit = SparkSubmitOperator(task_id="submit", application="etl.py", durable=True)
 * ```
 *
 * ## Use instead
 * ```python
 * # requirements.txt: apache-airflow==3.3.0
 * submit = SparkSubmitOperator(task_id="submit", application="etl.py", durable=True)
 * ```
 * Until the upgrade, make the job itself safe to submit twice (an idempotent job name, a check for a
 * running job before submitting), or leave `retries` at 0 for jobs that must not run twice.
 *
 * ## Fix safety
 * There is no fix: the keyword and the class are right for Airflow 3.3, and what to do until the
 * upgrade depends on the job.
 */
export const AS502: Rule = {
  code: "AS502",
  name: "resumable-below-airflow-3-3",
  summary: "`ResumableJobMixin` or `durable=True` while the project pins Airflow below 3.3: every retry resubmits",
  defaultSeverity: "warning",
  category: "version",
  fix: "none",
  inputs: { airflowPin: true, workspace: true },
  mayReport: ({ workspace, airflowPin, facts }) => airflowPin?.below33 === true && facts.mentionsAny(workspace ? ["durable", "class"] : ["ResumableJobMixin", "durable"]),
  check(context) {
    const { model, path, airflowPin, report } = context;
    if (!airflowPin?.below33) return;
    const pinned = pinStatement(airflowPin, path);
    const operators = ResumableOperators.of(context);
    for (const { cls, mixin } of mixinClasses(operators)) {
      const shim = mixin.startsWith("airflow.sdk.")
        ? "Importing it from `airflow.sdk` fails there, and the providers' pre-3.3 shim of the mixin stores no job id"
        : "Below 3.3 the mixin is the providers' shim, which stores no job id";
      report({
        node: cls.nameNode,
        message: `${codeSpan(cls.name)} relies on \`ResumableJobMixin\`, which does not store job ids below Airflow 3.3: every retry submits the job again. Here ${pinned}. ${shim}. ${UPGRADE}`,
      });
    }
    for (const keyword of durableKeywords(model, operators)) {
      report({ node: keyword, message: durableMessage("`durable=True` does nothing", pinned) });
    }
    for (const pair of durableDefaultArgs(model)) {
      report({ node: pair, message: durableMessage('`"durable": True` in `default_args` does nothing', pinned) });
    }
  },
};

const UPGRADE = "Upgrade to Airflow 3.3 or later, or make the job safe to submit twice.";

function durableMessage(what: string, pinned: string): string {
  return `${what} below Airflow 3.3: a retry after a worker crash submits the job again. Here ${pinned}, and the operator's pre-3.3 shim stores no job id. ${UPGRADE}`;
}

/**
 * The classes of the file that derive from `ResumableJobMixin` itself (not only from a provider
 * operator built on it), leaving out those whose base in this file is already one: a hierarchy is
 * reported at its root. `mixin` is the mixin's qualified name as imported.
 */
function mixinClasses(operators: ResumableOperators): { cls: ClassInfo; mixin: string }[] {
  const found = new Map<ClassInfo, string>();
  for (const cls of operators.classes) {
    const mixin = operators.ancestry(cls).ancestors.find((a) => a.kind === "mixin");
    if (mixin?.kind === "mixin") found.set(cls, mixin.name);
  }
  return [...found]
    .filter(([cls]) => !operators.ancestry(cls).ancestors.some((a) => a.kind === "local" && found.has(a.cls)))
    .map(([cls, mixin]) => ({ cls, mixin }));
}


/**
 * `durable=True` (or a name bound once to `True`) in calls that create operators: mixin operators and
 * provider operators built on it, any class Airflow ships, and calls with a `task_id`. Other
 * libraries' `durable=` (a message queue's) are left alone.
 */
function durableKeywords(model: SemanticModel, operators: ResumableOperators): SyntaxNode[] {
  if (!model.text.includes("durable")) return [];
  const keywords: SyntaxNode[] = [];
  for (const node of keywordCalls(model.tree, model.text, "durable")) {
    const call = model.callInfo(node);
    const durable = call.args.keywords.get("durable");
    if (!durable || model.resolveValue(durable.value).type !== "true") continue;
    const isOperator = call.args.keywords.has("task_id") || call.callee?.startsWith("airflow.") || operators.operatorCall(call) !== undefined;
    if (isOperator) keywords.push(durable.node);
  }
  return keywords;
}

/** `"durable": True` in the `default_args` of the file's DAGs, each dictionary once. */
function durableDefaultArgs(model: SemanticModel): SyntaxNode[] {
  if (!model.text.includes("durable")) return [];
  const pairs = new Map<number, SyntaxNode>();
  for (const dag of model.dags) {
    const entry = dictionaryEntry(dag.defaultArgs, "durable");
    if (entry && model.resolveValue(entry.value).type === "true") pairs.set(entry.pair.id, entry.pair);
  }
  return [...pairs.values()];
}
