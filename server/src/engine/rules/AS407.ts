import { Rule } from "./rule";
import { moveDependency } from "../fixes/rewiring";
import { Dependency } from "../airflow/dependencies";
import { SemanticModel } from "../airflow/model";
import { readsResultOf, SubmitAndPoll, submitAndPollSplits } from "../airflow/submitAndPoll";
import { taskName } from "../fixes/submitAndPollRewrites";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * With a submit-and-poll split (an operator with `wait_for_termination=False` or
 * `wait_for_completion=False` whose job a later sensor or poll task waits for, as AS405 finds it),
 * reports each dependency that makes a task run after the submit task without running after the
 * waiting task: `submit >> notify`, `chain(submit, notify)`, `submit.set_downstream(notify)`. The
 * diagnostic is on the dependency expression (on the task's item when it is in a list). Tasks that
 * lead to the waiting task, and tasks that read the submit's result (the job id), are left alone.
 * Nothing is reported when some dependency of the file cannot be followed (tasks from a helper,
 * `chain(*tasks)`, a task handed to a function that may link it), since the missing link could run
 * through the waiting task; nor for a task group on the far side of the dependency.
 *
 * ## Why is this bad?
 * The submit task succeeds as soon as the external system accepts the job. A task, an alert or an
 * SLA that depends on it runs while the job may still fail: its success only means "accepted".
 * Keeping the split is a valid design (a `mode="reschedule"` sensor for a very long job), but then
 * everything that needs the job's outcome must depend on the sensor. This is a problem of the
 * dependencies, not of the architecture.
 *
 * ## Example
 * ```python
 * submit_run >> wait_run >> publish
 * submit_run >> notify_done
 * ```
 *
 * ## Use instead
 * ```python
 * submit_run >> wait_run >> publish
 * submit_run >> wait_run >> notify_done
 * ```
 * `examples/dags/submit_and_poll_after.py` keeps a split this way; `examples/dags/submit_and_poll_before.py`
 * shows the mistake.
 *
 * ## Fix safety
 * The fix puts the waiting task between the two (`submit_run >> wait_run >> notify_done`, or a
 * statement `wait_run >> notify_done` for an item of a list). It is unsafe and offered as a
 * refactoring: the task then starts only once the job has finished, and does not run at all when the
 * job fails, which is the point, but changes when it runs. No fix is offered when the waiting task
 * has no name to refer to it by.
 */
export const AS407: Rule = {
  code: "AS407",
  name: "downstream-of-submit",
  summary: "A task that depends on a submit task that does not wait, instead of on the sensor that waits for its job: its success only means \"accepted\"",
  defaultSeverity: "warning",
  category: "submit",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.mentionsAny(["wait_for_termination", "wait_for_completion"]),
  check(context) {
    const { model, report } = context;
    for (const split of submitAndPollSplits(context)) {
      const { graph, submit, waits } = split;
      if (graph.unresolved.length > 0) continue;
      const reported = new Set<string>();
      for (const dependency of graph.downstreamOf(submit)) {
        if (dependency.kind !== "control" || !runsOnlyAfterAcceptance(model, split, dependency)) continue;
        const range = rangeOf(dependency);
        const key = `${range.start}:${range.end}`;
        if (reported.has(key)) continue;
        reported.add(key);
        const wait = waits[0].task;
        const edits = moveDependency(graph, dependency, wait);
        report({
          ...range,
          message: `${taskName(dependency.downstream)} runs as soon as ${taskName(submit)} has handed its job over: it follows an accepted job, not a finished one. ${taskName(submit)} has ${codeSpan(`${split.noWait.name}=False`)}; make it depend on ${taskName(wait)}, which waits for the job.`,
          fix: edits && { title: `Make ${taskName(dependency.downstream)} depend on ${taskName(wait)}`, safe: false, kind: "refactor.rewrite", edits },
        });
      }
    }
  },
};

/**
 * The downstream task neither waits for the job, nor leads to a task that does, nor runs after one,
 * nor reads the job id; and the graph knows all of its dependencies and the waiting tasks'.
 */
function runsOnlyAfterAcceptance(model: SemanticModel, split: SubmitAndPoll, dependency: Dependency): boolean {
  const { graph, submit, waits } = split;
  const task = dependency.downstream;
  // A task group or a list bound to a name: its edges are approximate, and one diagnostic could not name them all.
  if (dependency.to.tasks.length !== 1) return false;
  if (![task, submit, ...waits.map((w) => w.task)].every((t) => graph.isFullyModeled(t))) return false;
  if (waits.some((w) => w.task === task || graph.reaches(w.task, task) || graph.reaches(task, w.task))) return false;
  return !readsResultOf(model, graph, submit, task);
}

/** The expression joining the two operands, or the task's item when it is in a list, or the `set_*` call. */
function rangeOf(dependency: Dependency): { start: number; end: number } {
  const expression = dependency.expression!;
  const inList = !expression.operands.includes(dependency.to);
  if (inList) return { start: dependency.to.node.startIndex, end: dependency.to.node.endIndex };
  if (expression.kind === "set_downstream" || expression.kind === "set_upstream") return { start: expression.node.startIndex, end: expression.node.endIndex };
  const nodes = [dependency.from.node, dependency.to.node];
  return { start: Math.min(...nodes.map((n) => n.startIndex)), end: Math.max(...nodes.map((n) => n.endIndex)) };
}
