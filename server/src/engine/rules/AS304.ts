import { replaceNode } from "../fixes/edits";
import { Rule } from "./rule";
import { isAirflowBaseOperator, isResumableJobMixin, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks the order of a class's bases: `ResumableJobMixin` written after `BaseOperator`, or after an
 * operator class deriving from it (defined in the same file or in another module of the workspace),
 * as in `class BatchOperator(BaseOperator, ResumableJobMixin)`.
 *
 * ## Why is this bad?
 * Python initialises and looks up attributes in the order the bases are written. Airflow documents
 * the mixin first, `(ResumableJobMixin, BaseOperator)`, so that the mixin's constructor takes its
 * `durable` keyword before `BaseOperator` sees the remaining arguments. With `BaseOperator` first,
 * its constructor runs first and is handed the mixin's keyword, and wherever both classes define a
 * name, `BaseOperator`'s wins over the mixin's: a layout Airflow neither documents nor tests.
 *
 * ## Example
 * ```python
 * class BatchOperator(BaseOperator, ResumableJobMixin):
 *     external_id_key = "batch_job_id"
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "batch_job_id"
 * ```
 *
 * ## Fix safety
 * The fix swaps the two bases. It is safe when they are Airflow's own `BaseOperator` and the mixin,
 * written next to each other: the order becomes the one Airflow documents and tests, and nothing
 * else moves. It is unsafe when the first base is an operator class of the project, or when other
 * bases sit between the two: the mixin then moves before classes that may implement its methods, and
 * its abstract methods would hide those implementations and make the class abstract.
 */
export const AS304: Rule = {
  code: "AS304",
  name: "mixin-after-base-operator",
  summary: "`ResumableJobMixin` written after `BaseOperator` in the bases; the documented order is the mixin first",
  defaultSeverity: "warning",
  category: "crash",
  fix: "safe or unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("ResumableJobMixin"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("ResumableJobMixin")) return;
    const resumable = ResumableOperators.of(context);
    for (const cls of resumable.classes) {
      const mixinIndex = cls.baseNames.findIndex((name) => name !== undefined && isResumableJobMixin(name));
      if (mixinIndex <= 0) continue;
      const operatorIndex = cls.baseNames.slice(0, mixinIndex).findIndex((name) => name !== undefined && (isAirflowBaseOperator(name) || plainOperatorClass(resumable, name)));
      if (operatorIndex < 0) continue;
      const operator = cls.bases[operatorIndex];
      const mixin = cls.bases[mixinIndex];
      const superclasses = cls.node.childForFieldName("superclasses")!;
      report({
        node: superclasses,
        message: `${codeSpan(mixin.text)} comes after ${codeSpan(operator.text)} in the bases: Airflow documents the mixin first. That way its constructor takes \`durable\` before \`BaseOperator\`'s runs; put ${codeSpan(mixin.text)} before ${codeSpan(operator.text)}.`,
        fix: {
          title: `Put ${mixin.text} before ${operator.text}`,
          // Only the two swap places: a base between them would move after the mixin too.
          safe: isAirflowBaseOperator(cls.baseNames[operatorIndex]!) && mixinIndex === operatorIndex + 1,
          kind: "quickfix",
          edits: [replaceNode(operator, mixin.text), replaceNode(mixin, operator.text)],
        },
      });
    }
  },
};

/**
 * A class of this file or of the workspace that derives from `BaseOperator` but not from the mixin.
 * One that already derives from the mixin must come first: swapping would make the order inconsistent.
 */
function plainOperatorClass(resumable: ResumableOperators, qualifiedName: string): boolean {
  const ancestry = resumable.ancestryOfBase(qualifiedName);
  return ancestry !== undefined && ancestry.operator && !ancestry.resumable;
}
