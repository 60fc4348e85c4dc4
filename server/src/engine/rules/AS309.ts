import { insertAt } from "../fixes/edits";
import { Rule } from "./rule";
import { ClassInfo, FunctionInfo } from "../airflow/model";
import { attributeCalls } from "../syntax/parser";
import { ABSTRACT_METHODS, MIXIN_PROVIDER_OPERATORS, MixinMethod, ResumableOperators, decoratorNames } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/** The methods `execute_resumable` calls only on a try that finds a stored job id: after a crash. */
const RECOVERY_ONLY = new Set(["get_job_status", "is_job_active", "is_job_succeeded"]);

/**
 * ## What it does
 * Checks the signatures of a `ResumableJobMixin` operator's overrides of the mixin's six methods
 * against the arguments `execute_resumable` passes, all of them positionally:
 * `submit_job(self, context)`, `get_job_status(self, external_id, context)`,
 * `is_job_active(self, status)`, `is_job_succeeded(self, status)`,
 * `poll_until_complete(self, external_id, context)` and `get_job_result(self, external_id, context)`.
 * It reports an override that takes fewer positional parameters: the pre-release signatures without
 * `context` (`get_job_status(self, external_id)`, `submit_job(self)`), a keyword-only `context`
 * (`submit_job(self, *, context)`), or `**kwargs` in its place. Overrides taking `*args`, static
 * methods and class methods are left alone.
 *
 * ## Why is this bad?
 * The mixin passes the arguments positionally, so the override raises
 * `TypeError: ... takes 2 positional arguments but 3 were given` when it is called. Nothing shows it
 * while the DAG is parsed, and when it shows depends on the method:
 * - `submit_job`, `poll_until_complete` and `get_job_result` run on every try: the task fails on
 *   its first try and on every retry;
 * - `get_job_status`, `is_job_active` and `is_job_succeeded` run only on a try that finds a stored
 *   job id: the first try passes, and exactly the crash recovery breaks, when a worker died while
 *   the job was running.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def get_job_status(self, external_id) -> str:
 *         return self.hook.status(external_id)
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def get_job_status(self, external_id, context) -> str:
 *         return self.hook.status(external_id)
 * ```
 *
 * ## Fix safety
 * The fix adds the missing parameters after the existing positional ones (with a `None` default when
 * the parameter before them has a default). It is safe when the method's body does not use the
 * added names and no code of the file calls the method by name: the override then behaves as before
 * for the call that used to fail. Otherwise it is unsafe: an added `context` would hide a global of
 * that name, and the file's own calls with the old arguments would now fail. No fix is offered for a
 * keyword-only parameter or `**kwargs`: where the parameter belongs is the author's choice.
 */
export const AS309: Rule = {
  code: "AS309",
  name: "pre-release-signature",
  summary: "ResumableJobMixin method that does not take the arguments the mixin passes positionally (TypeError on every try, or on crash recovery)",
  defaultSeverity: "error",
  category: "crash",
  fix: "safe or unsafe",
  inputs: { workspace: true },
  mayReport: ({ workspace, facts }) =>
    facts.mentionsAny(ABSTRACT_METHODS.map((m) => m.name)) && facts.includes("class") && (workspace !== undefined || facts.mentionsAny(["ResumableJobMixin", ...MIXIN_PROVIDER_OPERATORS])),
  check(context) {
    const { model, report } = context;
    // Whether the file calls each method by its name, asked once per name: the classes of a file often repeat one mistake.
    const called = new Map<string, boolean>();
    const calledInFile = (name: string) => {
      let answer = called.get(name);
      if (answer === undefined) called.set(name, (answer = attributeCalls(model.tree, model.text, [name]).length > 0));
      return answer;
    };
    for (const cls of ResumableOperators.of(context).classes) {
      for (const method of ABSTRACT_METHODS) {
        const override = cls.methods.get(method.name);
        if (!override || override.node.type !== "function_definition") continue;
        const mismatch = missingParameters(override, method);
        if (!mismatch) continue;
        const { missing, keywordOnly } = mismatch;
        const expected = `${method.name}(self, ${method.parameters.join(", ")})`;
        const names = missing.map((name) => codeSpan(name)).join(" and ");
        const recoveryOnly = RECOVERY_ONLY.has(method.name);
        const what = keywordOnly.length > 0 ? `takes ${names} only by keyword` : `takes no ${names}`;
        const fails = recoveryOnly ? "a retry that finds the stored job id raises `TypeError`" : "the task raises `TypeError` on every try";
        const when = recoveryOnly ? " The first try passes: exactly the crash recovery breaks." : "";
        const parameters = missing.length > 1 ? "positional parameters" : "a positional parameter";
        report({
          node: override.nameNode,
          message: `${codeSpan(`${cls.name}.${method.name}`)} ${what}: ${fails}.${when} The mixin passes its arguments positionally, ${codeSpan(expected)}; take ${names} as ${parameters}.`,
          fix: keywordOnly.length > 0 ? undefined : addParameters(cls, override, missing, calledInFile(override.name)),
        });
      }
    }
  },
};

/**
 * The positional parameters `method` lacks (and those of them it takes only by keyword), or
 * undefined when its signature accepts the mixin's positional call.
 */
function missingParameters(override: FunctionInfo, method: MixinMethod): { missing: string[]; keywordOnly: string[] } | undefined {
  if (decoratorNames(override.node).some((name) => /(^|\.)(staticmethod|classmethod)$/.test(name))) return undefined;
  const { parameters } = override;
  // `*args` takes any positional argument; `**kwargs` takes none.
  if (parameters.some((p) => p.kind === "var-positional")) return undefined;
  const positional = parameters.filter((p) => p.kind === "positional");
  if (positional.length === 0) return undefined;
  const accepted = positional.length - 1; // after `self`
  if (accepted >= method.parameters.length) return undefined;
  const missing = method.parameters.slice(accepted);
  const keywordOnly = missing.filter((name) => parameters.some((p) => p.kind === "keyword-only" && p.name === name));
  return { missing, keywordOnly };
}

/** `calledInFile`: whether the file calls a method of the override's name (found from the name's occurrences in the text). */
function addParameters(cls: ClassInfo, override: FunctionInfo, missing: readonly string[], calledInFile: boolean) {
  const positional = override.parameters.filter((p) => p.kind === "positional");
  const last = positional[positional.length - 1];
  const withDefault = last.default !== undefined;
  const added = missing.map((name) => (withDefault ? `${name}=None` : name)).join(", ");
  const body = override.node.childForFieldName("body");
  const usesName = body !== null && body.descendantsOfType("identifier").some((id) => missing.includes(id.text));
  return {
    title: `Add ${missing.join(", ")} to ${cls.name}.${override.name}`,
    safe: !usesName && !calledInFile,
    kind: "quickfix" as const,
    edits: [insertAt(last.node.endIndex, `, ${added}`)],
  };
}
