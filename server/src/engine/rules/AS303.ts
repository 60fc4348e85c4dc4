import { appendMethodsToClassBody } from "../fixes/classBody";
import { Rule } from "./rule";
import { ABSTRACT_METHODS, MixinMethod, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks that a `ResumableJobMixin` operator class implements the six methods the mixin declares
 * abstract: `submit_job`, `get_job_status`, `is_job_active`, `is_job_succeeded`,
 * `poll_until_complete` and `get_job_result`. Methods inherited from base classes count, whether the
 * bases are defined in the same file or in another module of the workspace; a provider operator
 * built on the mixin (`SparkSubmitOperator`, ...) implements them all.
 *
 * Python only refuses to create an instance, so the rule looks at classes meant to become tasks: one
 * the file instantiates, or else an operator (deriving from `BaseOperator`) that no class of the file
 * derives from and that is not marked as a base: a name starting with `Base` or `Abstract` or ending
 * with `Base` or `Mixin`, or an `@abstractmethod` of its own. It stays silent when a base class cannot
 * be seen (a module outside the workspace, a name it cannot resolve).
 *
 * ## Why is this bad?
 * Python refuses to instantiate a class with abstract methods: creating the task raises `TypeError`
 * (its message names the class and the missing methods; the wording differs between Python
 * versions) while Airflow parses the DAG file, so the whole DAG fails to load.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def execute(self, context):
 *         return self.execute_resumable(context)
 *
 *     def submit_job(self, context):
 *         return self.hook.submit(self.job)
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def execute(self, context):
 *         return self.execute_resumable(context)
 *
 *     def submit_job(self, context):
 *         return self.hook.submit(self.job)
 *
 *     def get_job_status(self, external_id, context) -> str:
 *         return self.hook.status(external_id)
 *
 *     def is_job_active(self, status) -> bool:
 *         return status in ("PENDING", "RUNNING")
 *
 *     def is_job_succeeded(self, status) -> bool:
 *         return status == "SUCCEEDED"
 *
 *     def poll_until_complete(self, external_id, context) -> None:
 *         self.hook.wait(external_id)
 *
 *     def get_job_result(self, external_id, context):
 *         return self.hook.result(external_id)
 * ```
 *
 * ## Fix safety
 * The fix adds the missing methods at the end of the class with the signatures the mixin calls them
 * with, each raising `NotImplementedError`. It is unsafe: the DAG then loads, but the task fails when
 * it reaches a stub, until the stubs are filled in.
 */
export const AS303: Rule = {
  code: "AS303",
  name: "missing-abstract-method",
  summary: "ResumableJobMixin operator missing one of the six abstract methods (TypeError when the DAG is parsed)",
  defaultSeverity: "error",
  category: "crash",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ workspace, facts }) => facts.includes("class") && (workspace !== undefined || facts.includes("ResumableJobMixin")),
  check(context) {
    const { text, report } = context;
    const resumable = ResumableOperators.of(context);
    for (const cls of resumable.classes) {
      if (!resumable.isConcrete(cls)) continue;
      const verdicts = ABSTRACT_METHODS.map((method) => ({ method, defined: resumable.defines(cls, method.name, "method") }));
      if (verdicts.some((v) => v.defined === "unknown")) continue;
      const missing = verdicts.filter((v) => v.defined === "no").map((v) => v.method);
      if (missing.length === 0) continue;
      const names = missing.map((m) => codeSpan(m.name));
      const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
      const edit = appendMethodsToClassBody(cls, missing.map(stub), text);
      report({
        node: cls.nameNode,
        message: `Creating ${codeSpan(cls.name)} raises \`TypeError\`, so the DAG fails to load: ${missing.length > 1 ? `${missing.length} abstract methods` : "an abstract method"} of \`ResumableJobMixin\` ${missing.length > 1 ? "are" : "is"} missing. Implement ${list}.`,
        fix: edit && {
          title: `Add ${missing.length > 1 ? "stubs" : "a stub"} for ${missing.map((m) => m.name).join(", ")}`,
          safe: false,
          kind: "quickfix",
          edits: [edit],
        },
      });
    }
  },
};

/** `def get_job_status(self, external_id, context) -> str:` and a body that raises. */
function stub(method: MixinMethod): string[] {
  const returns = method.returns ? ` -> ${method.returns}` : "";
  return [`def ${method.name}(self, ${method.parameters.join(", ")})${returns}:`, "raise NotImplementedError"];
}
