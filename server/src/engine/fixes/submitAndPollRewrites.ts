/**
 * The two ways Section 6 of the review guidance folds a submit-and-poll split into one task, as
 * rewrites of the file (AS405's code actions and the review's before/after snippets):
 * - one deferrable task: `deferrable=True` and the wait keyword `True`, for deployments with a Triggerer;
 * - one task that waits in the worker: the wait keyword `True`, and `durable=True` when the operator is
 *   built on `ResumableJobMixin`, so a retry after a crash reconnects to the job.
 * Either way the sensor or poll task goes, and its dependencies move to the submit task.
 */
import { editsOverlap, replaceNode } from "./edits";
import { appendItem } from "./lists";
import { foldTaskInto } from "./rewiring";
import { Task } from "../airflow/dependencies";
import { SemanticModel } from "../airflow/model";
import { SubmitAndPoll } from "../airflow/submitAndPoll";
import { Fix, TextEdit } from "../types";
import { codeSpan } from "../syntax/markdown";

export type CollapsedForm = "deferrable" | "durable";

/** The rewrite into one task of the given form, or undefined when the split cannot be rewritten exactly. */
export function collapseSplit(model: SemanticModel, split: SubmitAndPoll, form: CollapsedForm): Fix | undefined {
  if (split.waits.length !== 1) return undefined;
  const wait = split.waits[0].task;
  const fold = foldTaskInto(split.graph, wait, split.submit);
  if (!fold) return undefined;
  const keywords = keywordEdits(model, split, form);
  if (!keywords || editsOverlap(keywords, fold)) return undefined;
  const waitKeyword = `${split.noWait.name}=True`;
  const what =
    form === "deferrable"
      ? `one deferrable task (${codeSpan(`deferrable=True, ${waitKeyword}`)}; needs a Triggerer)`
      : split.durable
        ? `one durable task (${codeSpan(`${waitKeyword}, durable=True`)})`
        : `one task that waits (${codeSpan(waitKeyword)})`;
  return {
    title: `Fold ${taskName(wait)} into ${taskName(split.submit)}: ${what}`,
    safe: false,
    kind: "refactor.rewrite",
    edits: [...fold, ...keywords],
  };
}

/** `submit_run`, or the task id when the task has no name. */
export function taskName(task: Task): string {
  if (task.binding) return codeSpan(task.binding.name);
  return task.taskId !== undefined ? codeSpan(task.taskId) : "the task";
}

function keywordEdits(model: SemanticModel, split: SubmitAndPoll, form: CollapsedForm): TextEdit[] | undefined {
  const { submit, noWait } = split;
  const edits: TextEdit[] = [replaceNode(noWait.value, "True")];
  const added: string[] = [];
  const set = (keyword: string, value: "True" | "False", addWhenMissing: boolean) => {
    const existing = submit.keywords.get(keyword);
    if (existing) {
      if (model.resolveValue(existing.value).type !== value.toLowerCase()) edits.push(replaceNode(existing.value, value));
    } else if (addWhenMissing) added.push(`${keyword}=${value}`);
  };
  if (form === "deferrable") set("deferrable", "True", true);
  else {
    // Deferral takes precedence over the durable path, so a waiting task must not defer.
    set("deferrable", "False", false);
    if (split.durable) set("durable", "True", true);
  }
  if (added.length > 0) {
    const list = submit.call.node.childForFieldName("arguments");
    const append = list?.type === "argument_list" ? appendItem(model, list, added.join(", ")) : undefined;
    if (!append) return undefined;
    edits.push(...append);
  }
  return edits;
}
