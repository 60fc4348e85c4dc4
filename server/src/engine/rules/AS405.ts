import { Rule } from "./rule";
import { SubmitAndPoll, submitAndPollSplits, WaitTask } from "../airflow/submitAndPoll";
import { collapseSplit, taskName } from "../fixes/submitAndPollRewrites";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Reports an operator task that returns as soon as its job is accepted (`wait_for_termination=False`
 * or `wait_for_completion=False`) when a later task waits for that job while holding a worker slot: a
 * sensor in poke mode (a `*Sensor` class, `@task.sensor`) that follows the submit or reads its result,
 * or a task that reads the submit's result (`submit.output`, an `xcom_pull` of its task id) and polls
 * (its name says `wait`/`poll`, or it sleeps in a loop). The diagnostic is on the submit call's first
 * line.
 *
 * A sensor in `mode="reschedule"` (or `deferrable=True`) frees its slot between checks: that split is
 * a valid design for very long jobs and is not reported. A submit that nothing waits for is
 * fire-and-forget by choice and is not reported either.
 *
 * ## Why is this bad?
 * The submit task turns green the moment the external system accepts the job, not when the job
 * succeeds; only the waiting task knows the outcome. Which design is right depends on the
 * deployment, not on a fixed answer:
 * - with a Triggerer, one task with `deferrable=True` **and** `wait_for_termination=True` frees the
 *   worker slot while the job runs (the deferrable path is not protected by `durable=True`: a crash
 *   before the trigger takes over resubmits);
 * - without a Triggerer, for short or medium jobs or plentiful slots, one task with
 *   `wait_for_termination=True, durable=True` (both defaults of operators built on
 *   `ResumableJobMixin`) polls in the worker and reconnects to the job after a crash, where a
 *   hand-written sensor has retry semantics of its own;
 * - without a Triggerer, for a very long job with scarce slots, keep the split with a
 *   `mode="reschedule"` sensor.
 * A poke-mode sensor or a poll loop holds a worker slot for the job's whole run anyway, so the split
 * buys nothing. Either way the submit task keeps `durable=True`: splitting off the poll does not
 * remove its duplicate-submit risk.
 *
 * ## Example
 * ```python
 * submit_run = DatabricksSubmitRunOperator(
 *     task_id="submit_run",
 *     json=RUN_SPEC,
 *     wait_for_termination=False,
 * )
 * wait_run = PythonSensor(task_id="wait_run", python_callable=run_finished, op_args=[submit_run.output])
 * submit_run >> wait_run >> publish
 * ```
 *
 * ## Use instead
 * One task that waits, deferring to a Triggerer:
 * ```python
 * submit_run = DatabricksSubmitRunOperator(
 *     task_id="submit_run",
 *     json=RUN_SPEC,
 *     wait_for_termination=True,
 *     deferrable=True,
 * )
 * submit_run >> publish
 * ```
 * or, without a Triggerer, `wait_for_termination=True, durable=True`; or keep the split for a very
 * long job with `mode="reschedule"` on the sensor. See `examples/dags/submit_and_poll_before.py` and
 * `examples/dags/submit_and_poll_after.py`.
 *
 * ## Fix safety
 * Two rewrites are offered, both unsafe: refactorings, never applied by `--fix`, since both change
 * what the DAG does. Each removes the waiting task, moves its dependencies to the submit task and
 * changes the submit's keywords, into one deferrable task (`deferrable=True,
 * wait_for_termination=True`) or into one task that waits in the worker
 * (`wait_for_termination=True`, with `durable=True` when the operator is built on
 * `ResumableJobMixin`). Which one fits depends on whether a Triggerer is deployed and how long the
 * job runs; the review shows both. No rewrite is offered when the waiting task's result is used
 * elsewhere or its dependencies cannot be moved exactly.
 */
export const AS405: Rule = {
  code: "AS405",
  name: "submit-then-poll",
  summary: "A submit task that does not wait (`wait_for_termination=False`) and a poke-mode sensor or poll task on its job: one task, or a reschedule sensor",
  defaultSeverity: "info",
  category: "submit",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.mentionsAny(["wait_for_termination", "wait_for_completion"]),
  check(context) {
    const { model, report } = context;
    for (const split of submitAndPollSplits(context)) {
      const holding = split.waits.find((w) => !w.freesSlot);
      if (!holding) continue;
      // The call's first line: all of it when it fits on one, else up to its opening parenthesis.
      const call = split.submit.call.node;
      const open = call.childForFieldName("arguments")?.firstChild;
      const oneLine = call.startPosition.row === call.endPosition.row;
      report({
        start: call.startIndex,
        end: oneLine || !open ? call.endIndex : open.endIndex,
        message: message(split, holding),
        fix: collapseSplit(model, split, "deferrable"),
        alternatives: [collapseSplit(model, split, "durable")].filter((fix) => fix !== undefined),
      });
    }
  },
};

function message(split: SubmitAndPoll, wait: WaitTask): string {
  const keyword = split.noWait.name;
  const waiter = taskName(wait.task);
  const holding = wait.kind === "sensor" ? "holds a worker slot in poke mode for the whole job" : "holds a worker slot polling for the whole job";
  const oneTask = split.durable
    ? `one task with ${codeSpan(`${keyword}=True, durable=True`)} reconnects to the job after a worker crash`
    : `one task with ${codeSpan(`${keyword}=True`)} waits in the worker`;
  const submitSafety = split.durable ? "Either way the submit keeps `durable=True`." : "Either way the submit itself still needs crash safety (`durable=True` where its operator offers it).";
  return (
    `${waiter.charAt(0).toUpperCase()}${waiter.slice(1)} ${holding}, so splitting it from ${taskName(split.submit)} saves nothing. ` +
    `${taskName(split.submit)} returns as soon as its job is accepted (${codeSpan(`${keyword}=False`)}). ` +
    `With a Triggerer, one task with ${codeSpan(`deferrable=True, ${keyword}=True`)} frees the slot (the deferrable path is not covered by \`durable=True\`); ` +
    `without one, ${oneTask}, fine for short or medium jobs; keep the split only for very long jobs with scarce slots, with \`mode="reschedule"\` on the sensor. ${submitSafety}`
  );
}
