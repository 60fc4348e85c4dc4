/**
 * State a task keeps where it does not belong (the anti-patterns of the seeds' review guidance,
 * rules AS401–AS404): Airflow Variables a task both reads and writes, and XComs a task pushes only to
 * pull them back on its retry. Everything here works per task body — a TaskFlow function, a
 * `python_callable`, an operator's `execute` — and only on calls in that body itself, not in
 * functions nested in it or helpers it calls.
 *
 * A Variable key counts as the task's own state only when nothing else in the file uses it: a key
 * another task reads (or a template names) is shared configuration or hand-off between tasks, which
 * is what Variables are for. Computed once per model and shared by the rules.
 */
import { attributeCalls, SyntaxNode } from "../syntax/parser";
import { AssetReference, assetReference, compareAssets, distinctCount, storeEntries, TaskDeclaration, taskDeclarations } from "./assets";
import { analysis, AnalysisContext } from "../context";
import { CallInfo, FunctionInfo, SemanticModel, semanticModel } from "./model";
import { ResumableOperators } from "./resumableOperators";
import { ownDescendants } from "../python/controlFlow";
import { isNumberLiteral, plainString, stringLiteral, unparenthesize, variableReferences } from "../syntax/nodes";
import { codeSpan } from "../syntax/markdown";

export type TaskBodyKind = "taskflow" | "python-callable" | "execute";

export interface TaskBody {
  fn: FunctionInfo;
  kind: TaskBodyKind;
}

export type VariableMethod = "get" | "set" | "delete";

/** A call of `Variable.get` / `Variable.set` / `Variable.delete` (Airflow's `airflow.sdk` or `airflow.models` class). */
export interface VariableCall {
  call: CallInfo;
  method: VariableMethod;
  /** The key argument (first positional or `key=`). */
  key?: SyntaxNode;
  /** What identifies the key across calls; undefined when it cannot be told (a computed key). */
  keyIdentity?: string;
  /** `get`: the default (second positional, `default_var=` of `airflow.models`, `default=` of `airflow.sdk`). */
  defaultValue?: SyntaxNode;
  /** `set`: the value (second positional or `value=`). */
  value?: SyntaxNode;
  /** `get`'s `deserialize_json` / `set`'s `serialize_json`: false when absent, undefined when not a literal. */
  json?: boolean;
  /** Every argument is one the store's methods have a counterpart for (`description=` is dropped). */
  rewritable: boolean;
}

/** A Variable key the task both reads and writes (with a value that is not a constant), that nothing else in the file uses. */
export interface VariableState {
  task: TaskBody;
  keyIdentity: string;
  /** The key as written in the first call. */
  key: SyntaxNode;
  /** The key's value when it is a literal (or a name bound once to one). */
  keyValue?: string;
  /** Every `Variable` call of the key in the task, in document order. */
  calls: VariableCall[];
}

/** The hand-written reconnect-or-submit of a job through a Variable (AS404). */
export interface ReconnectOrSubmit {
  state: VariableState;
  /** The name the job id is read into: `job_id = Variable.get("spark_job_id", ...)`. */
  jobId: string;
  /** The `if` that decides between reconnecting and submitting. */
  branch: SyntaxNode;
  /** The call whose result becomes the new job id: `job_id = self.hook.submit(...)`. */
  submitCall: SyntaxNode;
  /** Calls that wait for or reconnect to the job (taking the id) where the id was found. */
  waitCalls: SyntaxNode[];
  /** Calls in the `if` condition that take the id (`self._is_running(job_id)`). */
  checkCalls: SyntaxNode[];
  /** The `if` branch (not the `else`) is the one that reconnects: the condition holds when the job runs. */
  reconnectWhenTrue: boolean;
}

/** An XCom a task pushes and pulls back itself to find it on a retry (AS403). */
export interface XComRoundTrip {
  task: TaskBody;
  /** The key's value (`job_id`, `spark_run_id`). */
  key: string;
  pushes: XComCall[];
  pulls: XComCall[];
}

export interface XComCall {
  node: SyntaxNode;
  method: "xcom_push" | "xcom_pull";
  key: SyntaxNode;
  /** `xcom_push`: the value argument. */
  value?: SyntaxNode;
  /** No argument the store has no counterpart for. */
  rewritable: boolean;
}

export interface VariableFindings {
  /** Keys read and written by one task, that are not part of a reconnect-or-submit. */
  states: VariableState[];
  reconnects: ReconnectOrSubmit[];
}

const VARIABLE_METHOD = /^airflow\.(sdk|models)(\.[A-Za-z_][\w.]*)?\.Variable\.(get|set|delete)$/;
/** `job_id`, `run_id`, `spark_job_id`, `dbt_run_id`: keys that hold an external job's id. */
const JOB_ID_XCOM_KEY = /^(\w+_)?(job|run)_id$/;
/** Names of a job id (`spark_job_id`, `application_id`, `query_execution_id`, `batch_id`) or of anything about a job. */
const JOB_ID_NAME = /(^|_)(job|run|batch|query|execution|operation|statement|submission|request|application|app|cluster|pipeline)_?ids?$|job/i;
/** Words of a key that holds how far processing got, which belongs to the data's asset. */
const WATERMARK_WORDS = ["watermark", "last_processed", "processed_at", "high_water", "last_run", "last_success", "last_sync"];
/** Context keys Airflow passes to a task function by parameter name. */
export const CONTEXT_KEYS = new Set([
  "asset_state_store",
  "conf",
  "conn",
  "dag",
  "dag_run",
  "data_interval_end",
  "data_interval_start",
  "ds",
  "ds_nodash",
  "inlet_events",
  "inlets",
  "logical_date",
  "macros",
  "map_index_template",
  "outlet_events",
  "outlets",
  "params",
  "prev_data_interval_end_success",
  "prev_data_interval_start_success",
  "prev_end_date_success",
  "prev_start_date_success",
  "run_id",
  "task",
  "task_instance",
  "task_instance_key_str",
  "task_state_store",
  "test_mode",
  "ti",
  "triggering_asset_events",
  "ts",
  "ts_nodash",
  "ts_nodash_with_tz",
  "var",
]);

const variableFindingsAnalysis = analysis("Variable state", (context) => findVariableState(context.get(semanticModel), ResumableOperators.of(context)));
const xcomRoundTripsAnalysis = analysis("XCom round trips", (context) => (context.text.includes("xcom_p") ? findRoundTrips(context.get(semanticModel), ResumableOperators.of(context)) : []));

/** Whether a key's words say it is a watermark (`last_processed_at`, `orders_high_water_mark`). */
export function looksLikeWatermark(key: string): boolean {
  const lower = key.toLowerCase();
  return WATERMARK_WORDS.some((word) => lower.includes(word));
}

/** What a function runs as, when it is a task body: a `@task` function, a `python_callable`, or `execute` of an operator class. */
export function taskBodyOf(model: SemanticModel, fn: FunctionInfo, resumable: ResumableOperators): TaskBody | undefined {
  if (fn.task) return { fn, kind: "taskflow" };
  if (fn.callableOf.length > 0) return { fn, kind: "python-callable" };
  const cls = fn.enclosingClass;
  if (fn.name !== "execute" || !cls) return undefined;
  const operator = resumable.ancestry(cls).operator || cls.baseNames.some((name) => name !== undefined && /(Operator|Sensor)$/.test(name));
  return operator ? { fn, kind: "execute" } : undefined;
}

/** The Variable keys each task keeps as its own state, and the reconnect-or-submit patterns among them. */
export function variableFindings(context: AnalysisContext): VariableFindings {
  return context.get(variableFindingsAnalysis);
}

function findVariableState(model: SemanticModel, resumable: ResumableOperators): VariableFindings {
  const result: VariableFindings = { states: [], reconnects: [] };
  if (!model.text.includes("Variable")) return result;
  const calls = variableCalls(model);
  const groups = new Map<string, { task: TaskBody; calls: VariableCall[] }>();
  const bodies = new Map<FunctionInfo, TaskBody | undefined>();
  for (const call of calls) {
    if (call.keyIdentity === undefined) continue;
    const fn = model.functionOf(call.call.node);
    if (!fn) continue;
    if (!bodies.has(fn)) bodies.set(fn, taskBodyOf(model, fn, resumable));
    const task = bodies.get(fn);
    if (!task) continue;
    const id = `${fn.node.startIndex}|${call.keyIdentity}`;
    const group = groups.get(id) ?? { task, calls: [] };
    group.calls.push(call);
    groups.set(id, group);
  }
  for (const { task, calls: keyCalls } of groups.values()) {
    // A key only ever set to a literal constant is configuration the task writes, not state it keeps.
    if (!keyCalls.some((c) => c.method === "get") || !keyCalls.some((c) => c.method === "set" && !isConstant(model, c.value))) continue;
    const identity = keyCalls[0].keyIdentity!;
    if (usedElsewhere(model, task, identity, keyCalls, calls)) continue;
    const key = keyCalls[0].key!;
    const state: VariableState = { task, keyIdentity: identity, key, keyValue: plainString(model.resolveValue(key)), calls: keyCalls };
    const reconnect = reconnectOrSubmit(state);
    if (reconnect) result.reconnects.push(reconnect);
    else result.states.push(state);
  }
  return result;
}

/** Every Variable call of the file. */
function variableCalls(model: SemanticModel): VariableCall[] {
  const result: VariableCall[] = [];
  // `dict.get(...)` and `context.get(...)` are far more common than `Variable.get(...)`: only a
  // receiver spelled `Variable` (or an alias a `... import Variable as X` binds) is worth resolving.
  const receivers = new Set(["Variable"]);
  for (const [name, bindings] of model.module.bindings) {
    if (bindings.some((b) => b.kind === "import" && b.qualifiedName?.endsWith(".Variable"))) receivers.add(name);
  }
  for (const node of attributeCalls(model.tree, model.text, ["get", "set", "delete"], undefined, receivers)) {
    const callee = node.childForFieldName("function")!;
    const method = callee.childForFieldName("attribute")!.text as VariableMethod;
    const call = model.callInfo(node);
    if (!call.callee || !VARIABLE_METHOD.test(call.callee)) continue;
    result.push(variableCall(model, call, method));
  }
  return result;
}

/** The parameters of `Variable.get/set/delete` in both `airflow.sdk` and `airflow.models`, by position. */
const PARAMETERS: Record<VariableMethod, readonly (readonly string[])[]> = {
  get: [["key"], ["default_var", "default"], ["deserialize_json"]],
  set: [["key"], ["value"], ["description"], ["serialize_json"]],
  delete: [["key"]],
};

function variableCall(model: SemanticModel, call: CallInfo, method: VariableMethod): VariableCall {
  const { positional, keywords, hasSplat } = call.args;
  const parameters = PARAMETERS[method];
  const known = new Set(parameters.flat());
  const argument = (index: number): SyntaxNode | undefined => positional[index] ?? parameters[index].map((name) => keywords.get(name)?.value).find((v) => v);
  const key = argument(0);
  const jsonIndex = method === "get" ? 2 : method === "set" ? 3 : -1;
  const json = jsonIndex < 0 ? false : booleanLiteral(argument(jsonIndex));
  return {
    call,
    method,
    key,
    keyIdentity: key && keyIdentity(model, key),
    defaultValue: method === "get" ? argument(1) : undefined,
    value: method === "set" ? argument(1) : undefined,
    json,
    rewritable: !hasSplat && key !== undefined && positional.length <= parameters.length && [...keywords.keys()].every((k) => known.has(k)) && (method !== "set" || argument(1) !== undefined),
  };
}

/** How deep container literals are looked into for a constant. */
const MAX_CONSTANT_DEPTH = 8;

/**
 * A literal constant, directly or through a name bound once: a string without interpolation, a
 * number, `True`, `False`, `None`, or a list, tuple, set or dict literal of those. Absent (a call
 * that passes no value) is not one.
 */
function isConstant(model: SemanticModel, node: SyntaxNode | undefined, depth = 0): boolean {
  if (!node || depth > MAX_CONSTANT_DEPTH) return false;
  const value = model.resolveValue(node);
  switch (value.type) {
    case "true":
    case "false":
    case "none":
      return true;
    case "string":
    case "concatenated_string": {
      const literal = stringLiteral(value);
      return literal !== undefined && !literal.isFString;
    }
    case "list":
    case "tuple":
    case "set":
      return value.namedChildren.every((item) => item.type === "comment" || isConstant(model, item, depth + 1));
    case "dictionary":
      return value.namedChildren.every((pair) => {
        if (pair.type === "comment") return true;
        const key = pair.childForFieldName("key");
        return pair.type === "pair" && isConstant(model, key ?? undefined, depth + 1) && isConstant(model, pair.childForFieldName("value") ?? undefined, depth + 1);
      });
    default:
      return isNumberLiteral(value);
  }
}

/** The key's calls after the first, which a finding on the first shows as its other places. */
export function laterCalls(state: VariableState): { message: string; nodes: SyntaxNode[] } {
  return { message: `Another \`Variable\` call of ${codeSpan(state.key.text)} in this task`, nodes: state.calls.slice(1).map((c) => c.call.node) };
}

function booleanLiteral(node: SyntaxNode | undefined): boolean | undefined {
  if (!node) return false;
  const value = unparenthesize(node);
  return value.type === "true" ? true : value.type === "false" ? false : undefined;
}

/**
 * What identifies a key across calls: its value when it is a literal (or a name bound once to one),
 * the binding of a name bound once, or an f-string's text when every name in it is bound once.
 */
export function keyIdentity(model: SemanticModel, node: SyntaxNode): string | undefined {
  const key = unparenthesize(node);
  const value = plainString(model.resolveValue(key));
  if (value !== undefined) return `literal:${value}`;
  if (key.type === "identifier") {
    const binding = model.bindingOf(key);
    return binding ? `name:${binding.target.startIndex}` : undefined;
  }
  const literal = stringLiteral(key);
  if (!literal?.isFString || literal.isBytes) return undefined;
  let identity = key.text;
  for (const interpolation of key.descendantsOfType("interpolation")) {
    const expression = interpolation.namedChildren[0];
    if (expression?.type !== "identifier") return undefined;
    const binding = model.bindingOf(expression);
    if (!binding) return undefined;
    identity = identity.replace(interpolation.text, `{${binding.target.startIndex}}`);
  }
  return `fstring:${identity}`;
}

/** The words of a key to judge it by: its value, or the text it is written as. */
export function keyWords(state: VariableState): string {
  return state.keyValue ?? state.key.text;
}

/**
 * Whether something outside the task may read or write the key: another Variable call of it, or,
 * for a literal key, its text anywhere else in the file (a template's `{{ var.value.key }}`, a
 * constant used by another task).
 */
function usedElsewhere(model: SemanticModel, task: TaskBody, identity: string, own: VariableCall[], all: VariableCall[]): boolean {
  if (all.some((c) => c.keyIdentity === identity && !own.includes(c))) return true;
  if (!identity.startsWith("literal:")) return false;
  // The key's own literal, where it is bound to a name, is not a use.
  const definitions = own.map((c) => model.resolveValue(c.key!));
  return appearsOutside(model, task.fn.node, identity.slice("literal:".length), definitions);
}

/** Whether `word` appears in the file outside `node` (and outside `except`): in code, a string, a template or a comment. */
export function appearsOutside(model: SemanticModel, node: SyntaxNode, word: string, except: readonly SyntaxNode[] = []): boolean {
  if (word.length === 0) return false;
  const inside = (at: number, n: SyntaxNode) => at >= n.startIndex && at < n.endIndex;
  // As a word: `etl_cursor` in `var.value.etl_cursor`, not in `etl_cursor_2`.
  const pattern = new RegExp(`(?<![\\w])${escapeRegExp(word)}(?![\\w])`, "g");
  for (const match of model.text.matchAll(pattern)) {
    if (!inside(match.index!, node) && !except.some((n) => inside(match.index!, n))) return true;
  }
  return false;
}

// ---- the asset a key belongs to ----

/** Why a key a task reads and writes belongs to an asset's store rather than a Variable or the task's store. */
export interface AssetHome {
  /** The key's words say it is a watermark, or the task produces exactly one asset. */
  reason: "watermark" | "outlet";
  /** The asset whose store should hold the key: the task's single outlet, else its single inlet, else the file's only asset. */
  asset?: AssetReference;
  /** The declarations that must list `asset` in `outlets=` first (when it is the file's only asset and the task declares none). */
  addTo: TaskDeclaration[];
}

/** Where a key belongs when it is about an asset (AS402); undefined when it is the task's own state (AS401). */
export function assetHome(model: SemanticModel, state: VariableState): AssetHome | undefined {
  const declarations = state.task.kind === "execute" ? undefined : taskDeclarations(model, state.task.fn);
  const outlet = declarations && sameAsset(declarations.map((d) => single(d.outlets)));
  const watermark = looksLikeWatermark(keyWords(state));
  if (!outlet && !watermark) return undefined;
  const reason = watermark ? "watermark" : "outlet";
  if (outlet) return { reason, asset: outlet, addTo: [] };
  if (!declarations) return { reason, addTo: [] };
  if (declarations.every((d) => d.outlets.length === 0)) {
    const inlet = sameAsset(declarations.map((d) => single(d.inlets)));
    if (inlet) return { reason, asset: inlet, addTo: [] };
  }
  if (declarations.every((d) => storeEntries(d).length === 0)) {
    const only = onlyModuleAsset(model);
    if (only) return { reason, asset: only, addTo: declarations };
  }
  return { reason, addTo: [] };
}

/** The one asset of a list, when all its entries are certainly the same asset. */
function single(assets: readonly AssetReference[]): AssetReference | undefined {
  return assets.length > 0 && distinctCount(assets).max === 1 ? assets[0] : undefined;
}

/** The asset every entry names, when they all name certainly the same one. */
function sameAsset(assets: readonly (AssetReference | undefined)[]): AssetReference | undefined {
  const first = assets[0];
  return first && assets.every((a) => a && compareAssets(first, a) === "same") ? first : undefined;
}

/**
 * The only asset the file assigns to a module-level name, when no DAG is scheduled on it: adding it to
 * a task's outlets would then make that DAG trigger itself.
 */
function onlyModuleAsset(model: SemanticModel): AssetReference | undefined {
  const assets: AssetReference[] = [];
  for (const bindings of model.module.bindings.values()) {
    if (bindings.length !== 1 || bindings[0].kind !== "assign") continue;
    const reference = assetReference(model, bindings[0].target);
    if (reference && reference !== "alias") assets.push(reference);
  }
  if (assets.length !== 1) return undefined;
  const name = assets[0].node.text;
  const scheduled = model.dags.some((dag) => {
    const schedule = dag.keywords.get("schedule")?.value;
    return schedule !== undefined && variableReferences(schedule, name).length > 0;
  });
  return scheduled ? undefined : assets[0];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^$(){}|[\]\\]/g, "\\$&");
}

// ---- reconnect-or-submit ----

/**
 * `job_id = Variable.get(K)`, then an `if` on `job_id` with a branch that submits
 * (`job_id = submit(...)`) and a part that waits for the job (`wait(job_id)`): the `else` branch, or,
 * without one, the statements after the `if`. The key or the name must be about a job.
 */
function reconnectOrSubmit(state: VariableState): ReconnectOrSubmit | undefined {
  const body = state.task.fn.node.childForFieldName("body");
  if (!body) return undefined;
  for (const read of state.calls) {
    if (read.method !== "get") continue;
    const assignment = read.call.node.parent;
    const target = assignment?.type === "assignment" && assignment.childForFieldName("right")?.id === read.call.node.id ? assignment.childForFieldName("left") : undefined;
    if (target?.type !== "identifier") continue;
    const jobId = target.text;
    if (!JOB_ID_NAME.test(jobId) && !JOB_ID_NAME.test(keyWords(state))) continue;
    for (const branch of ownDescendants(body, "if_statement")) {
      if (branch.startIndex < read.call.node.endIndex) continue;
      const found = submitAndWait(branch, jobId);
      if (found) return { state, jobId, branch, ...found };
    }
  }
  return undefined;
}

function submitAndWait(branch: SyntaxNode, jobId: string): Omit<ReconnectOrSubmit, "state" | "jobId" | "branch"> | undefined {
  const condition = branch.childForFieldName("condition");
  if (!condition || variableReferences(condition, jobId).length === 0) return undefined;
  const alternatives = branch.childrenForFieldName("alternative");
  if (alternatives.some((a) => a.type === "elif_clause")) return undefined;
  const consequence = branch.childForFieldName("consequence");
  const otherwise = alternatives.find((a) => a.type === "else_clause")?.childForFieldName("body") ?? undefined;
  const blocks = [consequence, otherwise].filter((b): b is SyntaxNode => !!b);
  const submitBlock = blocks.find((b) => submittedIn(b, jobId));
  if (!submitBlock) return undefined;
  const submitCall = submittedIn(submitBlock, jobId)!;
  let waitCalls: SyntaxNode[];
  const reconnectBlock = blocks.find((b) => b.id !== submitBlock.id);
  if (reconnectBlock) waitCalls = callsTaking(reconnectBlock, jobId);
  else {
    // `if not job_id: submit` and then wait, whichever way the id was found.
    const block = branch.parent;
    const after = block ? block.namedChildren.filter((s) => s.startIndex >= branch.endIndex) : [];
    waitCalls = after.flatMap((statement) => callsTaking(statement, jobId));
  }
  if (waitCalls.length === 0) return undefined;
  return { submitCall, waitCalls, checkCalls: callsTaking(condition, jobId), reconnectWhenTrue: reconnectBlock?.id === consequence?.id };
}

/** The call assigned to `jobId` in a block (`job_id = self.hook.submit(...)`). */
function submittedIn(block: SyntaxNode, jobId: string): SyntaxNode | undefined {
  for (const assignment of ownDescendants(block, "assignment")) {
    const left = assignment.childForFieldName("left");
    const right = assignment.childForFieldName("right");
    if (left?.type === "identifier" && left.text === jobId && right?.type === "call") return right;
  }
  return undefined;
}

/** The outermost calls in `node` that take `name` as an argument, other than Variable calls. */
function callsTaking(node: SyntaxNode, name: string): SyntaxNode[] {
  const calls = (node.type === "call" ? [node] : []).concat(ownDescendants(node, "call"));
  const taking = calls.filter((call) => {
    const args = call.childForFieldName("arguments");
    const fn = call.childForFieldName("function");
    if (!args || fn?.text.endsWith("Variable.set") || fn?.text.endsWith("Variable.get")) return false;
    return args.namedChildren.some((arg) => {
      const value = arg.type === "keyword_argument" ? arg.childForFieldName("value") : arg;
      return value?.type === "identifier" && value.text === name;
    });
  });
  return taking.filter((call) => !taking.some((other) => other.id !== call.id && other.startIndex <= call.startIndex && other.endIndex >= call.endIndex));
}

// ---- XCom ----

/** The XComs with a job-id-like key that a task pushes and also pulls back from itself, pulling before it pushes. */
export function xcomRoundTrips(context: AnalysisContext): XComRoundTrip[] {
  return context.get(xcomRoundTripsAnalysis);
}

function findRoundTrips(model: SemanticModel, resumable: ResumableOperators): XComRoundTrip[] {
  const groups = new Map<string, XComRoundTrip>();
  for (const node of attributeCalls(model.tree, model.text, ["xcom_push", "xcom_pull"])) {
    const fn = model.functionOf(node);
    const task = fn && taskBodyOf(model, fn, resumable);
    if (!task) continue;
    const call = xcomCall(model, task, node);
    if (!call) continue;
    const id = `${task.fn.node.startIndex}|${call.keyValue}`;
    const trip = groups.get(id) ?? { task, key: call.keyValue, pushes: [], pulls: [] };
    (call.call.method === "xcom_push" ? trip.pushes : trip.pulls).push(call.call);
    groups.set(id, trip);
  }
  return [...groups.values()].filter((trip) => trip.pushes.length > 0 && trip.pulls.length > 0 && trip.pulls[0].node.startIndex < trip.pushes[trip.pushes.length - 1].node.startIndex);
}

/** An `xcom_push` / `xcom_pull` on the task instance, of a job-id-like literal key, pulling from the task itself. */
function xcomCall(model: SemanticModel, task: TaskBody, node: SyntaxNode): { call: XComCall; keyValue: string } | undefined {
  const fn = node.childForFieldName("function")!;
  const method = fn.childForFieldName("attribute")!.text as XComCall["method"];
  const receiver = fn.childForFieldName("object")!;
  if (!isTaskInstance(model, receiver)) return undefined;
  const { positional, keywords, hasSplat } = model.callInfo(node).args;
  if (hasSplat) return undefined;
  if (method === "xcom_push") {
    const key = positional[0] ?? keywords.get("key")?.value;
    const value = positional[1] ?? keywords.get("value")?.value;
    const keyValue = key && plainString(model.resolveValue(key));
    if (!key || !keyValue || !JOB_ID_XCOM_KEY.test(keyValue)) return undefined;
    const rewritable = value !== undefined && positional.length <= 2 && [...keywords.keys()].every((k) => k === "key" || k === "value");
    return { call: { node, method, key, value, rewritable }, keyValue };
  }
  // xcom_pull(task_ids=None, dag_id=None, key=..., include_prior_dates=False, ...)
  const key = positional[2] ?? keywords.get("key")?.value;
  const keyValue = key && plainString(model.resolveValue(key));
  if (!key || !keyValue || !JOB_ID_XCOM_KEY.test(keyValue)) return undefined;
  const taskIds = positional[0] ?? keywords.get("task_ids")?.value;
  const dagId = positional[1] ?? keywords.get("dag_id")?.value;
  if (dagId && unparenthesize(dagId).type !== "none") return undefined;
  if (!pullsFromItself(model, task, taskIds, receiver)) return undefined;
  const others = [...keywords.keys()].filter((k) => k !== "key" && k !== "task_ids" && k !== "dag_id");
  // `include_prior_dates=True` reads earlier runs, `map_indexes=` other map indices: not this task instance's own.
  if (others.length > 0 || positional.length > 3) return undefined;
  return { call: { node, method, key, rewritable: true }, keyValue };
}

/** `ti`, `task_instance`, `context["ti"]`, `context.get("ti")`, or a name bound once to one of these. */
function isTaskInstance(model: SemanticModel, expression: SyntaxNode): boolean {
  let node = unparenthesize(expression);
  // Names bound to names are followed in a loop, each once: `a = b` / `b = a` is a cycle.
  const followed = new Set<number>();
  while (node.type === "identifier") {
    if (node.text === "ti" || node.text === "task_instance") return true;
    const binding = model.bindingOf(node);
    if (binding?.kind !== "assign" || binding.value === undefined || followed.has(node.id)) return false;
    followed.add(node.id);
    node = unparenthesize(binding.value);
  }
  if (node.type === "subscript") return isTaskInstanceKey(plainString(node.childForFieldName("subscript")));
  if (node.type === "call") {
    const fn = node.childForFieldName("function");
    const args = node.childForFieldName("arguments")?.namedChildren ?? [];
    return fn?.type === "attribute" && fn.childForFieldName("attribute")?.text === "get" && isTaskInstanceKey(plainString(args[0]));
  }
  return false;
}

function isTaskInstanceKey(key: string | undefined): boolean {
  return key === "ti" || key === "task_instance";
}

/** `task_ids` absent or `None`, the task's own id as a literal, or `<ti or self>.task_id`. */
function pullsFromItself(model: SemanticModel, task: TaskBody, taskIds: SyntaxNode | undefined, receiver: SyntaxNode): boolean {
  if (!taskIds) return true;
  const node = unparenthesize(taskIds);
  if (node.type === "none") return true;
  if (node.type === "attribute" && node.childForFieldName("attribute")?.text === "task_id") {
    const object = node.childForFieldName("object")!;
    const self = task.kind === "execute" ? task.fn.parameters[0]?.name : undefined;
    return object.text === receiver.text || object.text === self || isTaskInstance(model, object);
  }
  const literal = plainString(model.resolveValue(node));
  return literal !== undefined && literal === ownTaskId(model, task);
}

/** The task's id when the file states it: `@task(task_id=...)` or the function's name, the operator call's `task_id=`. */
function ownTaskId(model: SemanticModel, task: TaskBody): string | undefined {
  if (task.kind === "taskflow") {
    const keyword = task.fn.task!.keywords.get("task_id");
    return keyword ? plainString(model.resolveValue(keyword.value)) : task.fn.name;
  }
  if (task.kind === "python-callable") {
    const ids = new Set(task.fn.callableOf.map((call) => {
      const keyword = call.args.keywords.get("task_id");
      return keyword ? plainString(model.resolveValue(keyword.value)) : undefined;
    }));
    return ids.size === 1 ? [...ids][0] : undefined;
  }
  return undefined;
}
