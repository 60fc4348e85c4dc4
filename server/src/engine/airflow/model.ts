/**
 * The semantic model of one DAG file: the Python model (python/model.ts) and what Airflow makes of it:
 * TaskFlow tasks and the operators that run functions as tasks, DAGs and their `default_args`, and
 * the state stores' calls. What rules ask about instead of re-walking the tree; the store calls are
 * found on first use.
 */
import { analysis, AnalysisContext } from "../context";
import { attributeCalls, callsNamed, identifiersSpelledAny, keywordCalls, SyntaxNode, Tree } from "../syntax/parser";
import { CallInfo, ClassInfo as PythonClassInfo, DefinedFunction, FunctionInfo as PythonFunctionInfo, PythonModel } from "../python/model";
import { Binding, Scope } from "../python/scope";
import { callArguments, CallArguments, KeywordArgument, plainString, unparenthesize } from "../syntax/nodes";
import type { OffsetRange } from "../types";

export { CallInfo, Parameter, ParameterKind } from "../python/model";

export interface TaskDecorator {
  /** The decorator's expression (`task`, `task(retries=2)`, `task.virtualenv(...)`). */
  node: SyntaxNode;
  /** `task`, `task.python`, `task.virtualenv`, ... */
  variant: string;
  readonly keywords: Map<string, KeywordArgument>;
}

/** A function, with what Airflow makes of it. */
export interface FunctionInfo extends PythonFunctionInfo {
  enclosingClass?: ClassInfo;
  /** Set when the function is a TaskFlow task. */
  task?: TaskDecorator;
  /** Operator calls (`PythonOperator(python_callable=f)`) that run this function as a task. */
  callableOf: CallInfo[];
}

export type ClassInfo = PythonClassInfo<FunctionInfo>;

export interface DagInfo {
  /** `with DAG(...)` statement or the `@dag`-decorated function. */
  node: SyntaxNode;
  call?: CallInfo;
  keywords: Map<string, KeywordArgument>;
  /** The `default_args` dictionary, followed through a name when it is bound once. */
  defaultArgs?: SyntaxNode;
}

export type StoreKind = "task" | "asset";

export interface StoreReference {
  kind: StoreKind;
  /** The expression that evaluates to the store. */
  node: SyntaxNode;
  /** For the asset store: whether it was indexed with an asset (`asset_state_store[ORDERS]`). */
  indexed: boolean;
  /** The index expression of an indexed asset store. */
  asset?: SyntaxNode;
}

export type StoreMethod = "get" | "set" | "delete" | "clear";

export interface StoreCall {
  node: SyntaxNode;
  /** The method, the async forms of the asset store (`aget`, `aset`, `adelete`, `aclear`) under their synchronous name. */
  method: StoreMethod;
  /** Called as its async form (`await store.aset(...)`): the method's name as written starts with `a`. */
  async: boolean;
  store: StoreReference;
  args: CallArguments;
  /** The key argument (first positional or `key=`). */
  key?: SyntaxNode;
  /** The value argument of `set` (second positional or `value=`). */
  value?: SyntaxNode;
  scope: Scope;
  /** The function the call is in, if any. */
  function?: FunctionInfo;
}

/** The method's name as the call writes it: `aset` for the asset store's async `set`. */
export function writtenMethod(call: StoreCall): string {
  return call.async ? `a${call.method}` : call.method;
}

/** How the store an expression evaluates to is found: known at once, or from another expression's. */
type StoreStep =
  | { kind: "answer"; answer: StoreReference | undefined }
  | { kind: "depends"; on: SyntaxNode; answer: (inner: StoreReference | undefined) => StoreReference | undefined };

const TASK_DECORATOR = /^airflow\.(sdk|decorators)\.task(\.[A-Za-z_]+)?$/;
const DAG_DECORATOR = /^airflow\.(sdk|decorators)\.dag$/;
/** What a decorator's callee is made of between its last name and the decorator: `@a.b.dag(...)`, `@(dag)`. */
const DECORATOR_CALLEE_PARTS: ReadonlySet<string> = new Set(["attribute", "call", "parenthesized_expression"]);
/** Parts climbed at most from a name to its decorator: more is no callee `qualifiedName` reads. */
const MAX_DECORATOR_DEPTH = 8;
const DAG_CLASS = /^airflow\.(sdk|models|models\.dag|sdk\.definitions\.dag)?\.?DAG$/;
/** A Python operator, or its `.partial(...)` for mapped tasks: either names the task's callable. */
const PYTHON_OPERATOR = /^airflow\..*\.(PythonOperator|PythonVirtualenvOperator|ExternalPythonOperator|BranchPythonOperator|ShortCircuitOperator)(\.partial)?$/;
const SYNC_METHODS: readonly StoreMethod[] = ["get", "set", "delete", "clear"];
/** The asset store's async forms on Airflow 3.3.x; the task store has none. */
const ASYNC_METHODS: ReadonlyMap<string, StoreMethod> = new Map(SYNC_METHODS.map((m) => [`a${m}`, m]));
const STORE_METHODS: readonly string[] = [...SYNC_METHODS, ...ASYNC_METHODS.keys()];
/** The file's semantic model, built when a rule or another analysis first asks for it. */
export const semanticModel = analysis("semantic model", (context) => new SemanticModel(context.tree, context.text, context));

export class SemanticModel extends PythonModel<FunctionInfo> {
  private dagList?: DagInfo[];
  private taskFunctionList?: FunctionInfo[];
  private storeCallList?: StoreCall[];
  private readonly storeCallsByRegions = new Map<string, StoreCall[]>();
  private callablesByName?: Map<string, CallInfo[]>;
  private readonly storeRefs = new Map<number, StoreReference | null>();

  constructor(tree: Tree, text: string, context?: AnalysisContext) {
    super(tree, text, context);
    if (!context) this.context.provide(semanticModel, this);
  }

  protected override defineFunction(scope: Scope, range: OffsetRange, name: string, binding: Binding): FunctionInfo {
    return new AirflowFunction(this, scope, range, name, binding);
  }

  // ---- DAGs ----

  /**
   * The functions that are TaskFlow tasks (`@task`, `@task.sensor(...)`, ...), in document order.
   * Only the functions with a decorator that names `task` (or an import of it) are asked for theirs.
   */
  get taskFunctions(): FunctionInfo[] {
    if (!this.taskFunctionList) {
      const candidates = new Set(this.functionsDecoratedWithNames(this.namesFor("task", TASK_DECORATOR)).map((node) => node.startIndex));
      this.taskFunctionList = candidates.size === 0 ? [] : this.functions.filter((fn) => candidates.has(fn.range.start) && fn.task);
    }
    return this.taskFunctionList;
  }

  get dags(): DagInfo[] {
    if (!this.dagList) this.dagList = this.findDags();
    return this.dagList;
  }

  // ---- state stores ----

  /** Every `get` / `set` / `delete` / `clear` call on a task or asset state store, and the asset store's `aget` / `aset` / `adelete` / `aclear`. */
  get storeCalls(): StoreCall[] {
    this.storeCallList ??= this.findStoreCalls(attributeCalls(this.tree, this.text, STORE_METHODS));
    return this.storeCallList;
  }

  /**
   * The store calls that lie inside `regions` (every one when undefined): what a rule examines when
   * a lint recomputes only the findings of the functions an edit touched (`engine/incremental.ts`).
   * Found from the regions' own text, so the rest of the file's calls are never resolved.
   */
  storeCallsWithin(regions: readonly OffsetRange[] | undefined): StoreCall[] {
    if (!regions) return this.storeCalls;
    const key = regions.map((r) => `${r.start}:${r.end}`).join(",");
    let calls = this.storeCallsByRegions.get(key);
    if (!calls) {
      const inside = (node: SyntaxNode) => regions.some((r) => node.startIndex >= r.start && node.endIndex <= r.end);
      calls = this.storeCallList
        ? this.storeCallList.filter((call) => inside(call.node))
        : this.findStoreCalls(regions.flatMap((region) => attributeCalls(this.tree, this.text, STORE_METHODS, region)));
      this.storeCallsByRegions.set(key, calls);
    }
    return calls;
  }

  /** The store calls made in `fn` itself (not in functions nested in it). */
  storeCallsOf(fn: FunctionInfo): StoreCall[] {
    return this.storeCallsWithin([fn.range]).filter((call) => call.function === fn);
  }

  /** The functions whose definitions overlap `regions` (every one when undefined): those in them and those around them. */
  functionsOverlapping(regions: readonly OffsetRange[] | undefined): FunctionInfo[] {
    if (!regions) return this.functions;
    return this.functions.filter((fn) => regions.some((r) => fn.range.start < r.end && r.start < fn.range.end));
  }

  private findStoreCalls(candidates: readonly SyntaxNode[]): StoreCall[] {
    const calls: StoreCall[] = [];
    for (const node of candidates) {
      const call = this.callInfo(node);
      const fn = node.childForFieldName("function")!;
      const written = fn.childForFieldName("attribute")!.text;
      const asyncMethod = ASYNC_METHODS.get(written);
      const method = asyncMethod ?? (written as StoreMethod);
      const store = this.storeReference(fn.childForFieldName("object")!);
      if (!store || (asyncMethod && store.kind !== "asset")) continue;
      const { positional, keywords } = call.args;
      calls.push({
        node: call.node,
        method,
        async: asyncMethod !== undefined,
        store,
        args: call.args,
        key: positional[0] ?? keywords.get("key")?.value,
        value: method === "set" ? positional[1] ?? keywords.get("value")?.value : undefined,
        scope: call.scope,
        function: this.functionOf(call.node),
      });
    }
    return calls;
  }

  /**
   * What store, if any, an expression evaluates to: `context["task_state_store"]`,
   * `context.get("task_state_store")` (likewise `asset_state_store`), a `task_state_store` /
   * `asset_state_store` parameter,
   * `asset_state_store[ASSET]`, or a name bound once to one of these.
   */
  storeReference(expression: SyntaxNode): StoreReference | undefined {
    // Chains of subscripts and of names bound to names can be as long as the file: the expressions
    // each answer depends on are followed in a loop, then answered innermost first.
    const chain: { node: SyntaxNode; step: StoreStep }[] = [];
    let node: SyntaxNode | undefined = unparenthesize(expression);
    while (node && !this.storeRefs.has(node.id)) {
      this.storeRefs.set(node.id, null); // guards against cycles through bindings
      const step = this.storeStep(node);
      chain.push({ node, step });
      node = step.kind === "depends" ? unparenthesize(step.on) : undefined;
    }
    let inner = node ? this.storeRefs.get(node.id) ?? undefined : undefined;
    for (let i = chain.length - 1; i >= 0; i--) {
      const { node: outer, step } = chain[i];
      inner = step.kind === "depends" ? step.answer(inner) : step.answer;
      this.storeRefs.set(outer.id, inner ?? null);
    }
    return inner;
  }

  /** The store `node` is, or the expression whose store decides it. */
  private storeStep(node: SyntaxNode): StoreStep {
    const answer = (reference: StoreReference | undefined): StoreStep => ({ kind: "answer", answer: reference });
    switch (node.type) {
      case "subscript": {
        const index = node.childForFieldName("subscript");
        const value = node.childForFieldName("value")!;
        const contextKey = plainString(index);
        if (contextKey === "task_state_store") return answer({ kind: "task", node, indexed: false });
        if (contextKey === "asset_state_store") return answer({ kind: "asset", node, indexed: false });
        return { kind: "depends", on: value, answer: (inner) => (inner?.kind === "asset" && !inner.indexed && index ? { kind: "asset", node, indexed: true, asset: index } : undefined) };
      }
      case "call": {
        const fn = node.childForFieldName("function");
        if (fn?.type !== "attribute" || fn.childForFieldName("attribute")?.text !== "get") return answer(undefined);
        const contextKey = plainString(callArguments(node).positional[0]);
        if (contextKey !== "task_state_store" && contextKey !== "asset_state_store") return answer(undefined);
        const kind = contextKey === "task_state_store" ? "task" : "asset";
        // `store.get("task_state_store")` reads the store, not the context.
        return { kind: "depends", on: fn.childForFieldName("object")!, answer: (inner) => (inner ? undefined : { kind, node, indexed: false }) };
      }
      case "identifier": {
        const binding = this.bindingOf(node) ?? this.storeParameterRebinding(node);
        if (!binding) return answer(undefined);
        if (binding.kind === "parameter") {
          if (node.text === "task_state_store") return answer({ kind: "task", node, indexed: false });
          if (node.text === "asset_state_store") return answer({ kind: "asset", node, indexed: false });
          return answer(undefined);
        }
        if (binding.kind === "assign" && binding.value) return { kind: "depends", on: binding.value, answer: (bound) => (bound ? { ...bound, node } : undefined) };
        return answer(undefined);
      }
      default:
        return answer(undefined);
    }
  }

  /**
   * The seeds' own idiom `asset_state_store = asset_state_store[ORDERS]` binds the name twice, so it
   * has no single binding: up to the end of that assignment the name is the parameter, after it the
   * indexed store.
   */
  private storeParameterRebinding(identifier: SyntaxNode): Binding | undefined {
    const bindings = this.scopeOf(identifier).lookup(identifier.text);
    if (!bindings || bindings.length !== 2) return undefined;
    const parameter = bindings.find((b) => b.kind === "parameter");
    const assignment = bindings.find((b) => b.kind === "assign");
    const value = assignment?.value && unparenthesize(assignment.value);
    if (!parameter || !assignment || !value || value.type !== "subscript" || value.childForFieldName("value")?.text !== identifier.text) return undefined;
    return identifier.startIndex < value.endIndex ? parameter : assignment;
  }

  /** The TaskFlow decorator (`@task`, `@task.virtualenv(...)`) of a function's definition, if it has one. */
  taskDecoratorOf(definition: SyntaxNode): TaskDecorator | undefined {
    const decorated = definition.parent;
    if (decorated?.type !== "decorated_definition") return undefined;
    for (const decorator of decorated.namedChildren) {
      if (decorator.type !== "decorator") continue;
      const expression = decorator.namedChildren[0];
      if (!expression) continue;
      const isCall = expression.type === "call";
      const target = isCall ? expression.childForFieldName("function") : expression;
      const name = this.qualifiedName(target);
      if (name && TASK_DECORATOR.test(name)) {
        const variant = name.replace(/^airflow\.(sdk|decorators)\./, "");
        // Read when a rule asks: a DAG's tasks are many, and most rules ask nothing of their decorators' arguments.
        let keywords: Map<string, KeywordArgument> | undefined;
        return {
          node: expression,
          variant,
          get keywords() {
            return (keywords ??= isCall ? callArguments(expression).keywords : new Map());
          },
        };
      }
    }
    return undefined;
  }

  /**
   * The operators that run `fn` as a task (`PythonOperator(python_callable=fn)`). Only the calls
   * that pass a name spelled as the function's have their callee and that name resolved: a lint
   * after an edit asks of the edited function, and resolving every `python_callable=` of a large
   * file cost more than the rest of its rules with a scope.
   */
  operatorCallsRunning(fn: FunctionInfo): CallInfo[] {
    return (this.callablesPassed().get(fn.name) ?? []).filter((call) => call.callee !== undefined && PYTHON_OPERATOR.test(call.callee) && this.functionNamed(fn.name, call.scope) === fn);
  }

  /** The calls that pass `python_callable=` a name, by that name, in document order; found once. */
  private callablesPassed(): Map<string, CallInfo[]> {
    if (!this.callablesByName) {
      this.callablesByName = new Map();
      // The text says cheaply whether any call can pass `python_callable=`.
      const calls = this.text.includes("python_callable") ? keywordCalls(this.tree, this.text, "python_callable") : [];
      for (const node of calls) {
        const call = this.callInfo(node);
        const callable = call.args.keywords.get("python_callable")?.value;
        if (callable?.type !== "identifier") continue;
        const passing = this.callablesByName.get(callable.text);
        if (passing) passing.push(call);
        else this.callablesByName.set(callable.text, [call]);
      }
    }
    return this.callablesByName;
  }

  private findDags(): DagInfo[] {
    const dags: DagInfo[] = [];
    // A callee resolves through imports only, so a DAG's call is spelled `DAG` (`DAG(...)`,
    // `models.DAG(...)`) or with the name an import gives it (`from airflow import DAG as D`):
    // only those calls have their callee resolved, not every call of the file.
    const dagNames = this.text.includes("DAG") ? this.namesFor("DAG", DAG_CLASS) : [];
    const dagCalls = dagNames.length > 0 ? callsNamed(this.tree, this.text, [...new Set(dagNames)]).map((node) => this.callInfo(node)) : [];
    for (const call of dagCalls) {
      if (!call.callee || !DAG_CLASS.test(call.callee)) continue;
      dags.push({ node: call.node.parent?.parent?.type === "with_item" ? call.node.parent.parent : call.node, call, keywords: call.args.keywords, defaultArgs: this.defaultArgs(call.args.keywords) });
    }
    for (const definition of this.functionsDecoratedWithNames(this.namesFor("dag", DAG_DECORATOR))) {
      // A decorated definition's: `functionsDecoratedWithNames` found it from one of these decorators.
      for (const decorator of definition.parent!.namedChildren) {
        const expression = decorator.namedChildren[0];
        if (!expression) continue;
        const target = expression.type === "call" ? expression.childForFieldName("function") : expression;
        const name = this.qualifiedName(target);
        if (!name || !DAG_DECORATOR.test(name)) continue;
        const keywords = expression.type === "call" ? callArguments(expression).keywords : new Map<string, KeywordArgument>();
        dags.push({ node: definition, keywords, defaultArgs: this.defaultArgs(keywords) });
      }
    }
    return dags;
  }

  /**
   * The names that spell a callee whose qualified name matches `qualified`: `written`, alone or in a
   * dotted name (`DAG`, `models.DAG`, `@airflow.sdk.dag`, `@task.python`: `qualifiedName` reads the
   * parts after the first as written), and the names imports give it (`from airflow import DAG as D`).
   */
  private namesFor(written: string, qualified: RegExp): string[] {
    return [written, ...this.importBindings().filter((b) => b.name !== written && qualified.test(b.qualifiedName ?? "")).map((b) => b.name)];
  }

  /**
   * The function definitions with a decorator that mentions one of `names` in its callee, in
   * document order: found up from those names' identifiers instead of asking every function of the
   * file for its decorators. A superset of those a decorator of `names` makes: the caller reads each
   * decorator as before.
   */
  private functionsDecoratedWithNames(names: readonly string[]): SyntaxNode[] {
    if (!this.text.includes("@")) return [];
    const found = new Map<number, SyntaxNode>();
    for (const identifier of identifiersSpelledAny(this.tree, this.text, names)) {
      let node = identifier.parent;
      for (let depth = 0; node && DECORATOR_CALLEE_PARTS.has(node.type) && depth < MAX_DECORATOR_DEPTH; depth++) node = node.parent;
      const definition = node?.type === "decorator" ? node.parent?.childForFieldName("definition") : undefined;
      if (definition?.type === "function_definition") found.set(definition.id, definition);
    }
    return [...found.values()].sort((a, b) => a.startIndex - b.startIndex);
  }

  private defaultArgs(keywords: Map<string, KeywordArgument>): SyntaxNode | undefined {
    const value = keywords.get("default_args")?.value;
    if (!value) return undefined;
    const resolved = this.resolveValue(value);
    return resolved.type === "dictionary" ? resolved : undefined;
  }
}

/**
 * A function, with what Airflow makes of it. Whether it is a task, and the operators that run it
 * (which resolves the callees of the `python_callable=` calls that pass its name), are worked out
 * when something asks: a lint after an edit asks of the edited function and the few its rules look at.
 */
class AirflowFunction extends DefinedFunction implements FunctionInfo {
  declare enclosingClass?: ClassInfo;
  private taskDecorator: TaskDecorator | undefined | null = null;
  private runBy: CallInfo[] | undefined;

  constructor(
    private readonly model: SemanticModel,
    scope: Scope,
    range: OffsetRange,
    name: string,
    binding: Binding,
  ) {
    super(scope, range, name, binding);
  }

  get task(): TaskDecorator | undefined {
    if (this.taskDecorator === null) this.taskDecorator = this.model.taskDecoratorOf(this.node);
    return this.taskDecorator;
  }

  get callableOf(): CallInfo[] {
    return (this.runBy ??= this.model.operatorCallsRunning(this));
  }
}
