import { insertAt } from "../fixes/edits";
import { Rule } from "./rule";
import { mentionsAny } from "./textGates";
import { analysis } from "../context";
import { ClassInfo, FunctionInfo, SemanticModel, semanticModel } from "../airflow/model";
import { ABSTRACT_METHODS, MIXIN_PROVIDER_OPERATORS, MixinMethod, ResumableOperators, decoratorNames } from "../airflow/resumableOperators";

/**
 * ## What it does
 * Checks the signatures of a `ResumableJobMixin` operator's overrides of the mixin's six methods
 * against the arguments `execute_resumable` passes: `submit_job(self, context)`,
 * `get_job_status(self, external_id, context)`, `is_job_active(self, status)`,
 * `is_job_succeeded(self, status)`, `poll_until_complete(self, external_id, context)` and
 * `get_job_result(self, external_id, context)`. It reports an override that takes fewer positional
 * parameters, typically the pre-release signatures without `context`
 * (`get_job_status(self, external_id)`, `submit_job(self)`). Overrides taking `*args` or `**kwargs`
 * or the missing parameter as keyword-only, static methods and class methods are left alone.
 *
 * ## Why is this bad?
 * The mixin calls the method with the documented arguments, so the override raises
 * `TypeError: ... takes 2 positional arguments but 3 were given` when the task runs, on the first
 * try and on every retry. Nothing shows it while the DAG is parsed.
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
 * that name, and the file's own calls with the old arguments would now fail.
 */
export const AS309: Rule = {
  code: "AS309",
  name: "pre-release-signature",
  summary: "ResumableJobMixin method overridden with a pre-release signature (TypeError when the task runs)",
  defaultSeverity: "error",
  category: "crash",
  fix: "safe or unsafe",
  inputs: { workspace: true },
  mayReport: ({ text, workspace }) =>
    mentionsAny(text, ABSTRACT_METHODS.map((m) => m.name)) && text.includes("class") && (workspace !== undefined || mentionsAny(text, ["ResumableJobMixin", ...MIXIN_PROVIDER_OPERATORS])),
  check(context) {
    const { model, report } = context;
    for (const cls of ResumableOperators.of(context).classes) {
      for (const method of ABSTRACT_METHODS) {
        const override = cls.methods.get(method.name);
        if (!override || override.node.type !== "function_definition") continue;
        const missing = missingParameters(override, method);
        if (!missing) continue;
        const expected = `${method.name}(self, ${method.parameters.join(", ")})`;
        const names = missing.map((name) => `\`${name}\``).join(" and ");
        report({
          node: override.nameNode,
          message: `\`${cls.name}.${method.name}\` takes no ${names}, but the mixin calls \`${expected}\`: the task fails with \`TypeError\` when it runs. Add ${names}.`,
          fix: addParameters(model, cls, override, missing),
        });
      }
    }
  },
};

/** The parameters `method` lacks, or undefined when its signature accepts the mixin's call. */
function missingParameters(override: FunctionInfo, method: MixinMethod): string[] | undefined {
  if (decoratorNames(override.node).some((name) => /(^|\.)(staticmethod|classmethod)$/.test(name))) return undefined;
  const { parameters } = override;
  if (parameters.some((p) => p.kind === "var-positional" || p.kind === "var-keyword")) return undefined;
  const positional = parameters.filter((p) => p.kind === "positional");
  if (positional.length === 0) return undefined;
  const accepted = positional.length - 1; // after `self`
  if (accepted >= method.parameters.length) return undefined;
  const missing = method.parameters.slice(accepted);
  // `submit_job(self, *, context)` works when the mixin passes `context=` by keyword: not known.
  if (parameters.some((p) => p.kind === "keyword-only" && missing.includes(p.name))) return undefined;
  return missing;
}

function addParameters(model: SemanticModel, cls: ClassInfo, override: FunctionInfo, missing: readonly string[]) {
  const positional = override.parameters.filter((p) => p.kind === "positional");
  const last = positional[positional.length - 1];
  const withDefault = last.default !== undefined;
  const added = missing.map((name) => (withDefault ? `${name}=None` : name)).join(", ");
  const body = override.node.childForFieldName("body");
  const usesName = body !== null && body.descendantsOfType("identifier").some((id) => missing.includes(id.text));
  const calledInFile = attributesCalled(model).has(override.name);
  return {
    title: `Add ${missing.join(", ")} to ${cls.name}.${override.name}`,
    safe: !usesName && !calledInFile,
    kind: "quickfix" as const,
    edits: [insertAt(last.node.endIndex, `, ${added}`)],
  };
}

/** The names called as attributes anywhere in the file (`x.submit_job(...)`), collected once per file: a file can have many overrides to check. */
const attributesCalledAnalysis = analysis("attributes called", (context) => {
  const names = new Set<string>();
  for (const call of context.get(semanticModel).calls) {
    const attribute = call.node.childForFieldName("function")?.childForFieldName("attribute");
    if (attribute) names.add(attribute.text);
  }
  return names;
});

function attributesCalled(model: SemanticModel): Set<string> {
  return model.context.get(attributesCalledAnalysis);
}
