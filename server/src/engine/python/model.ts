/**
 * The Python model of one file: scopes, bindings, imports, functions, classes and calls, as Python
 * resolves names. It knows nothing of Airflow; the Airflow layer's `SemanticModel` (airflow/model.ts)
 * builds on it. Built once per parse; calls are worked out on first use.
 */
import { analysis, AnalysisContext } from "../context";
import { identifiersSpelled, insideAny, statementsAt, SyntaxNode, Tree } from "../syntax/parser";
import { DefinitionPlace, definitionNodeAt, definitionsFound, knownDefinitions, knownDefinitionsIn } from "./definitions";
import { Binding, BindingSource, Scope } from "./scope";
import { BindingPlace, bindingPlacesOf, CarriedBinding, moduleBindingsLastTime } from "./carriedBindings";
import { callArguments, CallArguments, dottedParts, unparenthesize } from "../syntax/nodes";
import { withLineFeeds } from "../syntax/lineBreaks";
import { plainClassBases } from "../syntax/definitionHeaders";
import type { OffsetRange } from "../types";

export type ParameterKind = "positional" | "keyword-only" | "var-positional" | "var-keyword";

export interface Parameter {
  name: string;
  kind: ParameterKind;
  /** The whole parameter node (`x`, `x=1`, `**context`). */
  node: SyntaxNode;
  nameNode: SyntaxNode;
  default?: SyntaxNode;
}

export interface FunctionInfo {
  /** Found in the tree when first asked for (`python/definitions.ts`): read `range` for where it is. */
  node: SyntaxNode;
  /** The definition node's range (decorators excluded), known without the node. */
  range: OffsetRange;
  name: string;
  nameNode: SyntaxNode;
  parameters: Parameter[];
  /** The function's own scope (its parameters and locals). */
  scope: Scope;
  /** The class whose body defines this function, if any. */
  enclosingClass?: ClassInfo;
}

export interface ClassInfo<F extends FunctionInfo = FunctionInfo> {
  /** Found in the tree when first asked for, as a function's. */
  node: SyntaxNode;
  range: OffsetRange;
  name: string;
  nameNode: SyntaxNode;
  /** Base class expressions, keyword arguments (`metaclass=`) excluded. */
  bases: SyntaxNode[];
  /** Qualified names of the bases where they can be resolved. */
  baseNames: (string | undefined)[];
  /** Class-level assignments (`external_id_key = "..."`). */
  attributes: Map<string, Binding>;
  methods: Map<string, F>;
  scope: Scope;
}

/** A call expression; its callee, arguments and scope are worked out on first use, since most calls are never asked about. */
export class CallInfo {
  private calleeName?: string | null;
  private argumentsOf?: CallArguments;
  private scopeOf?: Scope;

  constructor(
    readonly node: SyntaxNode,
    private readonly model: PythonModel,
  ) {}

  /** The qualified name of the callee where it resolves (`airflow.sdk.DAG`, `datetime.datetime.now`). */
  get callee(): string | undefined {
    if (this.calleeName === undefined) this.calleeName = this.model.qualifiedName(this.node.childForFieldName("function")) ?? null;
    return this.calleeName ?? undefined;
  }

  get args(): CallArguments {
    return (this.argumentsOf ??= callArguments(this.node));
  }

  get scope(): Scope {
    return (this.scopeOf ??= this.model.scopeOf(this.node));
  }
}

/** Target nodes whose names are bound by unpacking (`a, [b, *c] = ...`). */
const UNPACKING_TYPES = ["pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "list_splat_pattern", "parenthesized_expression"];
/** The nodes that bind names. */
export const BINDING_TYPES = [
  "import_statement",
  "import_from_statement",
  "assignment",
  "augmented_assignment",
  "named_expression",
  "for_statement",
  "as_pattern_target",
  "global_statement",
  "nonlocal_statement",
];

/** `F`: what a layer above knows of each function (the Airflow layer adds its task facts). */
export class PythonModel<F extends FunctionInfo = FunctionInfo> implements BindingSource {
  readonly module: Scope;
  /** The analysis context the model belongs to; analyses built from the model are kept there. */
  readonly context: AnalysisContext;
  readonly functions: F[] = [];
  readonly classes: ClassInfo<F>[] = [];
  /** Function and class scopes in order of their body's start, for offset lookups. */
  private readonly scopesByStart: Scope[] = [];
  private readonly functionsByScope = new Map<Scope, F>();
  /** The functions by the binding of their names. */
  private readonly functionsByBinding = new Map<Binding, F>();
  /** Where the file's definitions are; the front end carries them over to the model of an edited text (`IncrementalLinter`). */
  readonly definitionPlaces: readonly DefinitionPlace[];
  /** The definition nodes at hand, by start: those found in the tree; the others are found when asked for. */
  private readonly definitionNodes: Map<number, SyntaxNode>;
  private callList?: CallInfo[];
  private classesByName?: Map<string, ClassInfo<F>[]>;
  /** Names whose bindings are complete in every scope; `"all"` once every statement is bound. */
  private readonly boundNames = new Set<string>();
  /** Names whose bindings are complete in one scope (`Scope.own`, `Scope.lookup`). */
  private readonly boundInScope = new Map<Scope, Set<string>>();
  /** What the lookups in single scopes have cost so far (`lookupCost`): past the file's length, binding every statement costs less. */
  private scopedLookupCost = 0;
  private readonly parametersBound = new Set<Scope>();
  /** Scopes whose every statement is bound (`bindingsOfScope`). */
  private readonly completeScopes = new Set<Scope>();
  private readonly nestedBodiesByScope = new Map<Scope, OffsetRange[]>();
  private everyNameBound = false;
  /** The statements already bound (by node id), so that one found again is not bound twice. */
  private readonly boundStatements = new Set<number>();
  private importsBound = false;
  private readonly imports: Binding[] = [];
  /** The module scope's bindings are the last lint's, carried over the edit since (`python/carriedBindings.ts`): its statements are not bound again. */
  private moduleCarried = false;
  /** The source `tree` was parsed from, as it was parsed (`withLineFeeds`): some lookups search it and map the offsets back to nodes. */
  readonly text: string;

  constructor(
    readonly tree: Tree,
    text: string,
    context?: AnalysisContext,
  ) {
    this.text = withLineFeeds(text);
    // A model made directly from a tree (a test, a project file) gets a context of its own.
    this.context = context ?? new AnalysisContext({ text: this.text }, tree);
    this.module = new Scope("module", tree.rootNode, undefined, 0, Number.MAX_SAFE_INTEGER, this);
    // Definitions are bound now; a function's parameters when a name is first looked up in it, the
    // other statements when a name is asked about. After an edit inside one function, most of the
    // definitions' places are the last lint's.
    const known = this.context.peek(knownDefinitions);
    const found = (known && knownDefinitionsIn(known, tree, this.text)) ?? definitionsFound(tree, this.text);
    this.definitionPlaces = found.places;
    this.definitionNodes = found.nodes;
    this.buildScopes(found.places);
    const carried = this.context.peek(moduleBindingsLastTime);
    if (carried) this.carryModuleBindings(carried);
  }

  // ---- binding on demand ----

  /**
   * Binds every statement that can bind `name`: each one holds the name's spelling, so the text says
   * where to look, and the statement is the nearest binding statement around that identifier. A rule
   * that resolves a few names (`datetime` in `datetime.utcnow()`) so binds a few statements instead
   * of every statement of the file.
   */
  bindingsOf(name: string, scope?: Scope): void {
    if (this.everyNameBound || this.boundNames.has(name)) return;
    if (scope) return this.bindingsIn(name, scope);
    this.bindEveryParameter();
    if (this.boundNames.size >= MAX_NAMES_BOUND_ONE_BY_ONE) return this.allBindings();
    const identifiers = identifiersSpelled(this.tree, this.text, name, MAX_SPELLINGS_LOOKED_UP);
    // So many spellings that binding every statement at once costs less.
    if (identifiers === undefined) return this.allBindings();
    for (const identifier of identifiers) {
      const statement = bindingStatementAround(identifier);
      if (statement) this.bindStatement(statement);
    }
    this.boundNames.add(name);
  }

  /**
   * Binds the statements that can bind `name` in `scope` itself: its spellings in the scope's body,
   * outside the bodies of the functions and classes nested in it (their statements bind in their
   * own scopes). A task's local name is so found in the task's few lines, and a module-level name
   * in the module's own statements, however many functions spell it.
   */
  private bindingsIn(name: string, scope: Scope): void {
    let names = this.boundInScope.get(scope);
    if (names?.has(name) || this.completeScopes.has(scope)) return;
    if (scope === this.module && this.context.peek(moduleBoundWholeLastTime)) return this.bindingsOfScope(scope);
    this.bindParameters(scope);
    const within = this.bodyOf(scope);
    const nested = this.nestedBodies(scope);
    this.scopedLookupCost += lookupCost(within, nested);
    // Past the budget, or with too many spellings to look at, the scope's own statements are bound
    // at once: each scope's once at most, which sums to the file's statements, not to every
    // statement of the file on the first lookup past the budget.
    if (this.scopedLookupCost > this.text.length) return this.bindingsOfScope(scope);
    const identifiers = identifiersSpelled(this.tree, this.text, name, MAX_SPELLINGS_LOOKED_UP, within, nested, (end) => mayBeBound(this.text, end - name.length, end));
    if (identifiers === undefined) return this.bindingsOfScope(scope);
    for (const identifier of identifiers) {
      const statement = bindingStatementAround(identifier);
      if (statement) this.bindStatement(statement);
    }
    if (!names) this.boundInScope.set(scope, (names = new Set()));
    names.add(name);
  }

  /** The bodies of the scopes directly inside `scope`, in order: every scope's, listed at the first lookup (a scope at a time would read every scope for each). */
  private nestedBodies(scope: Scope): readonly OffsetRange[] {
    if (this.nestedBodiesByScope.size === 0) {
      for (const nested of this.scopesByStart) {
        const bodies = this.nestedBodiesByScope.get(nested.parent!);
        const body = { start: nested.bodyStart, end: nested.bodyEnd };
        if (bodies) bodies.push(body);
        else this.nestedBodiesByScope.set(nested.parent!, [body]);
      }
    }
    return this.nestedBodiesByScope.get(scope) ?? NO_BODIES;
  }

  /**
   * Binds a function scope's parameters, the first time a name is looked up in it: a file's
   * functions are many, and a lint after an edit looks into few of them.
   */
  private bindParameters(scope: Scope): void {
    if (scope.kind !== "function" || this.parametersBound.has(scope)) return;
    this.parametersBound.add(scope);
    const fn = this.functionsByScope.get(scope);
    for (const p of fn?.parameters ?? []) scope.add({ name: p.name, kind: "parameter", target: p.nameNode, value: p.default });
  }

  private bindEveryParameter(): void {
    if (this.parametersBound.size === this.functions.length) return;
    for (const fn of this.functions) this.bindParameters(fn.scope);
  }

  /** The module scope's bindings as the last lint left them: those of its statements, after the definitions the scope already holds. */
  private carryModuleBindings(places: readonly BindingPlace[]): void {
    for (const place of places) {
      const binding = new CarriedBinding(place, this.module, this.tree);
      this.module.addInOrder(binding);
      if (binding.kind === "import") this.imports.push(binding);
    }
    this.completeScopes.add(this.module);
    this.moduleCarried = true;
  }

  /** The places of the module scope's statement bindings, for a lint after an edit that cannot change them; undefined unless the scope is bound whole. */
  moduleBindingPlaces(): BindingPlace[] | undefined {
    return this.moduleBoundWhole ? bindingPlacesOf(this.module) : undefined;
  }

  /** Whether every statement of the module scope is bound (`moduleBoundWholeLastTime`). */
  get moduleBoundWhole(): boolean {
    return this.everyNameBound || this.completeScopes.has(this.module);
  }

  allBindings(): void {
    if (this.everyNameBound) return;
    this.bindEveryParameter();
    this.everyNameBound = true;
    for (const statement of bindingNodes(this.tree, this.text)) this.bindStatement(statement);
  }

  /**
   * Binds every statement of `scope` itself: its parameters, and the statements of its body outside
   * the bodies nested in it. Listing a class's attributes, or the module's names, so reads that
   * scope's own text, not every statement of the file.
   */
  bindingsOfScope(scope: Scope): void {
    if (this.everyNameBound || this.completeScopes.has(scope)) return;
    this.completeScopes.add(scope);
    this.bindParameters(scope);
    for (const statement of bindingNodes(this.tree, this.text, this.bodyOf(scope), this.nestedBodies(scope))) this.bindStatement(statement);
  }

  /** The text a scope's names are bound in (the module's: all of it). */
  private bodyOf(scope: Scope): OffsetRange {
    return { start: scope.bodyStart, end: Math.min(scope.bodyEnd, this.text.length) };
  }

  private bindStatement(node: SyntaxNode): void {
    if (this.boundStatements.has(node.id) || (this.moduleCarried && this.scopeOf(node) === this.module)) return;
    this.boundStatements.add(node.id);
    switch (node.type) {
      case "import_statement":
      case "import_from_statement":
        this.bindImport(node);
        break;
      case "assignment":
        this.bindAssignment(node.childForFieldName("left"), node.childForFieldName("right"));
        break;
      case "augmented_assignment":
      case "for_statement":
        this.bindTargets(node.childForFieldName("left"), "other");
        break;
      case "named_expression":
        this.bindTargets(node.childForFieldName("name"), "other");
        break;
      case "as_pattern_target":
        this.bindTargets(node.namedChildren[0], "other");
        break;
      default:
        // `global x` / `nonlocal x` make x's bindings unknowable from here.
        for (const id of node.namedChildren) this.scopeOf(node).add({ name: id.text, kind: "other", target: id });
    }
  }

  /** Binds every import statement: each holds the word `import`. */
  private bindImports(): void {
    if (this.importsBound || this.everyNameBound) return;
    this.importsBound = true;
    for (const statement of this.importStatements()) this.bindStatement(statement);
  }

  /**
   * The file's import statements, in the order of the text, found from their keyword; once the
   * module scope is bound whole, only those in the bodies of its functions and classes (the
   * module's own are bound already, and a file's imports are mostly the module's).
   */
  private *importStatements(): Generator<SyntaxNode> {
    const nested = this.completeScopes.has(this.module) ? this.nestedBodies(this.module) : undefined;
    for (let start = this.text.indexOf("import"); start >= 0; start = this.text.indexOf("import", start + 1)) {
      if (nested && !insideAny(nested, start)) continue;
      const keyword = this.root.descendantForIndex(start, start + "import".length);
      const statement = keyword.type === "import" ? keyword.parent : undefined;
      if (statement && (statement.type === "import_statement" || statement.type === "import_from_statement")) yield statement;
    }
  }

  /** What this model keeps of a function; a layer above adds its own facts. */
  protected defineFunction(scope: Scope, range: OffsetRange, name: string, binding: Binding): F {
    return new DefinedFunction(scope, range, name, binding) as FunctionInfo as F;
  }

  get root(): SyntaxNode {
    return this.tree.rootNode;
  }

  // ---- scopes and names ----

  /**
   * The scope in which `node` is evaluated: the innermost function or class whose body contains it.
   * Found by offset among the scopes (sorted by body start) rather than by walking `node.parent`,
   * which tree-sitter computes from the root on every call.
   */
  scopeOf(node: SyntaxNode): Scope {
    return this.scopeAt(node.startIndex);
  }

  private scopeAt(offset: number): Scope {
    const scopes = this.scopesByStart;
    let low = 0;
    let high = scopes.length - 1;
    let candidate = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (scopes[mid].bodyStart <= offset) {
        candidate = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    for (let scope: Scope | undefined = candidate >= 0 ? scopes[candidate] : undefined; scope; scope = scope.parent) {
      if (scope.contains(offset)) return scope;
    }
    return this.module;
  }

  /** The function and class scopes whose bodies start after `start` and end by `end`, in order: found by offset, not by walking nodes. */
  scopesWithin(start: number, end: number): Scope[] {
    const scopes = this.scopesByStart;
    let low = 0;
    let high = scopes.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (scopes[mid].bodyStart > start) high = mid;
      else low = mid + 1;
    }
    const found: Scope[] = [];
    for (let i = low; i < scopes.length && scopes[i].bodyStart < end; i++) if (scopes[i].bodyEnd <= end) found.push(scopes[i]);
    return found;
  }

  /** Every import binding of the file, in every scope. */
  importBindings(): readonly Binding[] {
    this.bindImports();
    return this.imports;
  }

  /** The innermost function whose body contains `node`. */
  functionOf(node: SyntaxNode): F | undefined {
    for (let scope: Scope | undefined = this.scopeOf(node); scope; scope = scope.parent) {
      if (scope.kind === "function") return this.functionsByScope.get(scope);
    }
    return undefined;
  }

  /** The binding an identifier refers to when it is bound exactly once. */
  bindingOf(identifier: SyntaxNode): Binding | undefined {
    if (identifier.type !== "identifier") return undefined;
    return this.scopeOf(identifier).unique(identifier.text);
  }

  /**
   * Follows a name to the expression it was assigned, through single assignments
   * (`RETENTION = 7` makes `RETENTION` resolve to `7`). Other expressions resolve to themselves.
   */
  resolveValue(node: SyntaxNode): SyntaxNode {
    let current = unparenthesize(node);
    for (let depth = 0; depth < 8 && current.type === "identifier"; depth++) {
      const binding = this.bindingOf(current);
      if (!binding || binding.kind !== "assign" || !binding.value) break;
      current = unparenthesize(binding.value);
    }
    return current;
  }

  /**
   * The fully qualified name of a dotted expression: `datetime.now` -> `datetime.datetime.now` after
   * `from datetime import datetime`. Names that are not imported resolve to themselves when unbound
   * (builtins like `float`), definitions of this file to their own names, and to undefined when they
   * are variables.
   */
  qualifiedName(node: SyntaxNode | null | undefined): string | undefined {
    if (!node) return undefined;
    const parts = dottedParts(unparenthesize(node));
    return parts && this.qualifiedNameIn(parts, this.scopeOf(node));
  }

  /** `qualifiedName` of a dotted name written in `scope` (`["datetime", "now"]`). */
  qualifiedNameIn(parts: readonly string[], scope: Scope): string | undefined {
    const bindings = scope.lookup(parts[0]);
    if (!bindings) return parts.join(".");
    // A class or function defined in this file is named by its own dotted path.
    if (bindings.length === 1 && (bindings[0].kind === "class" || bindings[0].kind === "function")) return parts.join(".");
    const imports = bindings.filter((b) => b.kind === "import");
    if (imports.length !== bindings.length || new Set(imports.map((b) => b.qualifiedName)).size !== 1) return undefined;
    return [imports[0].qualifiedName!, ...parts.slice(1)].join(".");
  }

  /** Whether `node` names something imported from `module` (or one of its submodules). */
  importsFrom(module: string): boolean {
    const fromModule = (b: Binding) => b.scope === this.module && (b.qualifiedName === module || b.qualifiedName?.startsWith(module + "."));
    if (this.imports.some(fromModule)) return true;
    if (this.importsBound || this.everyNameBound) return false;
    // Up to the first such import: a statement that does not spell the module binds nothing from it,
    // and most files import from Airflow in their first lines (the imports of a file of a thousand
    // tasks are bound on every keystroke otherwise).
    for (const statement of this.importStatements()) {
      if (!statement.text.includes(module)) continue;
      const bound = this.imports.length;
      this.bindStatement(statement);
      if (this.imports.slice(bound).some(fromModule)) return true;
    }
    return false;
  }

  functionNamed(name: string, scope: Scope = this.module): F | undefined {
    const binding = scope.unique(name);
    if (!binding || binding.kind !== "function") return undefined;
    return this.functionsByBinding.get(binding);
  }

  classNamed(name: string): ClassInfo<F> | undefined {
    return this.classesNamed(name)[0];
  }

  /** Every class of this file defined under `name`, in document order. */
  classesNamed(name: string): readonly ClassInfo<F>[] {
    if (!this.classesByName) {
      this.classesByName = new Map();
      for (const cls of this.classes) {
        const named = this.classesByName.get(cls.name);
        if (named) named.push(cls);
        else this.classesByName.set(cls.name, [cls]);
      }
    }
    return this.classesByName.get(name) ?? [];
  }

  /** The class whose name `nameNode` is (the target of a `class` binding). */
  classDefinedBy(nameNode: SyntaxNode): ClassInfo<F> | undefined {
    const id = nameNode.id;
    return this.classesNamed(nameNode.text).find((c) => c.nameNode.id === id);
  }

  // ---- calls ----

  get calls(): CallInfo[] {
    if (!this.callList) {
      this.callList = this.root.descendantsOfType("call").map((node) => this.callInfo(node));
    }
    return this.callList;
  }

  callInfo(node: SyntaxNode): CallInfo {
    return new CallInfo(node, this);
  }

  /** The classes defined in this file whose bases include `qualifiedOrLocalName`, directly or through other classes of the file. */
  subclassesOf(isBase: (qualifiedName: string) => boolean): ClassInfo<F>[] {
    // Whether each class name derives, worked out once per name. The chain of bases is followed with
    // an explicit stack, since it can be as long as the file; a name met again while its own answer is
    // pending is a cycle, which derives from nothing.
    const derives = new Map<string, boolean>();
    const pending = new Set<string>();
    const answer = (cls: ClassInfo<F>): boolean => {
      const stack: { cls: ClassInfo<F>; next: number }[] = [{ cls, next: 0 }];
      pending.add(cls.name);
      let found: boolean | undefined;
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        if (found === undefined) {
          const base = top.cls.baseNames[top.next++];
          if (top.next > top.cls.baseNames.length) found = false;
          else if (!base) continue;
          else if (isBase(base)) found = true;
          else {
            const local = this.classNamed(base);
            const known = local && derives.get(local.name);
            if (known) found = true;
            else if (local && known === undefined && !pending.has(local.name)) {
              pending.add(local.name);
              stack.push({ cls: local, next: 0 });
            }
            continue;
          }
        }
        // `found` is the answer of `top`; a parent goes on with its next base unless it is true.
        derives.set(top.cls.name, found);
        pending.delete(top.cls.name);
        stack.pop();
        if (!found) found = undefined;
      }
      return derives.get(cls.name)!;
    };
    return this.classes.filter((c) => derives.get(c.name) ?? answer(c));
  }

  // ---- construction ----

  /** The scopes, functions and classes of the definitions at `places` (in document order). */
  private buildScopes(places: readonly DefinitionPlace[]): void {
    // In document order, a parent's scope exists before its children's.
    const scopes: Scope[] = [];
    for (const place of places) {
      const scope = new Scope(place.kind, () => this.definitionNode(place), this.scopeAt(place.start), place.bodyStart, place.bodyEnd, this);
      scopes.push(scope);
      this.scopesByStart.push(scope);
    }
    const classesByScope = new Map<Scope, ClassInfo<F>>();
    for (let index = 0; index < places.length; index++) {
      const place = places[index];
      const name = place.name;
      if (name === undefined) continue;
      const scope = scopes[index];
      const parentScope = scope.parent!;
      const range = { start: place.start, end: place.end };
      const binding = parentScope.addDefinition(name, place.kind, scope);
      if (place.kind === "class") {
        const cls = new DefinedClass<F>(this, scope, range, name, binding);
        this.classes.push(cls);
        classesByScope.set(scope, cls);
        continue;
      }
      const fn = this.defineFunction(scope, range, name, binding);
      this.functions.push(fn);
      this.functionsByScope.set(scope, fn);
      this.functionsByBinding.set(binding, fn);
      const cls = classesByScope.get(parentScope);
      if (cls) {
        fn.enclosingClass = cls;
        cls.methods.set(fn.name, fn);
      }
    }
  }

  /** The node of the definition at `place`: the one found with it, or found again now. */
  private definitionNode(place: DefinitionPlace): SyntaxNode {
    let node = this.definitionNodes.get(place.start);
    if (!node) {
      node = definitionNodeAt(this.tree, this.text, place);
      this.definitionNodes.set(place.start, node);
    }
    return node;
  }

  private bindImport(node: SyntaxNode): void {
    const scope = this.scopeOf(node);
    const fromModule = node.type === "import_from_statement" ? node.childForFieldName("module_name")?.text : undefined;
    for (const name of node.childrenForFieldName("name")) {
      const aliased = name.type === "aliased_import";
      const dotted = aliased ? name.childForFieldName("name")! : name;
      const alias = aliased ? name.childForFieldName("alias")! : undefined;
      const path = dotted.text.replace(/\s+/g, "");
      // Relative imports keep their leading dots (`.operators.SparkOp`); the workspace index resolves them.
      const qualifiedName = fromModule ? (fromModule.endsWith(".") ? fromModule + path : `${fromModule}.${path}`) : path;
      if (alias) this.imports.push(scope.add({ name: alias.text, kind: "import", target: alias, qualifiedName }));
      else if (fromModule) this.imports.push(scope.add({ name: path, kind: "import", target: dotted, qualifiedName }));
      // `import a.b.c` binds `a`, which stands for the package `a`.
      else this.imports.push(scope.add({ name: path.split(".")[0], kind: "import", target: dotted, qualifiedName: path.split(".")[0] }));
    }
  }

  private bindAssignment(left: SyntaxNode | null, right: SyntaxNode | null): void {
    // Nested unpacking is taken apart with a stack (it can nest as deep as the file is long), in
    // document order.
    const pending: [SyntaxNode | null, SyntaxNode | null][] = [[left, right]];
    for (let next = pending.pop(); next; next = pending.pop()) {
      const [target, value] = next;
      if (!target) continue;
      if (target.type === "identifier") {
        // `x: int` alone declares without binding.
        if (value) this.scopeOf(target).add({ name: target.text, kind: "assign", target, value });
        continue;
      }
      // `a, b = 1, 2` pairs up; any other unpacking binds names to unknown values.
      const targets = target.type === "pattern_list" || target.type === "tuple_pattern" ? target.namedChildren : undefined;
      const values = value && (value.type === "expression_list" || value.type === "tuple") ? value.namedChildren : undefined;
      if (targets && values && targets.length === values.length) {
        for (let i = targets.length - 1; i >= 0; i--) pending.push([targets[i], values[i]]);
      } else this.bindTargets(target, "other");
    }
  }

  private bindTargets(target: SyntaxNode | null | undefined, kind: "other"): void {
    // A stack rather than recursion, for targets nested as deep as the file is long; children are pushed last first to bind in document order.
    const pending = target ? [target] : [];
    for (let next = pending.pop(); next; next = pending.pop()) {
      const type = next.type;
      if (type === "identifier") this.scopeOf(next).add({ name: next.text, kind, target: next });
      else if (UNPACKING_TYPES.includes(type)) {
        const children = next.namedChildren;
        for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
      }
    }
  }

}

/** A function or class of the file, whose node and name node are found when first asked for. */
abstract class Definition {
  constructor(
    readonly scope: Scope,
    readonly range: OffsetRange,
    readonly name: string,
    private readonly binding: Binding,
  ) {}

  get node(): SyntaxNode {
    return this.scope.node;
  }

  get nameNode(): SyntaxNode {
    return this.binding.target;
  }
}

/**
 * A function of the file: its node, name node and parameters are read when first asked for (and its
 * parameters bound when a name is first looked up in it: `bindParameters`).
 */
export class DefinedFunction extends Definition implements FunctionInfo {
  enclosingClass?: ClassInfo;
  private parameterList: Parameter[] | undefined;

  get parameters(): Parameter[] {
    return (this.parameterList ??= parametersOf(this.node));
  }
}

/**
 * A class of the file: its node, bases, their names and its attributes are read when first asked
 * for (the names and the attributes need bindings, which are made on demand).
 */
class DefinedClass<F extends FunctionInfo> extends Definition implements ClassInfo<F> {
  readonly methods = new Map<string, F>();
  private baseList: SyntaxNode[] | undefined;
  private baseNameList: (string | undefined)[] | undefined;
  private attributeMap: Map<string, Binding> | undefined;

  constructor(
    private readonly model: PythonModel<F>,
    scope: Scope,
    range: OffsetRange,
    name: string,
    binding: Binding,
  ) {
    super(scope, range, name, binding);
  }

  get bases(): SyntaxNode[] {
    if (!this.baseList) {
      const superclasses = this.node.childForFieldName("superclasses");
      this.baseList = superclasses ? superclasses.namedChildren.filter((c) => c.type !== "keyword_argument" && c.type !== "comment") : [];
    }
    return this.baseList;
  }

  get baseNames(): (string | undefined)[] {
    if (!this.baseNameList) {
      // A plain header is read from the text, in the scope around the class; others from the tree.
      const plain = plainClassBases(this.model.text, this.range.start, this.scope.bodyStart);
      this.baseNameList = plain ? plain.map((parts) => this.model.qualifiedNameIn(parts, this.scope.parent!)) : this.bases.map((b) => this.model.qualifiedName(b));
    }
    return this.baseNameList;
  }

  get attributes(): Map<string, Binding> {
    if (!this.attributeMap) {
      this.attributeMap = new Map();
      for (const [name, bindings] of this.scope.bindings) {
        const assigned = bindings.filter((b) => b.kind === "assign");
        if (assigned.length > 0) this.attributeMap.set(name, assigned[assigned.length - 1]);
      }
    }
    return this.attributeMap;
  }
}

/**
 * Whether the last lint of the document ended up binding every statement of the module scope, as
 * one of a file whose rules look up many module names does (the operators of its `with DAG(...)`
 * blocks): provided by `IncrementalLinter`, so that a lint after an edit binds them at its first
 * module lookup instead of first paying for the name-by-name lookups that led there. A matter of
 * cost only: the bindings are the same either way.
 */
export const moduleBoundWholeLastTime = analysis<boolean>("module scope bound whole by the last lint", () => false);

/** Past this many names bound one by one, binding every statement at once costs less. */
const MAX_NAMES_BOUND_ONE_BY_ONE = 64;
/** Past this many spellings of one name, binding every statement at once costs less. */
const MAX_SPELLINGS_LOOKED_UP = 256;
/**
 * Whether the name between `start` and `end` can be what a statement binds, as far as its line
 * tells without the tree: not when it is called or indexed (`task(...)`, `rows[0]`), nor in a
 * decorator (`@task(outlets=[ORDERS])` on every task of a DAG), short of a `:=` right after it;
 * nor an attribute's object (`tss.set(...)`) outside an import (`import a.b` binds `a`).
 */
function mayBeBound(text: string, start: number, end: number): boolean {
  let after = end;
  while (text.charCodeAt(after) === 32 || text.charCodeAt(after) === 9) after++;
  const next = text.charCodeAt(after);
  if (next === 58 /* : */ && text.charCodeAt(after + 1) === 61 /* = */) return true;
  if (next === 40 /* ( */ || next === 91 /* [ */) return false;
  // Back to the line's start, a bounded way: on a line longer than that the tree is asked.
  let lineStart = start;
  const limit = Math.max(0, start - MAX_DECORATOR_LOOKBACK);
  while (lineStart > limit && text.charCodeAt(lineStart - 1) !== 10 && text.charCodeAt(lineStart - 1) !== 13) lineStart--;
  if (lineStart > 0 && text.charCodeAt(lineStart - 1) !== 10 && text.charCodeAt(lineStart - 1) !== 13) return true;
  if (next === 46 /* . */ && !mayContinueImport(text, lineStart, start)) return false;
  while (text.charCodeAt(lineStart) === 32 || text.charCodeAt(lineStart) === 9) lineStart++;
  return text.charCodeAt(lineStart) !== 64 /* @ */;
}

/**
 * Whether the line from `lineStart` up to `start` can be part of an import statement: it spells
 * `import`, or the line before ends in a `\` that continues it (an import has no brackets to
 * continue in).
 */
function mayContinueImport(text: string, lineStart: number, start: number): boolean {
  if (text.slice(lineStart, start).includes("import")) return true;
  let before = lineStart - 1;
  if (text.charCodeAt(before) === 10 && text.charCodeAt(before - 1) === 13) before--;
  return before > 0 && text.charCodeAt(before - 1) === 92 /* \\ */;
}

/** How far back `mayBeBound` looks for the start of a line. */
const MAX_DECORATOR_LOOKBACK = 256;

/**
 * What a lookup of a name in one scope can cost, in steps of the search's loop: it searches the
 * scope's body for the name (a string search, some 64 characters for a step) and can land in each
 * nested body once. Summed over a file's lookups this is what keeps them linear: each name is
 * looked up once per scope, but a module of many functions can look up as many names.
 */
function lookupCost(body: OffsetRange, nested: readonly OffsetRange[]): number {
  return (body.end - body.start) / CHARACTERS_SEARCHED_PER_STEP + nested.length;
}

const CHARACTERS_SEARCHED_PER_STEP = 64;
const NO_BODIES: readonly OffsetRange[] = [];
const BINDING_STATEMENTS: ReadonlySet<string> = new Set(BINDING_TYPES);
/**
 * What can stand between a bound identifier and its binding statement: the unpacking patterns
 * `bindTargets` and `bindAssignment` look into, and an import's dotted or aliased name.
 */
const TARGET_PATTERNS: ReadonlySet<string> = new Set(["pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "list_splat_pattern", "parenthesized_expression", "expression_list", "dotted_name", "aliased_import"]);

/**
 * The binding statement an identifier is a target of, found by climbing only through target
 * patterns: an identifier anywhere else (an expression, a call's argument) binds nothing, and deep
 * expressions are not climbed.
 */
function bindingStatementAround(identifier: SyntaxNode): SyntaxNode | undefined {
  for (let node = identifier.parent; node; node = node.parent) {
    if (BINDING_STATEMENTS.has(node.type)) return node;
    if (!TARGET_PATTERNS.has(node.type)) return undefined;
  }
  return undefined;
}

/**
 * Every node of `BINDING_TYPES` in the tree, found from the keyword or operator each holds as a
 * child of its own (`import`, `for`, `global`, `nonlocal`, the `as` before a `with` or `except`
 * target, an assignment's `=`, or its `:` in `x: int` alone, an augmented assignment's operator,
 * `:=`): a walk of every node of a 50,000-line file (`root.descendantsOfType`) costs more than
 * parsing it. Each such token is anonymous, so the smallest named node around one is the node it
 * belongs to (around the same text in a string or a comment, the string or the comment). A
 * statement holding many of them (a deeply nested expression: each search from the statement
 * would go down its whole depth) is walked instead, and so is a tree with errors, where a token can
 * be missing (an empty node the text does not show) or kept apart from its statement.
 */
export function bindingNodes(tree: Tree, text: string, within?: OffsetRange, skipped: readonly OffsetRange[] = []): SyntaxNode[] {
  const root = tree.rootNode;
  // Nested statements are bound too here, in their own scopes: harmless, and a tree with errors is rare.
  if (root.hasError) return (within ? root.descendantForIndex(within.start, Math.max(within.start, within.end - 1)) : root).descendantsOfType(BINDING_TYPES);
  const candidates: { start: number; end: number; token: string }[] = [];
  for (const part of partsOutside(within ?? { start: 0, end: text.length }, skipped)) {
    // Searched in the part alone (a search of the whole text from the part's start would run on
    // to the next match however far, for each part), with one character on either side for the
    // patterns' look-arounds.
    const from = Math.max(0, part.start - 1);
    const slice = text.slice(from, part.end + 1);
    for (const pattern of [BINDING_KEYWORDS, BINDING_OPERATORS]) {
      for (const match of slice.matchAll(pattern)) {
        const start = from + match.index!;
        const end = start + match[0].length;
        if (start < part.start || end > part.end || (match[0] === ":" && !mayAnnotate(text, end))) continue;
        candidates.push({ start, end, token: match[0] });
      }
    }
  }
  // By the statement around each: a definition's own line and its body's statements are apart.
  candidates.sort((a, b) => a.start - b.start);
  const statements = statementsAt(tree, candidates);
  const byStatement = new Map<number, { statement: SyntaxNode; tokens: typeof candidates }>();
  candidates.forEach((candidate, i) => {
    const statement = statements[i];
    const entry = byStatement.get(statement.id);
    if (entry) entry.tokens.push(candidate);
    else byStatement.set(statement.id, { statement, tokens: [candidate] });
  });
  const found: SyntaxNode[] = [];
  for (const entry of byStatement.values()) {
    const statement = entry.statement;
    let tokens = entry.tokens;
    // An `=` or a `:` binds only as an expression statement's assignments' own (`a = b = f(x=1)`,
    // `x: int`); any other is a keyword argument's, a default's, an annotation of a parameter, a
    // dict's, a lambda's, a slice's or a block's, and each would be looked up natively (a module's
    // dict constants, `with DAG(...)` headers and task decorators hold hundreds).
    if (tokens.some((t) => t.token === "=" || t.token === ":")) {
      if (statement.type === "expression_statement") {
        for (let node: SyntaxNode | null = statement.namedChildren[0] ?? null; node?.type === "assignment"; node = node.childForFieldName("right")) found.push(node);
      }
      tokens = tokens.filter((t) => t.token !== "=" && t.token !== ":");
    }
    // `import`, `for`, `global` and `nonlocal` bind as the statement that begins with them.
    if (tokens.some((t) => KEYWORD_STATEMENTS.get(t.token)?.includes(statement.type))) {
      found.push(statement);
      tokens = tokens.filter((t) => !KEYWORD_STATEMENTS.has(t.token));
    }
    if (tokens.length > MAX_TOKENS_LOOKED_UP_PER_STATEMENT) {
      found.push(...statement.descendantsOfType(BINDING_TYPES));
      continue;
    }
    for (const { start, end, token } of tokens) {
      const node = statement.namedDescendantForIndex(start, end);
      if (token === "as") {
        const target = node.type === "as_pattern" ? node.childForFieldName("alias") : null;
        if (target?.type === "as_pattern_target") found.push(target);
      } else if (KEYWORD_STATEMENTS.get(token)?.includes(node.type) || (BINDING_OPERATOR_NODES.has(node.type) && !KEYWORD_STATEMENTS.has(token))) found.push(node);
    }
  }
  return found;
}

/** The parts of `range` outside `skipped` (in order, not overlapping). */
function partsOutside(range: OffsetRange, skipped: readonly OffsetRange[]): OffsetRange[] {
  const parts: OffsetRange[] = [];
  let start = range.start;
  for (const gap of skipped) {
    if (gap.end <= start || gap.start >= range.end) continue;
    if (gap.start > start) parts.push({ start, end: gap.start });
    start = Math.max(start, gap.end);
  }
  if (start < range.end) parts.push({ start, end: range.end });
  return parts;
}

/** Past this many keywords and operators in one statement, walking the statement costs less than a search for each. */
const MAX_TOKENS_LOOKED_UP_PER_STATEMENT = 8;
/** The binding nodes an operator of `BINDING_OPERATORS` belongs to. */
const BINDING_OPERATOR_NODES: ReadonlySet<string> = new Set(["assignment", "augmented_assignment", "named_expression"]);

/** The keywords a binding node holds, and the types of node each can be a binding one of. */
const KEYWORD_STATEMENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ["import", ["import_statement", "import_from_statement"]],
  ["for", ["for_statement"]],
  ["global", ["global_statement"]],
  ["nonlocal", ["nonlocal_statement"]],
]);
/** Those keywords and `as`, as words (a digit may come right before one: `[1for x in y]`). */
const BINDING_KEYWORDS = /(?<![A-Za-z_])(?:import|for|global|nonlocal|as)(?![A-Za-z0-9_])/g;
/**
 * `=`, `:=`, the augmented assignments' operators (`+=`, `**=`, `>>=`, ...) and `:`; not the `=` of
 * `==`, `<=`, `>=` or `!=`.
 */
const BINDING_OPERATORS = /(?<![=!<>])(?:(?:\*\*|\/\/|>>|<<|[-+*/%&|^@:])?=(?!=)|:(?!=))/g;

/**
 * Whether a `:` ending before `after` can be an annotation's in a tree without errors: its type
 * follows on its line (or after a `\`), where a block's `:` ends the line or a comment follows.
 */
function mayAnnotate(text: string, after: number): boolean {
  let next = after;
  while (text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9) next++;
  const code = text.charCodeAt(next);
  return next < text.length && code !== 10 && code !== 13 && code !== 35 /* # */;
}

function parametersOf(fn: SyntaxNode): Parameter[] {
  const list = fn.childForFieldName("parameters");
  if (!list) return [];
  const result: Parameter[] = [];
  let keywordOnly = false;
  for (const node of list.namedChildren) {
    switch (node.type) {
      case "identifier":
        result.push({ name: node.text, kind: keywordOnly ? "keyword-only" : "positional", node, nameNode: node });
        break;
      case "typed_parameter": {
        const inner = node.namedChildren[0];
        if (inner?.type === "identifier") result.push({ name: inner.text, kind: keywordOnly ? "keyword-only" : "positional", node, nameNode: inner });
        else if (inner?.type === "list_splat_pattern" || inner?.type === "dictionary_splat_pattern") pushSplat(inner, node);
        break;
      }
      case "default_parameter":
      case "typed_default_parameter": {
        const name = node.childForFieldName("name");
        if (name) result.push({ name: name.text, kind: keywordOnly ? "keyword-only" : "positional", node, nameNode: name, default: node.childForFieldName("value") ?? undefined });
        break;
      }
      case "list_splat_pattern":
        pushSplat(node, node);
        break;
      case "dictionary_splat_pattern":
        pushSplat(node, node);
        break;
      case "keyword_separator":
        keywordOnly = true;
        break;
    }
  }
  return result;

  function pushSplat(pattern: SyntaxNode, whole: SyntaxNode): void {
    const name = pattern.namedChildren[0];
    if (!name) return;
    const kind: ParameterKind = pattern.type === "list_splat_pattern" ? "var-positional" : "var-keyword";
    if (kind === "var-positional") keywordOnly = true;
    result.push({ name: name.text, kind, node: whole, nameNode: name });
  }
}
