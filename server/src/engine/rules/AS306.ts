import { Rule } from "./rule";
import { isPlaceholder, mayFallOffEnd, ownDescendants } from "../python/controlFlow";
import { decoratorNames, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks the `submit_job` method of `ResumableJobMixin` operator classes for paths that return
 * `None`: a bare `return`, `return None`, or the end of the body reached without a `return` (the
 * classic forgotten `return` in front of the call that submits the job). Only certain paths are
 * reported: loops, `match` statements and calls that may never return are assumed to end the
 * method, and a body that only holds a place (`...`, `pass`, a docstring) is left alone.
 *
 * ## Why is this bad?
 * `execute_resumable` stores whatever `submit_job` returns as the external job id. When it returns
 * `None` nothing is stored, without any error or warning: the job runs, but a retry after a worker
 * crash finds no id and submits it again. Crash safety is silently off.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def submit_job(self, context):
 *         self.hook.submit(self.job)
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def submit_job(self, context):
 *         return self.hook.submit(self.job)
 * ```
 *
 * ## Fix safety
 * There is no fix: which value identifies the job is only known to the author.
 */
export const AS306: Rule = {
  code: "AS306",
  name: "submit-job-returns-none",
  summary: "`submit_job` can return `None`: the job id is not stored and crash safety is silently off",
  defaultSeverity: "warning",
  category: "crash",
  fix: "none",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("submit_job"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("submit_job")) return;
    const consequence = "the mixin stores no job id, and crash safety is off. A retry after a worker crash submits the job again; return the external job id.";
    for (const cls of ResumableOperators.of(context).classes) {
      const submit = cls.methods.get("submit_job");
      const body = submit?.node.childForFieldName("body");
      if (!submit || !body || isPlaceholder(body)) continue;
      // A generator or a coroutine returns an object, never None; an abstract method is not run.
      if (submit.node.children.some((c) => c.type === "async")) continue;
      if (ownDescendants(body, ["yield", "await"]).length > 0) continue;
      if (decoratorNames(submit.node).some((name) => /(^|\.)abstractmethod$/.test(name))) continue;
      for (const statement of ownDescendants(body, "return_statement")) {
        const value = statement.namedChildren.find((c) => c.type !== "comment");
        if (value && value.type !== "none") continue;
        report({ node: statement, message: `${codeSpan(`${cls.name}.submit_job`)} returns \`None\` here: ${consequence}` });
      }
      if (mayFallOffEnd(body)) {
        report({ node: submit.nameNode, message: `${codeSpan(`${cls.name}.submit_job`)} can end without a \`return\` (returning \`None\`): ${consequence}` });
      }
    }
  },
};
