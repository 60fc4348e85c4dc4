/**
 * The DAGs of a file and the task ids they define, with where each is written: what the store
 * browser's code lens needs to match a file against the task instances of a live Airflow.
 *
 * Only ids that are certain are reported (string literals, or names bound once to one); anything
 * computed at parse time (f-strings, loops, `task_id` passed through variables of several values) is
 * left out, so a lens never shows the entries of another task.
 */
import { parsePython, SyntaxNode, Tree } from "../syntax/parser";
import { DependencyGraph } from "../airflow/dependencies";
import { DagInfo, FunctionInfo, SemanticModel } from "../airflow/model";
import { definitionStatement, plainString } from "../syntax/nodes";
import { Range } from "../types";

export type OutlineTaskKind =
  /** A `@task` function: the lens goes above its decorators. */
  | "taskflow"
  /** An operator call with `task_id=` (or `.override(task_id=...)`). */
  | "operator"
  /** A function run by an operator's `python_callable=`; its task id is the operator's. */
  | "callable";

export interface OutlineTask {
  /** The task id as Airflow reports it, task group prefixes included. */
  taskId: string;
  kind: OutlineTaskKind;
  /** Where the task is written; the lens goes on the first line. */
  range: Range;
}

export interface OutlineDag {
  dagId: string;
  /** The `with DAG(...)` statement, the `DAG(...)` call or the `@dag` function. */
  range: Range;
  tasks: OutlineTask[];
}

export interface DagOutline {
  dags: OutlineDag[];
}

const TASK_GROUP_CLASS = /^airflow\..*\.TaskGroup$/;
const TASK_GROUP_DECORATOR = /^airflow\.(sdk|decorators)\.task_group$/;

interface Span {
  start: number;
  end: number;
}

interface DagSpan extends Span {
  /** Undefined for a DAG whose id is computed. */
  dag: OutlineDag | undefined;
}

interface GroupSpan extends Span {
  groupId: string;
  /** `prefix_group_id=False`: the group adds nothing to its tasks' ids. */
  prefixes: boolean;
}

/**
 * Parses `text` and outlines it. A file that never names `airflow` cannot import a DAG class or
 * decorator, so it is not parsed at all.
 */
export function outlineOfText(text: string): DagOutline {
  return outlineOf(text, () => parsePython(text));
}

/** `outlineOfText` of a text whose tree the caller has (an open document's), asked for only when the text names `airflow`. */
export function outlineOf(text: string, tree: () => Tree): DagOutline {
  if (!text.includes("airflow")) return { dags: [] };
  return dagOutline(new SemanticModel(tree(), text));
}

/** The DAGs of the file and their tasks; empty when the file defines no DAG with a certain id. */
export function dagOutline(model: SemanticModel): DagOutline {
  // DAGs whose id is not certain keep their span, so their tasks are not given to another DAG.
  const dagSpans: DagSpan[] = [];
  for (const info of model.dags) {
    const dagId = dagIdOf(model, info);
    const node = dagNode(info);
    dagSpans.push({ start: node.startIndex, end: node.endIndex, dag: dagId === undefined ? undefined : { dagId, range: rangeOf(node), tasks: [] } });
  }
  const known = dagSpans.flatMap((s) => (s.dag ? [s.dag] : []));
  if (known.length === 0) return { dags: [] };
  const groups = taskGroups(model);

  const add = (anchor: SyntaxNode, rawTaskId: string, kind: OutlineTaskKind, placedAt: SyntaxNode = anchor) => {
    const dag = owningDag(dagSpans, anchor.startIndex);
    if (!dag) return;
    const taskId = prefixed(groups, anchor.startIndex, rawTaskId);
    if (!dag.tasks.some((t) => t.taskId === taskId && t.kind === kind && t.range.start.line === placedAt.startPosition.row)) {
      dag.tasks.push({ taskId, kind, range: rangeOf(placedAt) });
    }
  };

  // The tasks are the dependency graph's: what the file instantiates (an operator call, a TaskFlow
  // call, `.override(...)` or `.expand(...)` of one), placed in the DAG and task groups they are
  // instantiated in. A TaskFlow function that is never called is no task.
  // The function each operator call runs (`python_callable=`), by the call's node.
  const runBy = new Map(model.functions.flatMap((fn) => fn.callableOf.map((call) => [call.node.id, fn] as const)));
  for (const task of DependencyGraph.of(model).tasks) {
    if (task.taskId === undefined) continue;
    if (task.kind === "taskflow") {
      if (task.function) add(task.node, task.taskId, "taskflow", definitionStatement(task.function.node));
      continue;
    }
    add(task.call.node, task.taskId, "operator");
    // The function an operator runs gets the task's lens too, however far from the call it is.
    const runs = runBy.get(task.call.node.id);
    if (runs) add(task.call.node, task.taskId, "callable", definitionStatement(runs.node));
  }
  for (const dag of known) dag.tasks.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return { dags: known };
}

/** `DAG("id")`, `DAG(dag_id="id")`, `@dag(dag_id="id")`, or the decorated function's name. */
function dagIdOf(model: SemanticModel, info: DagInfo): string | undefined {
  const keyword = info.keywords.get("dag_id");
  if (keyword) return certainString(model, keyword.value);
  if (info.call) {
    const first = info.call.args.positional[0];
    return first ? certainString(model, first) : undefined;
  }
  // `@dag` or `@dag(...)`: a positional dag_id is possible in the call form.
  const fn = model.functions.find((f) => f.node.startIndex === info.node.startIndex);
  const decorator = fn && dagDecoratorCall(model, fn);
  const positional = decorator ? callPositional(decorator) : undefined;
  if (positional) return certainString(model, positional);
  return fn?.name;
}

function dagDecoratorCall(model: SemanticModel, fn: FunctionInfo): SyntaxNode | undefined {
  const decorated = fn.node.parent;
  if (decorated?.type !== "decorated_definition") return undefined;
  for (const decorator of decorated.namedChildren) {
    const expression = decorator.type === "decorator" ? decorator.namedChildren[0] : undefined;
    if (expression?.type !== "call") continue;
    if (/^airflow\.(sdk|decorators)\.dag$/.test(model.qualifiedName(expression.childForFieldName("function")) ?? "")) return expression;
  }
  return undefined;
}

function callPositional(call: SyntaxNode): SyntaxNode | undefined {
  const list = call.childForFieldName("arguments");
  const first = list?.namedChildren.find((c) => c.type !== "comment");
  return first && first.type !== "keyword_argument" && first.type !== "list_splat" && first.type !== "dictionary_splat" ? first : undefined;
}

/** A `with DAG(...)` DAG spans its whole with-statement, so tasks of its body belong to it. */
function dagNode(info: DagInfo): SyntaxNode {
  return (info.call && withStatementOf(info.call.node)) ?? info.node;
}

/**
 * The with-statement whose item is `call` (`with X(...):` or `with X(...) as x:`), climbing the
 * three or fewer nodes between them.
 */
function withStatementOf(call: SyntaxNode): SyntaxNode | undefined {
  let node: SyntaxNode | null = call.parent;
  for (let depth = 0; node && depth < 3 && ["as_pattern", "with_item", "with_clause"].includes(node.type); depth++) node = node.parent;
  return node?.type === "with_statement" ? node : undefined;
}

/**
 * The innermost DAG whose span holds the offset; a file with one DAG owns every task outside it
 * too (tasks defined at module level and called inside `with DAG`).
 */
function owningDag(spans: DagSpan[], offset: number): OutlineDag | undefined {
  let best: DagSpan | undefined;
  for (const span of spans) {
    if (span.start <= offset && offset < span.end && (!best || span.start >= best.start)) best = span;
  }
  if (best) return best.dag;
  return spans.length === 1 ? spans[0].dag : undefined;
}

/** `with TaskGroup("g"):` blocks and `@task_group` functions, with the id each adds. */
function taskGroups(model: SemanticModel): GroupSpan[] {
  const groups: GroupSpan[] = [];
  for (const call of model.calls) {
    const callee = call.callee;
    if (!callee || !TASK_GROUP_CLASS.test(callee)) continue;
    const statement = withStatementOf(call.node);
    if (!statement) continue;
    const idNode = call.args.keywords.get("group_id")?.value ?? call.args.positional[0];
    const groupId = idNode ? certainString(model, idNode) : undefined;
    if (groupId === undefined) continue;
    groups.push({ start: statement.startIndex, end: statement.endIndex, groupId, prefixes: !isFalse(call.args.keywords.get("prefix_group_id")?.value) });
  }
  for (const fn of model.functions) {
    const decorated = fn.node.parent;
    if (decorated?.type !== "decorated_definition") continue;
    for (const decorator of decorated.namedChildren) {
      const expression = decorator.type === "decorator" ? decorator.namedChildren[0] : undefined;
      if (!expression) continue;
      const isCall = expression.type === "call";
      const name = model.qualifiedName(isCall ? expression.childForFieldName("function") : expression);
      if (!name || !TASK_GROUP_DECORATOR.test(name)) continue;
      const keywords = isCall ? model.callInfo(expression).args.keywords : undefined;
      const explicit = keywords?.get("group_id")?.value;
      const groupId = explicit ? certainString(model, explicit) : fn.name;
      if (groupId !== undefined) groups.push({ start: fn.node.startIndex, end: fn.node.endIndex, groupId, prefixes: !isFalse(keywords?.get("prefix_group_id")?.value) });
    }
  }
  return groups;
}

/** `outer.inner.task`: every enclosing group that prefixes, outermost first. */
function prefixed(groups: GroupSpan[], offset: number, taskId: string): string {
  const enclosing = groups.filter((g) => g.start <= offset && offset < g.end && g.prefixes).sort((a, b) => a.start - b.start);
  return enclosing.length ? `${enclosing.map((g) => g.groupId).join(".")}.${taskId}` : taskId;
}

function certainString(model: SemanticModel, node: SyntaxNode): string | undefined {
  return plainString(model.resolveValue(node));
}

function isFalse(node: SyntaxNode | undefined): boolean {
  return node?.type === "false";
}

function rangeOf(node: SyntaxNode): Range {
  return {
    start: { line: node.startPosition.row, character: node.startPosition.column },
    end: { line: node.endPosition.row, character: node.endPosition.column },
  };
}
