/**
 * Submit-and-poll splits (AS405–AS407 and the review): an operator task told not to wait for its
 * external job (`wait_for_termination=False`, `wait_for_completion=False`) whose job a later task
 * waits for, a sensor or a hand-written poll task.
 *
 * A task waits for the submit's job when it runs after the submit and
 * - is a sensor (a `*Sensor` class, `@task.sensor`, a `mode=` or `poke_interval=` keyword) that
 *   directly follows the submit or reads its result, or
 * - reads the submit's result (`submit.output`, `XComArg(submit)`, an `xcom_pull` of its task id in
 *   a template or in its callable) and polls: its function's name says so (`wait_for_run`,
 *   `poll_status`) or its body sleeps in a loop.
 * A task that only reads the job id (to log it, to post it) is not waiting, and a submit that nothing
 * waits for is fire-and-forget by choice.
 */
import { SyntaxNode } from "../syntax/parser";
import { analysis, AnalysisContext } from "../context";
import { Dependency, DependencyGraph, Task } from "./dependencies";
import { ownDescendants } from "../python/controlFlow";
import { FunctionInfo, SemanticModel, semanticModel } from "./model";
import { dictionaryEntry, ResumableOperators } from "./resumableOperators";
import { KeywordArgument, plainString } from "../syntax/nodes";

/** The keywords with which an operator returns as soon as its job is accepted. */
export const NO_WAIT_KEYWORDS = ["wait_for_termination", "wait_for_completion"] as const;

export type WaitKind = "sensor" | "poll";

export interface WaitTask {
  task: Task;
  kind: WaitKind;
  /**
   * How the task frees its worker slot between checks: `reschedule` (sensor mode), `deferrable`
   * (a Triggerer runs the checks); undefined when it holds the slot for the job's whole run (poke
   * mode, a poll loop).
   */
  freesSlot?: "reschedule" | "deferrable";
}

export interface SubmitAndPoll {
  /** The task that submits the job and returns without waiting. */
  submit: Task;
  /** `wait_for_termination=False` / `wait_for_completion=False` on the submit's call. */
  noWait: KeywordArgument;
  /** The tasks that wait for the submit's job, in document order; never empty. */
  waits: WaitTask[];
  /** Whether the submit's operator is built on `ResumableJobMixin` (its `durable=True` mode). */
  durable: boolean;
  graph: DependencyGraph;
}

const POLLING_NAME = /(^|_)(wait|waits|waiting|poll|polls|polling|await|monitor|watch)(_|$)|_until(_|$)|^until_/i;
const SLEEP_CALL = /(^|\.)sleep$/;
const LOOPS = ["while_statement", "for_statement"];

/** The splits of a file, in the order of their submit tasks. Cheap when the file names no `wait_for_*` keyword. */
export function submitAndPollSplits(context: AnalysisContext): SubmitAndPoll[] {
  if (!NO_WAIT_KEYWORDS.some((keyword) => context.text.includes(keyword))) return [];
  return context.get(splitsAnalysis);
}

const splitsAnalysis = analysis("submit-and-poll splits", findSplits);

function findSplits(context: AnalysisContext): SubmitAndPoll[] {
  const model = context.get(semanticModel);
  const graph = DependencyGraph.of(model);
  const operators = ResumableOperators.of(context);
  const splits: SubmitAndPoll[] = [];
  for (const submit of graph.tasks) {
    if (submit.kind !== "operator") continue;
    const noWait = noWaitKeyword(model, submit);
    if (!noWait) continue;
    const waits: WaitTask[] = [];
    const after = graph.descendants(submit);
    for (const candidate of graph.tasks) {
      if (!after.has(candidate)) continue;
      const wait = waitTask(context, graph, submit, candidate);
      if (wait) waits.push(wait);
    }
    if (waits.length === 0) continue;
    splits.push({ submit, noWait, waits, durable: operators.operatorCall(submit.call) !== undefined, graph });
  }
  return splits;
}

/** `wait_for_termination=False` or `wait_for_completion=False` written on the task's call. */
export function noWaitKeyword(model: SemanticModel, task: Task): KeywordArgument | undefined {
  for (const name of NO_WAIT_KEYWORDS) {
    const keyword = task.keywords.get(name);
    if (keyword && model.resolveValue(keyword.value).type === "false") return keyword;
  }
  return undefined;
}

function waitTask(context: AnalysisContext, graph: DependencyGraph, submit: Task, candidate: Task): WaitTask | undefined {
  const model = context.get(semanticModel);
  const readsResult = readsResultOf(model, graph, submit, candidate);
  const directly = graph.upstreamOf(candidate).some((d: Dependency) => d.upstream === submit);
  const fn = functionOf(model, candidate);
  let kind: WaitTask["kind"] | undefined;
  // A sensor right after the submit waits for its job only when it is one of the job's own sensors;
  // an S3KeySensor or TimeDeltaSensor there waits for something else unless it reads the submit's result.
  if (isSensor(candidate)) kind = readsResult || (directly && isJobSensor(candidate)) ? "sensor" : undefined;
  else if (readsResult && fn && polls(fn)) kind = "poll";
  if (!kind) return undefined;
  return { task: candidate, kind, freesSlot: kind === "sensor" ? freesSlot(context, candidate) : undefined };
}

/** A sensor: a `*Sensor` class, `@task.sensor`, or a call with a sensor's own keywords. */
export function isSensor(task: Task): boolean {
  if (task.kind === "taskflow") return task.function?.task?.variant === "task.sensor";
  const shortName = task.className?.slice(task.className.lastIndexOf(".") + 1) ?? "";
  return shortName.endsWith("Sensor") || task.keywords.has("mode") || task.keywords.has("poke_interval");
}

/** Sensors named for an external job, run or query (GlueJobSensor, EmrStepSensor, DataflowJobStatusSensor, AzureDataFactoryPipelineRunStatusSensor). */
const JOB_SENSOR = /(Job|JobRun|JobFlow|Run|Step|Batch|Pipeline|PipelineRun|Execution|Workflow|Query|Statement|Training|Transform|Application|Container)(Status|State|Completion)?Sensor$/;

function isJobSensor(task: Task): boolean {
  return task.kind !== "taskflow" && JOB_SENSOR.test(task.className ?? "");
}

/** `mode="reschedule"` or `deferrable=True` on the sensor, or in the `default_args` of its DAG when it sets neither. */
function freesSlot(context: AnalysisContext, task: Task): WaitTask["freesSlot"] {
  const model = context.get(semanticModel);
  const mode = task.keywords.get("mode");
  const deferrable = task.keywords.get("deferrable");
  // Finding the DAG a task belongs to resolves every call of the file: only worth it when some DAG has default_args.
  const defaults = (mode && deferrable) || !model.text.includes("default_args") ? undefined : ResumableOperators.of(context).defaultArgsOf(task.node);
  const modeValue = mode ? mode.value : dictionaryEntry(defaults, "mode")?.value;
  if (modeValue && plainString(model.resolveValue(modeValue)) === "reschedule") return "reschedule";
  const deferrableValue = deferrable ? deferrable.value : dictionaryEntry(defaults, "deferrable")?.value;
  if (deferrableValue && model.resolveValue(deferrableValue).type === "true") return "deferrable";
  return undefined;
}

/** Whether `reader` reads `submit`'s result: a data dependency, or an `xcom_pull` of its task id in an argument or in its callable. */
export function readsResultOf(model: SemanticModel, graph: DependencyGraph, submit: Task, reader: Task): boolean {
  if (graph.upstreamOf(reader).some((d) => d.kind === "data" && d.upstream === submit)) return true;
  if (!submit.taskId) return false;
  const texts = [...reader.keywords.values()].map((k) => k.value.text);
  const fn = functionOf(model, reader);
  if (fn) texts.push(fn.node.text);
  return texts.some((text) => pulledTaskIds(text).includes(submit.taskId!));
}

/**
 * Task ids named by `xcom_pull(...)` calls in a template or in code: `xcom_pull(task_ids="submit")`,
 * `xcom_pull("submit")`, `xcom_pull(key="run_id", task_ids=["a", "b"])`.
 */
export function pulledTaskIds(text: string): string[] {
  const ids: string[] = [];
  const quoted = /'([^']*)'|"([^"]*)"/g;
  for (const match of text.matchAll(/xcom_pull\(([^()]*)\)/g)) {
    const args = match[1];
    const named = /(?:^|,)\s*task_ids\s*=\s*(\[[^\]]*\]|'[^']*'|"[^"]*")/.exec(args) ?? /^\s*('[^']*'|"[^"]*")/.exec(args);
    if (!named) continue;
    for (const id of named[1].matchAll(quoted)) ids.push(id[1] ?? id[2]);
  }
  return ids;
}

/** The function a task runs: a TaskFlow function, or an operator's `python_callable`. */
function functionOf(model: SemanticModel, task: Task): FunctionInfo | undefined {
  if (task.function) return task.function;
  return model.functions.find((fn) => fn.callableOf.some((call) => call.node.id === task.call.node.id));
}

/** A function that waits for something: its name says so, or it sleeps in a loop. */
function polls(fn: FunctionInfo): boolean {
  if (POLLING_NAME.test(fn.name)) return true;
  const body = fn.node.childForFieldName("body");
  if (!body) return false;
  return ownDescendants(body, LOOPS).some((loop: SyntaxNode) => loop.descendantsOfType("call").some((call) => SLEEP_CALL.test(call.childForFieldName("function")?.text ?? "")));
}
