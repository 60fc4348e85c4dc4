import { insertFirstInClassBody } from "../fixes/classBody";
import { Rule } from "./rule";
import { DEFAULT_EXTERNAL_ID_KEY, EXTERNAL_ID_KEY, ResumableOperators, snakeCaseClassName } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Reports a `ResumableJobMixin` operator class that sets no `external_id_key` and inherits none from
 * its bases (in the same file or in another module of the workspace), so it stores its job ids under
 * the mixin's default key `"remote_job_id"`. Provider operators built on the mixin set their own key.
 *
 * The rule reports information for new code (not a hint, so that it shows in the Problems panel).
 * It stays silent when a base class cannot be seen, when the body of the class or of a base in the
 * file does not parse (the key may be in what the parser could not read), for classes meant as
 * bases of other operators (see AS303), and for classes that already exist in the file's committed
 * version: they may be deployed with the default key, and AS301 guards that key from then on.
 *
 * ## Why is this bad?
 * The key names where the job id lives in the task state store, and it can never change once the
 * operator is deployed: a task instance in flight stored its id under the old key, so after a
 * rename its retry finds nothing and submits a duplicate job. A specific key
 * (`"batch_job_id"`) says what it holds when the store is browsed in the UI or the REST API, and
 * has to be chosen before the first deploy, while changing it is still free.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def execute(self, context):
 *         return self.execute_resumable(context)
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "batch_id"
 *
 *     def execute(self, context):
 *         return self.execute_resumable(context)
 * ```
 *
 * ## Fix safety
 * The fix inserts `external_id_key = "<class name in snake case>_id"` (without a trailing
 * `Operator`) as the first statement of the class body, after its docstring. It is unsafe: if the
 * class has already been deployed, task instances in flight stored their job ids under
 * `"remote_job_id"` and their retries would submit duplicate jobs.
 */
export const AS308: Rule = {
  code: "AS308",
  name: "default-external-id-key",
  summary: "ResumableJobMixin operator without its own `external_id_key` (stores ids under `remote_job_id`)",
  defaultSeverity: "info",
  category: "crash",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ workspace, facts }) => facts.includes("class") && (workspace !== undefined || facts.includes("ResumableJobMixin")),
  check(context) {
    const { text, baselineText, report } = context;
    const resumable = ResumableOperators.of(context);
    const committed = baselineText === undefined ? undefined : classNames(baselineText);
    for (const cls of resumable.classes) {
      if (committed?.has(cls.name) || !resumable.isConcrete(cls)) continue;
      if (resumable.defines(cls, EXTERNAL_ID_KEY, "attribute") !== "no") continue;
      const statement = `${EXTERNAL_ID_KEY} = "${snakeCaseClassName(cls.name)}_id"`;
      const edit = insertFirstInClassBody(cls, statement, text);
      report({
        node: cls.nameNode,
        message: `${codeSpan(cls.name)} stores its job ids under the mixin's default key ${codeSpan(DEFAULT_EXTERNAL_ID_KEY)}. Set a key of its own (${codeSpan(statement)}) before it is first deployed: renaming it later makes in-flight retries submit duplicate jobs.`,
        fix: edit && { title: `Set ${statement}`, safe: false, kind: "quickfix", edits: [edit] },
      });
    }
  },
};

/** Names of the classes a Python text defines (at any depth), read without parsing it. */
function classNames(text: string): Set<string> {
  return new Set([...text.matchAll(/^[ \t]*class[ \t]+([A-Za-z_]\w*)/gm)].map((m) => m[1]));
}
