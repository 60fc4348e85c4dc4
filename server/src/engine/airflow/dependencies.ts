/**
 * The task graph of a DAG file: which expressions create tasks, the names they are bound to, and the
 * dependencies the file declares between them, each with the expression that declares it so rules
 * can point at it and rewrite it.
 *
 * Tasks: operator calls (a CapWords class called with `task_id=`, or `Op.partial(task_id=...).expand(...)`)
 * and TaskFlow calls (`fn()`, `fn.override(...)()`, `fn.expand(...)`, `fn.partial(...).expand(...)`).
 * Dependencies: `a >> b`, `a << b`, lists on either side, `chain(...)`, `chain_linear(...)`,
 * `cross_downstream(...)`, `a.set_downstream(b)`, `b.set_upstream(a)`, `Label(...)` between two
 * tasks, `with TaskGroup(...) as group` operands, and data dependencies: a TaskFlow result, `op.output`
 * or `XComArg(op)` passed to another task.
 *
 * What cannot be told from the text (a name assigned twice, tasks returned by a helper, `chain(*tasks)`)
 * is kept as an unresolved operand, so rules that need the whole graph can stay silent.
 */
import { attributeCalls, binaryOperators, identifiersSpelledAny, isDefinedName, keywordCalls, mayBeCalledOrAttributed, SyntaxNode, withStatements } from "../syntax/parser";
import { analysis } from "../context";
import { CallInfo, FunctionInfo, SemanticModel, semanticModel } from "./model";
import { Binding } from "../python/scope";
import { KeywordArgument, plainString, unparenthesize } from "../syntax/nodes";

export type TaskKind = "operator" | "taskflow";

export interface Task {
  kind: TaskKind;
  /** The expression that evaluates to the task: the operator call, `fn(...)`, or the `.expand(...)` call of a mapped task. */
  node: SyntaxNode;
  /** The call whose arguments configure the task: the operator call (its `.partial(...)` when mapped), or the TaskFlow call. */
  call: CallInfo;
  /** Operator tasks: the class as this file names it (`airflow.providers.databricks.operators.databricks.DatabricksSubmitRunOperator`). */
  className?: string;
  /** TaskFlow tasks: the decorated function. */
  function?: FunctionInfo;
  /** The task's own keywords: the operator call's, or the `@task(...)` decorator's overridden by `.override(...)`'s. */
  keywords: ReadonlyMap<string, KeywordArgument>;
  /** The task id, when it is certain. */
  taskId?: string;
  /** The name the task is bound to once (`submit = Op(...)`). */
  binding?: Binding;
  /** The statement made of the task alone: `submit = Op(...)` or a bare `Op(...)`. */
  statement?: SyntaxNode;
}

/** One side of a dependency expression, or an item of a list on one side. */
export interface Operand {
  node: SyntaxNode;
  /** The tasks the operand stands for (a list's or a task group's tasks). */
  tasks: Task[];
  /** Every part of the operand could be followed to tasks. */
  resolved: boolean;
  /** The items of a list or tuple written in place. */
  items?: Operand[];
  /** `Label("...")` between two tasks: it labels the edge and stands for no task. */
  label?: boolean;
  /** The operand is a task's result (XComArg): a TaskFlow call's value, `op.output`, `XComArg(op)`, or an item of one. */
  xcom?: boolean;
}

export type ExpressionKind = "bitshift" | "chain" | "chain_linear" | "cross_downstream" | "set_downstream" | "set_upstream";

/** An expression that declares dependencies between its operands. */
export interface DependencyExpression {
  kind: ExpressionKind;
  /** The outermost `>>` / `<<` expression, or the call. */
  node: SyntaxNode;
  /**
   * In order: a bitshift chain's operands (`a >> b << c`: a, b, c); `chain(...)`'s arguments; for
   * `x.set_downstream(y)` / `x.set_upstream(y)` the receiver then the argument; for
   * `cross_downstream` the two lists.
   */
  operands: Operand[];
  /** Bitshift chains: `operators[i]` (`>>` or `<<`) joins `operands[i]` and `operands[i + 1]`. */
  operators: string[];
  /** The expression statement the expression makes up on its own, when it does. */
  statement?: SyntaxNode;
  /** The expression is an operand of another one (`a >> (b >> c)`). */
  nested: boolean;
}

export interface Dependency {
  upstream: Task;
  downstream: Task;
  /** `control`: declared with `>>`, `chain`, `set_downstream`, ...; `data`: a task's result passed to another task. */
  kind: "control" | "data";
  /** The declaring expression (control dependencies). */
  expression?: DependencyExpression;
  /** The operand standing for the upstream task; for data dependencies, the reference passed as an argument. */
  from: Operand;
  /** The operand standing for the downstream task; for data dependencies, the task's own expression. */
  to: Operand;
}

const TASK_DECORATOR = /^airflow\.(sdk|decorators)\.task(\.[A-Za-z_]+)?$/;
const NOT_TASKS = /(^|\.)(DAG|TaskGroup|Asset|Dataset|Param|Label)$/;
const HELPERS = /^airflow\.([A-Za-z_]\w*\.)*(chain|chain_linear|cross_downstream)$/;
const LABEL = /^airflow\.([A-Za-z_]\w*\.)*Label$/;
const TASK_GROUP = /^airflow\.([A-Za-z_]\w*\.)*TaskGroup$/;
const XCOM_ARG = /^airflow\.([A-Za-z_]\w*\.)*XComArg$/;
/** `typing.cast(T, value)` returns `value` itself. */
const TYPE_CAST = new Set(["typing.cast", "typing_extensions.cast"]);
const EXPAND_METHODS = new Set(["expand", "expand_kwargs"]);
/** How far names and nested expressions are followed. */
const MAX_DEPTH = 8;

export class DependencyGraph {
  readonly tasks: Task[] = [];
  readonly expressions: DependencyExpression[] = [];
  readonly dependencies: Dependency[] = [];
  /** Operands of dependency expressions that could not be followed to tasks. */
  readonly unresolved: SyntaxNode[] = [];
  private readonly byNode = new Map<number, Task>();
  private readonly downstreamEdges = new Map<Task, Dependency[]>();
  private readonly upstreamEdges = new Map<Task, Dependency[]>();
  private groups?: { binding: Binding; start: number; end: number }[];
  /** The identifiers spelled as each task name asked about (`references`). */
  private readonly identifiersByName = new Map<string, SyntaxNode[]>();
  private expressionsByTask?: Map<Task, DependencyExpression[]>;
  private modeledNames?: Set<number>;
  private referencesOf = new Map<Task, SyntaxNode[]>();
  /** `statementBlock` by the bound identifier's id: asked once per reference, and `parent` is computed from the root. */
  private readonly blocks = new Map<number, SyntaxNode | undefined>();
  private readonly targetStarts = new Map<Binding, number>();

  private constructor(readonly model: SemanticModel) {
    this.findOperators();
    this.findTaskFlowCalls();
    this.tasks.sort((a, b) => a.node.startIndex - b.node.startIndex);
    for (const task of this.tasks) this.describe(task);
    if (this.tasks.length === 0) return;
    this.findBitshifts();
    this.findHelperCalls();
    this.findSetCalls();
    this.findDataDependencies();
    this.expressions.sort((a, b) => a.node.startIndex - b.node.startIndex);
  }

  /** The graph of a model's file, built once and shared by every rule that lints the model. */
  static of(model: SemanticModel): DependencyGraph {
    return model.context.get(DependencyGraph.analysis);
  }

  private static readonly analysis = analysis("dependency graph", (context) => new DependencyGraph(context.get(semanticModel)));

  // ---- questions ----

  /** The task an expression creates (the operator call, the TaskFlow call, the `.expand(...)` call). */
  taskAt(node: SyntaxNode): Task | undefined {
    return this.byNode.get(unparenthesize(node).id);
  }

  /** The dependencies whose upstream task is `task`. */
  downstreamOf(task: Task): Dependency[] {
    return this.downstreamEdges.get(task) ?? [];
  }

  /** The dependencies whose downstream task is `task`. */
  upstreamOf(task: Task): Dependency[] {
    return this.upstreamEdges.get(task) ?? [];
  }

  /** Whether `to` runs after `from`, directly or through other tasks (`except` left out of the paths). */
  reaches(from: Task, to: Task, except?: Task): boolean {
    return from !== to && this.walk(from, except, to).has(to);
  }

  /** The tasks that run after `task`, directly or through others. */
  descendants(task: Task): Set<Task> {
    const found = this.walk(task);
    found.delete(task);
    return found;
  }

  /** The tasks reachable from `from` (itself included), not through `except`, stopping early at `target`. */
  private walk(from: Task, except?: Task, target?: Task): Set<Task> {
    const seen = new Set<Task>([from]);
    const queue = [from];
    while (queue.length > 0) {
      const current = queue.pop()!;
      for (const edge of this.downstreamOf(current)) {
        const next = edge.downstream;
        if (seen.has(next) || next === except) continue;
        seen.add(next);
        if (next === target) return seen;
        queue.push(next);
      }
    }
    return seen;
  }

  /** The dependency expressions one of whose operands stands for `task` (alone, in a list, or in a task group). */
  expressionsWith(task: Task): DependencyExpression[] {
    if (!this.expressionsByTask) {
      this.expressionsByTask = new Map();
      for (const expression of this.expressions) {
        for (const t of new Set(expression.operands.flatMap((o) => o.tasks))) push(this.expressionsByTask, t, expression);
      }
    }
    return this.expressionsByTask.get(task) ?? [];
  }

  /** What an expression stands for as an operand of a dependency: tasks, a list of them, a label, or unknown. */
  operand(expression: SyntaxNode): Operand {
    return this.valueOf(expression, 0);
  }

  /**
   * The binding `name` refers to at `at`: its only binding, or, for a name assigned more than once in
   * the same scope (a `submit` in each DAG of the file), the last assignment before `at` when it sits
   * in a block that encloses `at`, so no branch or loop can have skipped it. Undefined when that cannot
   * be told.
   */
  bindingAt(name: string, at: SyntaxNode): Binding | undefined {
    const scope = this.model.scopeOf(at);
    const bindings = scope.lookup(name);
    if (!bindings) return undefined;
    if (bindings.length === 1) return bindings[0];
    // From a nested function the name is read when the function runs, not where it is written.
    if (bindings[0].scope !== scope) return undefined;
    let last: Binding | undefined;
    let lastStart = -1;
    const atStart = at.startIndex;
    for (const binding of bindings) {
      const start = this.targetStart(binding);
      if (start < atStart && (!last || start > lastStart)) {
        last = binding;
        lastStart = start;
      }
    }
    if (last?.kind !== "assign") return undefined;
    if (!this.blocks.has(last.target.id)) this.blocks.set(last.target.id, statementBlock(last.target));
    const block = this.blocks.get(last.target.id);
    return block && at.startIndex >= block.startIndex && at.endIndex <= block.endIndex ? last : undefined;
  }

  /** Where a binding's target starts, read once: `bindingAt` compares it for every mention of a name bound many times. */
  private targetStart(binding: Binding): number {
    let start = this.targetStarts.get(binding);
    if (start === undefined) {
      start = binding.target.startIndex;
      this.targetStarts.set(binding, start);
    }
    return start;
  }

  /**
   * Whether every mention of the task's name is part of a dependency the graph knows: an operand, an
   * item of one, or a result passed to another task. A task also handed to something else (a helper
   * that links tasks, a dictionary of tasks) may have dependencies the graph cannot see.
   */
  isFullyModeled(task: Task): boolean {
    if (!this.modeledNames) {
      // The names written inside operands and inside results passed to tasks.
      const parts = [...this.expressions.flatMap((e) => e.operands.map((o) => o.node)), ...this.dependencies.filter((d) => d.kind === "data").map((d) => d.from.node)];
      this.modeledNames = new Set(parts.flatMap((node) => (node.type === "identifier" ? [node] : node.descendantsOfType("identifier")).map((id) => id.startIndex)));
    }
    const modeled = this.modeledNames;
    return this.references(task).every((id) => modeled.has(id.startIndex));
  }

  /**
   * The identifiers that refer to the task through the name it is bound to, the binding itself left
   * out; empty when the task has no name.
   */
  references(task: Task): SyntaxNode[] {
    const binding = task.binding;
    if (!binding) return [];
    let found = this.referencesOf.get(task);
    if (!found) {
      // The identifiers spelled as the name, found from its occurrences in the text: of this name
      // only, since a fix or a rule asks about the few tasks of one split, not every task's name.
      let spelled = this.identifiersByName.get(binding.name);
      if (!spelled) this.identifiersByName.set(binding.name, (spelled = identifiersSpelledAny(this.model.tree, this.model.text, [binding.name])));
      found = spelled.filter((id) => {
        if (id.id === binding.target.id) return false;
        // The binding first: it rules out the same name in other scopes without `id.parent`, which tree-sitter computes from the root.
        if (this.bindingAt(id.text, id) !== binding) return false;
        const parent = id.parent;
        if (parent?.type === "attribute" && parent.childForFieldName("attribute")?.id === id.id) return false;
        return !(parent?.type === "keyword_argument" && parent.childForFieldName("name")?.id === id.id);
      });
      this.referencesOf.set(task, found);
    }
    return found;
  }

  // ---- tasks ----

  private add(task: Task): void {
    if (this.byNode.has(task.node.id)) return;
    this.byNode.set(task.node.id, task);
    this.tasks.push(task);
  }

  private findOperators(): void {
    if (!this.model.text.includes("task_id")) return;
    for (const node of keywordCalls(this.model.tree, this.model.text, "task_id")) {
      const fn = node.childForFieldName("function");
      if (!fn || (fn.type !== "identifier" && fn.type !== "attribute")) continue;
      const call = this.model.callInfo(node);
      const written = call.callee ?? fn.text;
      if (TASK_DECORATOR.test(written) || written.endsWith(".override")) continue;
      const mapped = written.endsWith(".partial");
      const className = mapped ? written.slice(0, -".partial".length) : written;
      const shortName = className.slice(className.lastIndexOf(".") + 1);
      // Operators are classes: `dag.get_task(task_id=...)` and the like are not.
      if (!/^[A-Z]/.test(shortName) || NOT_TASKS.test(className)) continue;
      const taskNode = mapped ? expansionOf(node) : node;
      if (!taskNode) continue;
      this.add({ kind: "operator", node: taskNode, call, className, keywords: call.args.keywords });
    }
  }

  private findTaskFlowCalls(): void {
    const names = new Set(this.model.taskFunctions.map((fn) => fn.name));
    if (names.size === 0) return;
    for (const node of this.callsOnNames(names)) {
      const fn = node.childForFieldName("function");
      if (!fn) continue;
      const found = this.taskFlowTarget(fn, names);
      if (!found) continue;
      const call = this.model.callInfo(node);
      const keywords = new Map(found.function.task!.keywords);
      for (const [name, keyword] of found.override?.args.keywords ?? []) keywords.set(name, keyword);
      this.add({ kind: "taskflow", node: call.node, call, function: found.function, keywords });
    }
  }

  /**
   * The calls whose callee is one of `names` or starts with one (`fn(...)`, `fn.override(...)(...)`,
   * `fn.partial(...).expand(...)`), in document order, outer calls first, as a walk of the tree
   * lists them: found from the names' occurrences in the text instead of from every call of the file.
   */
  private callsOnNames(names: ReadonlySet<string>): SyntaxNode[] {
    const calls = new Map<number, SyntaxNode>();
    const text = this.model.text;
    // A name the text shows defined (`def load(`), or followed by neither `(` nor `.`, is no callee, and not looked up.
    const mayBeCallee = (start: number, end: number) => !isDefinedName(text, start) && mayBeCalledOrAttributed(text, end);
    for (const identifier of identifiersSpelledAny(this.model.tree, text, names, mayBeCallee)) {
      let node = identifier;
      // Up through the callee: a call of it, an attribute of it, a call of that, and so on.
      for (let depth = 0; depth < 2 * MAX_DEPTH + 2; depth++) {
        const parent = node.parent;
        if (parent?.type === "call" && parent.childForFieldName("function")?.id === node.id) calls.set(parent.id, parent);
        else if (parent?.type !== "attribute" || parent.childForFieldName("object")?.id !== node.id) break;
        node = parent;
      }
    }
    return [...calls.values()].sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  }

  /**
   * The task function a call runs when the call creates a task: `fn(...)`, `fn.override(...)(...)`,
   * `fn.expand(...)`, `fn.partial(...).expand(...)`, `fn.override(...).expand(...)`.
   */
  private taskFlowTarget(fn: SyntaxNode, names: Set<string>): { function: FunctionInfo; override?: CallInfo } | undefined {
    let receiver: SyntaxNode;
    let override: CallInfo | undefined;
    if (fn.type === "identifier") receiver = fn;
    else if (fn.type === "call") {
      // `fn.override(...)(...)`
      const inner = fn.childForFieldName("function");
      if (inner?.type !== "attribute" || inner.childForFieldName("attribute")?.text !== "override") return undefined;
      override = this.model.callInfo(fn);
      receiver = inner.childForFieldName("object")!;
    } else if (fn.type === "attribute" && EXPAND_METHODS.has(fn.childForFieldName("attribute")?.text ?? "")) {
      receiver = fn.childForFieldName("object")!;
      for (let depth = 0; receiver.type === "call" && depth < MAX_DEPTH; depth++) {
        const inner = receiver.childForFieldName("function");
        const method = inner?.type === "attribute" ? inner.childForFieldName("attribute")?.text : undefined;
        if (method !== "partial" && method !== "override") return undefined;
        if (method === "override") override = this.model.callInfo(receiver);
        receiver = inner!.childForFieldName("object")!;
      }
    } else return undefined;
    if (receiver.type !== "identifier" || !names.has(receiver.text)) return undefined;
    const function_ = this.model.functionNamed(receiver.text, this.model.scopeOf(receiver));
    return function_?.task ? { function: function_, override } : undefined;
  }

  /** Fills in the task id, the name and the statement of a task. */
  private describe(task: Task): void {
    const taskId = task.keywords.get("task_id");
    task.taskId = taskId ? plainString(this.model.resolveValue(taskId.value)) : task.function?.name;
    const parent = task.node.parent;
    if (parent?.type === "expression_statement" && parent.namedChildCount === 1) {
      task.statement = parent;
      return;
    }
    if (parent?.type !== "assignment" || parent.childForFieldName("right")?.id !== task.node.id) return;
    const target = parent.childForFieldName("left");
    const statement = parent.parent;
    if (target?.type !== "identifier" || statement?.type !== "expression_statement" || statement.namedChildCount !== 1) return;
    const binding = this.model.scopeOf(target).lookup(target.text)?.find((b) => b.target.id === target.id);
    if (binding?.kind === "assign") task.binding = binding;
    task.statement = statement;
  }

  // ---- operands ----

  /** An operand with the node as written (parentheses kept), so edits replace or remove all of it. */
  private writtenOperand(node: SyntaxNode): Operand {
    return { ...this.operand(node), node };
  }

  private valueOf(expression: SyntaxNode, depth: number): Operand {
    const node = unparenthesize(expression);
    const unresolved: Operand = { node, tasks: [], resolved: false };
    if (depth > MAX_DEPTH) return unresolved;
    const task = this.byNode.get(node.id);
    if (task) return { node, tasks: [task], resolved: true, xcom: task.kind === "taskflow" };
    switch (node.type) {
      case "identifier": {
        const binding = this.bindingAt(node.text, node);
        if (binding?.kind === "assign" && binding.value) return { ...this.valueOf(binding.value, depth + 1), node };
        const group = binding && this.taskGroup(binding);
        return group ? { node, tasks: group, resolved: true } : unresolved;
      }
      case "list":
      case "tuple": {
        const items = node.namedChildren.filter((c) => c.type !== "comment").map((item) => this.valueOf(item, depth + 1));
        return { node, tasks: items.flatMap((i) => i.tasks), resolved: items.every((i) => i.resolved && !i.label), items };
      }
      case "binary_operator":
        // `a >> b` evaluates to `b`.
        return isBitshift(node) ? { ...this.valueOf(node.childForFieldName("right")!, depth + 1), node } : unresolved;
      case "attribute": {
        // `op.output` is the operator's XComArg.
        if (node.childForFieldName("attribute")?.text !== "output") return unresolved;
        const object = this.valueOf(node.childForFieldName("object")!, depth + 1);
        return object.tasks.length === 1 && object.tasks[0].kind === "operator" && !object.xcom ? { node, tasks: object.tasks, resolved: true, xcom: true } : unresolved;
      }
      case "subscript": {
        // `result["key"]` of a TaskFlow result or of `op.output` is an XComArg of the same task.
        const value = this.valueOf(node.childForFieldName("value")!, depth + 1);
        return value.xcom ? { node, tasks: value.tasks, resolved: true, xcom: true } : unresolved;
      }
      case "call": {
        const callee = this.model.qualifiedName(node.childForFieldName("function"));
        if (callee && LABEL.test(callee)) return { node, tasks: [], resolved: true, label: true };
        const { positional, keywords } = this.model.callInfo(node).args;
        // `cast(str, XComArg(op, key="run_id"))` only tells the type checker what the value is.
        if (callee && TYPE_CAST.has(callee)) {
          const value = positional[1] ?? keywords.get("val")?.value;
          return value ? { ...this.valueOf(value, depth + 1), node } : unresolved;
        }
        const argument = positional[0] ?? keywords.get("operator")?.value;
        if (!callee || !XCOM_ARG.test(callee) || !argument) return unresolved;
        const wrapped = this.valueOf(argument, depth + 1);
        return wrapped.tasks.length === 1 && !wrapped.items ? { node, tasks: wrapped.tasks, resolved: true, xcom: true } : unresolved;
      }
      default:
        return unresolved;
    }
  }

  /** The tasks created in the body of `with TaskGroup(...) as group`, for the name `group`. */
  private taskGroup(binding: Binding): Task[] | undefined {
    if (!this.groups) {
      this.groups = [];
      if (this.model.text.includes("TaskGroup")) {
        for (const statement of withStatements(this.model.tree, this.model.text)) {
          const body = statement.childForFieldName("body");
          for (const pattern of statement.descendantsOfType("as_pattern")) {
            const value = pattern.namedChildren[0];
            const target = pattern.childForFieldName("alias")?.namedChildren[0];
            if (!body || value?.type !== "call" || target?.type !== "identifier") continue;
            if (!TASK_GROUP.test(this.model.qualifiedName(value.childForFieldName("function")) ?? "")) continue;
            const bound = this.model.scopeOf(target).lookup(target.text)?.find((b) => b.target.id === target.id);
            if (bound) this.groups.push({ binding: bound, start: body.startIndex, end: body.endIndex });
          }
        }
      }
    }
    const group = this.groups.find((g) => g.binding === binding);
    return group && this.tasks.filter((t) => t.node.startIndex >= group.start && t.node.endIndex <= group.end);
  }

  // ---- dependencies ----

  private findBitshifts(): void {
    if (!this.model.text.includes(">>") && !this.model.text.includes("<<")) return;
    const nodes = binaryOperators(this.model.tree, this.model.text, [">>", "<<"]);
    const inner = new Set<number>();
    for (const node of nodes) {
      for (const side of ["left", "right"]) {
        const child = node.childForFieldName(side);
        if (child && isBitshift(unparenthesize(child))) inner.add(unparenthesize(child).id);
      }
    }
    const seen = new Set<number>();
    for (const node of nodes) {
      if (inner.has(node.id) || seen.has(node.id)) continue;
      seen.add(node.id);
      this.bitshift(node, false, 0);
    }
  }

  /** Records a `>>` / `<<` chain: its left-nested operands in order, and any chain nested in an operand. */
  private bitshift(top: SyntaxNode, nested: boolean, depth: number): void {
    const operandNodes: SyntaxNode[] = [];
    const operators: string[] = [];
    let current = top;
    for (;;) {
      const [leftNode, operator, right] = ["left", "operator", "right"].map((field) => current.childForFieldName(field));
      // A chain cut short by a syntax error is left out.
      if (!leftNode || !operator || !right) return;
      operandNodes.unshift(right);
      operators.unshift(operator.type);
      const left = unparenthesize(leftNode);
      if (!isBitshift(left)) {
        operandNodes.unshift(left);
        break;
      }
      current = left;
    }
    if (depth < MAX_DEPTH) {
      for (const node of operandNodes) {
        const value = unparenthesize(node);
        if (isBitshift(value)) this.bitshift(value, true, depth + 1);
      }
    }
    const operands = operandNodes.map((node) => this.writtenOperand(node));
    // `x >> 2` in task code is arithmetic: a chain counts once one of its operands is a task.
    if (!operands.some((o) => o.tasks.length > 0)) return;
    const expression: DependencyExpression = { kind: "bitshift", node: top, operands, operators, nested, statement: statementOf(top) };
    this.expressions.push(expression);
    this.noteUnresolved(operands);
    // A label stands between two operands: the edge joins its neighbours.
    const tasks = operands.map((o, i) => ({ operand: o, operator: operators[i - 1] })).filter((entry) => !entry.operand.label);
    for (let i = 1; i < tasks.length; i++) {
      const [left, right] = [tasks[i - 1].operand, tasks[i].operand];
      if (tasks[i].operator === ">>") this.connect(expression, left, right);
      else this.connect(expression, right, left);
    }
  }

  private findHelperCalls(): void {
    const text = this.model.text;
    if (!text.includes("chain") && !text.includes("cross_downstream")) return;
    for (const call of this.model.calls) {
      const callee = call.callee;
      if (!callee || !HELPERS.test(callee)) continue;
      const kind = callee.slice(callee.lastIndexOf(".") + 1) as ExpressionKind;
      const { positional, keywords, hasSplat } = call.args;
      const argumentNodes = kind === "cross_downstream" ? [positional[0] ?? keywords.get("from_tasks")?.value, positional[1] ?? keywords.get("to_tasks")?.value] : positional;
      if (hasSplat || argumentNodes.some((a) => !a)) {
        this.unresolved.push(call.node);
        continue;
      }
      const operands = (argumentNodes as SyntaxNode[]).map((node) => this.writtenOperand(node));
      const expression: DependencyExpression = { kind, node: call.node, operands, operators: [], nested: false, statement: statementOf(call.node) };
      this.expressions.push(expression);
      this.noteUnresolved(operands);
      for (let i = 1; i < operands.length; i++) {
        const [upstream, downstream] = [operands[i - 1], operands[i]];
        // `chain([a, b], [c, d])` joins the lists pairwise: a >> c, b >> d.
        if (kind === "chain" && upstream.items && downstream.items && upstream.items.length === downstream.items.length) {
          upstream.items.forEach((item, j) => this.connect(expression, item, downstream.items![j]));
        } else this.connect(expression, upstream, downstream);
      }
    }
  }

  private findSetCalls(): void {
    if (!this.model.text.includes(".set_")) return;
    for (const node of attributeCalls(this.model.tree, this.model.text, ["set_downstream", "set_upstream"])) {
      const fn = node.childForFieldName("function")!;
      const receiver = this.writtenOperand(fn.childForFieldName("object")!);
      if (receiver.tasks.length === 0) continue;
      const call = this.model.callInfo(node);
      const argument = call.args.positional[0];
      const kind = fn.childForFieldName("attribute")!.text as ExpressionKind;
      const operands = [receiver, argument ? this.writtenOperand(argument) : { node, tasks: [], resolved: false }];
      const expression: DependencyExpression = { kind, node, operands, operators: [], nested: false, statement: statementOf(node) };
      this.expressions.push(expression);
      this.noteUnresolved(operands);
      if (kind === "set_downstream") this.connect(expression, operands[0], operands[1]);
      else this.connect(expression, operands[1], operands[0]);
    }
  }

  /** A task's arguments that pass another task's result: a TaskFlow result, `op.output`, `XComArg(op)`, in lists and dictionaries too. */
  private findDataDependencies(): void {
    for (const task of this.tasks) {
      const argumentNodes: SyntaxNode[] = [];
      for (const call of new Set([task.call.node, task.node])) {
        const { positional, keywords } = this.model.callInfo(call).args;
        argumentNodes.push(...positional, ...[...keywords.values()].map((k) => k.value));
      }
      const to: Operand = { node: task.node, tasks: [task], resolved: true };
      for (const argument of argumentNodes) {
        for (const reference of this.xcomReferences(argument, 0)) {
          for (const upstream of reference.tasks) {
            if (upstream !== task) this.addDependency({ upstream, downstream: task, kind: "data", from: reference, to });
          }
        }
      }
    }
  }

  private xcomReferences(expression: SyntaxNode, depth: number): Operand[] {
    const node = unparenthesize(expression);
    if (depth > MAX_DEPTH) return [];
    if (["list", "tuple", "set", "dictionary", "pair"].includes(node.type)) {
      const parts = node.type === "pair" ? [node.childForFieldName("value")] : node.namedChildren;
      return parts.flatMap((part) => (part ? this.xcomReferences(part, depth + 1) : []));
    }
    if (!["identifier", "attribute", "subscript", "call"].includes(node.type)) return [];
    const value = this.operand(node);
    return value.xcom ? [value] : [];
  }

  private noteUnresolved(operands: Operand[]): void {
    for (const operand of operands) {
      if (operand.items) this.noteUnresolved(operand.items);
      else if (!operand.resolved) this.unresolved.push(operand.node);
    }
  }

  private connect(expression: DependencyExpression, from: Operand, to: Operand): void {
    const fromParts = from.items ?? [from];
    const toParts = to.items ?? [to];
    for (const upstreamPart of fromParts) {
      for (const downstreamPart of toParts) {
        for (const upstream of upstreamPart.tasks) {
          for (const downstream of downstreamPart.tasks) {
            if (upstream !== downstream) this.addDependency({ upstream, downstream, kind: "control", expression, from: upstreamPart, to: downstreamPart });
          }
        }
      }
    }
  }

  private addDependency(dependency: Dependency): void {
    this.dependencies.push(dependency);
    push(this.downstreamEdges, dependency.upstream, dependency);
    push(this.upstreamEdges, dependency.downstream, dependency);
  }
}


function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function isBitshift(node: SyntaxNode): boolean {
  if (node.type !== "binary_operator") return false;
  const operator = node.childForFieldName("operator")?.type;
  return operator === ">>" || operator === "<<";
}

/** `Op.partial(...)` is a task only through the `.expand(...)` called on it. */
function expansionOf(partial: SyntaxNode): SyntaxNode | undefined {
  const attribute = partial.parent;
  if (attribute?.type !== "attribute" || !EXPAND_METHODS.has(attribute.childForFieldName("attribute")?.text ?? "")) return undefined;
  const call = attribute.parent;
  return call?.type === "call" && call.childForFieldName("function")?.id === attribute.id ? call : undefined;
}

/** The block (or module) holding the statement `name = ...` that binds `target`. */
function statementBlock(target: SyntaxNode): SyntaxNode | undefined {
  const assignment = target.parent;
  const statement = assignment?.type === "assignment" ? assignment.parent : undefined;
  const block = statement?.type === "expression_statement" ? statement.parent : undefined;
  return block?.type === "block" || block?.type === "module" ? block : undefined;
}

function statementOf(node: SyntaxNode): SyntaxNode | undefined {
  const parent = node.parent;
  return parent?.type === "expression_statement" && parent.namedChildCount === 1 ? parent : undefined;
}
