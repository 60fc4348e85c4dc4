import { replaceNode } from "../fixes";
import { parsePython, SyntaxNode } from "../parser";
import { Rule } from "../rule";
import { SemanticModel } from "../semantic/model";
import { plainString, unparenthesize } from "../semantic/syntax";

/**
 * ## What it does
 * Checks for a string `external_id_key` of a `ResumableJobMixin` operator class that differs from
 * the one in the file's committed version (`HEAD`, or the CLI's `--baseline REV`). Classes are matched
 * by name; the rule is silent without git, for untracked files, for classes that are new or were not
 * resumable in the committed version, and when either version does not set the key to a string literal.
 *
 * ## Why is this bad?
 * `execute_resumable` looks for the external job id under `external_id_key` in the task state store.
 * A task instance that submitted its job with the deployed code stored the id under the old key;
 * when it is retried with the renamed key it finds no id and submits the job again, so every retry in
 * flight at deploy time runs a duplicate job.
 *
 * The default severity is a warning, not an error: the committed version is not necessarily the
 * deployed one, and a rename is harmless when that version never ran or no task instance of it is
 * still running or due for a retry.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "batch_run_id"  # committed as "batch_job_id"
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "batch_job_id"
 * ```
 *
 * ## Fix safety
 * The fix puts the committed string literal back. It is unsafe: it undoes an edit the user made on
 * purpose, and a rename can be intended (the operator never shipped, or in-flight runs were drained
 * first), so it is never applied by `--fix` or fix-all.
 */
export const AS301: Rule = {
  code: "AS301",
  name: "external-id-key-renamed",
  summary: "`external_id_key` renamed since the committed version: in-flight retries submit duplicate jobs",
  defaultSeverity: "warning",
  check({ model, baselineText, report }) {
    if (baselineText === undefined) return;
    const current = externalIdKeys(model);
    if (current.size === 0) return;
    const committed = externalIdKeys(baselineModel(baselineText));
    for (const [className, key] of current) {
      const old = committed.get(className);
      if (!old || old.value === key.value) continue;
      // Escapes are kept as written, so two spellings of one value could differ: only plain text is compared.
      if (old.value.includes("\\") || key.value.includes("\\")) continue;
      report({
        node: key.node,
        message: `Task instances that already submitted a job stored its id under the committed key \`${old.value}\`, so their retries find nothing under \`${key.value}\` and submit a duplicate job. Restore \`external_id_key = ${old.node.text}\`.`,
        fix: { title: `Restore the committed key ${old.node.text}`, safe: false, kind: "quickfix", edits: [replaceNode(key.node, old.node.text)] },
      });
    }
  },
};

/** Airflow's `airflow.sdk.ResumableJobMixin` under any import path, or a star-imported bare name. */
function isResumableJobMixin(qualifiedName: string): boolean {
  return qualifiedName === "ResumableJobMixin" || qualifiedName.endsWith(".ResumableJobMixin");
}

interface ExternalIdKey {
  /** The string literal. */
  node: SyntaxNode;
  value: string;
}

/**
 * The literal `external_id_key` of each resumable operator class, by class name. Classes whose name is
 * defined twice in the file, or whose key is assigned more than once or not to a literal, are left out.
 */
function externalIdKeys(model: SemanticModel): Map<string, ExternalIdKey> {
  const keys = new Map<string, ExternalIdKey>();
  for (const cls of model.subclassesOf(isResumableJobMixin)) {
    if (model.classes.filter((c) => c.name === cls.name).length !== 1) continue;
    const bindings = cls.scope.bindings.get("external_id_key");
    if (bindings?.length !== 1 || bindings[0].kind !== "assign" || !bindings[0].value) continue;
    const node = unparenthesize(bindings[0].value);
    const value = plainString(node);
    if (value === undefined || bindings[0].target.parent?.hasError) continue;
    keys.set(cls.name, { node, value });
  }
  return keys;
}

/**
 * The semantic model of the committed text. The language server lints the same file on every
 * keystroke against the same baseline, so the last one is kept.
 */
let lastBaseline: { text: string; model: SemanticModel } | undefined;

function baselineModel(text: string): SemanticModel {
  if (lastBaseline?.text !== text) lastBaseline = { text, model: new SemanticModel(parsePython(text), text) };
  return lastBaseline.model;
}
