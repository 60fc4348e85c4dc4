/**
 * Edits that change a DAG's dependencies in the file's own words: remove a task and hand its
 * dependencies to another one, or move one dependency from a task to another. Every function
 * returns undefined rather than edits it cannot make exactly (a task hidden in a list bound to a
 * name, a name that is not visible where it would be written, a rewrite that would create a cycle).
 */
import { insertAt, removeArgument, replaceNode, wholeLines } from "./edits";
import { SyntaxNode } from "../syntax/parser";
import { Dependency, DependencyExpression, DependencyGraph, Operand, Task } from "../airflow/dependencies";
import { indentationOf } from "../syntax/nodes";
import { TextEdit } from "../types";

/**
 * Removes `removed` and gives its dependencies to `into`: what ran after `removed` runs after `into`,
 * what ran before `removed` (other than `into`) runs before `into`. `into` must run before `removed`
 * (a sensor folded into the task whose job it waited for).
 */
export function foldTaskInto(graph: DependencyGraph, removed: Task, into: Task): TextEdit[] | undefined {
  // What reads the removed task's result, or what it reads from others, has no place to go.
  if (graph.downstreamOf(removed).some((d) => d.kind === "data")) return undefined;
  if (graph.upstreamOf(removed).some((d) => d.kind === "data" && d.upstream !== into)) return undefined;
  // A task between the two would end up both before and after `into`.
  for (const between of graph.descendants(into)) if (between !== removed && graph.reaches(between, removed)) return undefined;

  const edits: TextEdit[] = [];
  const covered = new Set<number>();
  for (const expression of graph.expressionsWith(removed)) {
    const positions = expression.operands.flatMap((operand, index) => (operand.tasks.includes(removed) ? [index] : []));
    if (positions.length !== 1 || expression.nested) return undefined;
    const folded = foldOperand(graph, expression, positions[0], removed, into);
    if (!folded) return undefined;
    edits.push(...folded.edits);
    covered.add(folded.node.id);
  }
  // Every mention of the removed task must have been one of those operands.
  for (const reference of graph.references(removed)) if (!covered.has(reference.id)) return undefined;
  if (removed.statement) {
    const lines = wholeLines(graph.model.text, removed.statement);
    if (!lines) return undefined;
    edits.push({ ...lines, newText: "" });
  } else if (!covered.has(removed.node.id)) return undefined; // created somewhere the rewrite cannot see
  return disjoint(edits);
}

/** The edits for one operand (or list item) standing for `removed`, and the node that mentioned it. */
function foldOperand(graph: DependencyGraph, expression: DependencyExpression, index: number, removed: Task, into: Task): { edits: TextEdit[]; node: SyntaxNode } | undefined {
  const operands = expression.operands;
  const operand = operands[index];
  const item = itemFor(operand, removed);
  if (!item) return undefined;
  const whole = item === operand;
  const name = (at: SyntaxNode) => visibleName(graph, into, at);
  const deleteStatement = () => {
    const lines = expression.statement && wholeLines(graph.model.text, expression.statement);
    return lines ? { edits: [{ ...lines, newText: "" }], node: item.node } : undefined;
  };
  const replaceWithInto = () => {
    const written = name(item.node);
    return written ? { edits: [replaceNode(item.node, written)], node: item.node } : undefined;
  };
  const neighbours = [operands[index - 1], operands[index + 1]].filter((o): o is Operand => o !== undefined);

  switch (expression.kind) {
    case "bitshift":
    case "chain": {
      if (neighbours.some((n) => n.label)) return undefined;
      if (!whole) {
        const list = operand;
        const intoNeighbour = neighbours.some((n) => n.tasks.includes(into));
        // `chain([a, b], [c, d])` pairs items by position: removing one would shift the pairs.
        if (expression.kind === "chain" && neighbours.some((n) => isListLiteral(n))) return undefined;
        if (intoNeighbour) {
          // `into >> [removed, other]` at the end of the chain: `removed` goes, `other` keeps its edge from `into`.
          if (neighbours.length !== 1 || list.items!.length < 2) return undefined;
          return { edits: [removeArgument(item.node)], node: item.node };
        }
        if (list.tasks.includes(into)) return list.items!.length < 2 ? undefined : { edits: [removeArgument(item.node)], node: item.node };
        return replaceWithInto();
      }
      const previous = operands[index - 1];
      const next = operands[index + 1];
      const isInto = (o: Operand | undefined) => o !== undefined && isExactly(o, into);
      if (isInto(previous) || isInto(next)) {
        if (operands.length === 2) return deleteStatement();
        if (expression.kind === "chain") return { edits: [removeArgument(operand.node)], node: operand.node };
        // `into >> removed >> next` → `into >> next`; `previous >> removed >> into` → `previous >> into`.
        const edit = isInto(previous) ? { start: previous!.node.endIndex, end: operand.node.endIndex, newText: "" } : { start: operand.node.startIndex, end: next!.node.startIndex, newText: "" };
        return { edits: [edit], node: operand.node };
      }
      if (neighbours.some((n) => n.tasks.includes(into))) return undefined;
      return replaceWithInto();
    }
    case "set_downstream":
    case "set_upstream": {
      const other = operands[1 - index];
      if (isExactly(other, into)) {
        if (whole) return deleteStatement();
        return operand.items!.length < 2 ? deleteStatement() : { edits: [removeArgument(item.node)], node: item.node };
      }
      if (other.tasks.includes(into)) return undefined;
      if (!whole && operand.tasks.includes(into)) return operand.items!.length < 2 ? undefined : { edits: [removeArgument(item.node)], node: item.node };
      return replaceWithInto();
    }
    default:
      return undefined;
  }
}

/**
 * Moves a dependency `from → to` so that `to` runs after `instead` (a task that runs after `from`):
 * `from >> to` becomes `from >> instead >> to`, `chain(from, to)` becomes `chain(from, instead, to)`,
 * `from.set_downstream(to)` becomes `instead.set_downstream(to)`. An item of a list at the end of a
 * chain leaves the list and gets a statement of its own, `instead >> to`.
 */
export function moveDependency(graph: DependencyGraph, dependency: Dependency, instead: Task): TextEdit[] | undefined {
  const expression = dependency.expression;
  if (!expression || expression.nested || dependency.kind !== "control") return undefined;
  const { upstream, downstream } = dependency;
  const operands = expression.operands;
  const fromIndex = operands.findIndex((o) => o === dependency.from || o.items?.includes(dependency.from));
  const toIndex = operands.findIndex((o) => o === dependency.to || o.items?.includes(dependency.to));
  if (fromIndex < 0 || toIndex < 0) return undefined;
  const fromOperand = operands[fromIndex];
  const toOperand = operands[toIndex];
  const toWhole = toOperand === dependency.to || (isListLiteral(toOperand) && toOperand.items!.length === 1);
  // Put in front of the whole operand, `instead` must not end up after itself.
  if (toWhole && toOperand.tasks.includes(instead)) return undefined;
  const at = expression.node;
  const insteadName = visibleName(graph, instead, at);
  if (!insteadName) return undefined;

  switch (expression.kind) {
    case "bitshift":
    case "chain": {
      if (Math.abs(fromIndex - toIndex) !== 1 || !isExactly(fromOperand, upstream)) return undefined;
      if (toWhole) {
        if (expression.kind === "chain") return [insertAt(toOperand.node.startIndex, `${insteadName}, `)];
        // The operator joining the two stays on both sides of the inserted task: `from >> instead >> to`, `to << instead << from`.
        const right = operands[Math.max(fromIndex, toIndex)];
        return [insertAt(right.node.startIndex, `${insteadName} ${expression.operators[Math.min(fromIndex, toIndex)]} `)];
      }
      // An item of a list that ends the chain on the far side from `from`.
      const atEnd = toIndex > fromIndex ? toIndex === operands.length - 1 : toIndex === 0;
      if (!atEnd || (expression.kind === "chain" && isListLiteral(fromOperand))) return undefined;
      return ownStatement(graph, expression, dependency.to.node, insteadName, downstream);
    }
    case "set_downstream": {
      // `from.set_downstream(to)`
      if (fromIndex !== 0 || !isExactly(fromOperand, upstream)) return undefined;
      if (toWhole) return [replaceNode(fromOperand.node, insteadName)];
      return ownStatement(graph, expression, dependency.to.node, insteadName, downstream);
    }
    case "set_upstream": {
      // `to.set_upstream(from)` or `to.set_upstream([from, other])`
      if (fromIndex !== 1 || !isExactly(toOperand, downstream)) return undefined;
      return [replaceNode(dependency.from.node, insteadName)];
    }
    default:
      return undefined;
  }
}

/** Takes `item` out of its list and adds `instead >> item` after the statement. */
function ownStatement(graph: DependencyGraph, expression: DependencyExpression, item: SyntaxNode, insteadName: string, downstream: Task): TextEdit[] | undefined {
  const statement = expression.statement;
  const downstreamName = visibleName(graph, downstream, expression.node);
  if (!statement || !downstreamName || !wholeLines(graph.model.text, statement)) return undefined;
  const text = graph.model.text;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  // After the statement's line, so a comment ending it stays with it.
  const newline = text.indexOf("\n", statement.endIndex);
  const lineEnd = newline < 0 ? text.length : text[newline - 1] === "\r" ? newline - 1 : newline;
  return [removeArgument(item), insertAt(lineEnd, `${eol}${indentationOf(statement, text)}${insteadName} >> ${downstreamName}`)];
}

/** The operand itself when it stands for `task` alone, or the item of a list written in place that does. */
function itemFor(operand: Operand, task: Task): Operand | undefined {
  if (isExactly(operand, task)) return operand;
  if (!isListLiteral(operand)) return undefined;
  const items = operand.items!.filter((i) => i.tasks.includes(task));
  return items.length === 1 && isExactly(items[0], task) ? items[0] : undefined;
}

function isExactly(operand: Operand, task: Task): boolean {
  return !isListLiteral(operand) && operand.tasks.length === 1 && operand.tasks[0] === task && !operand.items;
}

function isListLiteral(operand: Operand): boolean {
  return operand.items !== undefined && (operand.node.type === "list" || operand.node.type === "tuple");
}

/**
 * The name `task` is bound to, when writing it at `at` refers to the task: the same binding is
 * visible there, and the task is created before `at` in the file.
 */
function visibleName(graph: DependencyGraph, task: Task, at: SyntaxNode): string | undefined {
  const binding = task.binding;
  if (!binding || !task.statement || task.statement.startIndex >= at.startIndex) return undefined;
  return graph.bindingAt(binding.name, at) === binding ? binding.name : undefined;
}

function disjoint(edits: TextEdit[]): TextEdit[] | undefined {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) if (sorted[i].start < sorted[i - 1].end) return undefined;
  return sorted;
}
