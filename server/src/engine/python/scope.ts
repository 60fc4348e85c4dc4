/**
 * Python name binding, simplified to what lint rules can rely on: module, class and function scopes;
 * assignments, parameters, imports, definitions and loop/with targets. A name with exactly one binding
 * in its scope can be followed to its value; anything assigned twice is treated as unknown.
 */
import { SyntaxNode } from "../syntax/parser";

export type BindingKind = "assign" | "parameter" | "import" | "function" | "class" | "other";

export interface Binding {
  name: string;
  kind: BindingKind;
  /** The identifier that is bound. */
  target: SyntaxNode;
  /** The assigned expression, or the parameter's default. */
  value?: SyntaxNode;
  /** For imports: the fully qualified name the local name stands for (`airflow.sdk.task`). */
  qualifiedName?: string;
  scope: Scope;
}

export type ScopeKind = "module" | "class" | "function";

/**
 * Where a scope's bindings come from. The model binds names on demand: the statements that can bind
 * one name are found from its spellings in the text, and every binding of the file only when
 * something lists a scope's bindings.
 */
export interface BindingSource {
  /** Makes the bindings of `name` complete in `scope`, or in every scope when it is undefined. */
  bindingsOf(name: string, scope?: Scope): void;
  /** Makes the bindings of `scope` itself complete. */
  bindingsOfScope(scope: Scope): void;
}

export class Scope {
  private readonly byName = new Map<string, Binding[]>();
  private definitionNode: SyntaxNode | (() => SyntaxNode);

  constructor(
    readonly kind: ScopeKind,
    /** The module, or the definition; or how to find the definition when it is first asked for (`python/definitions.ts`). */
    node: SyntaxNode | (() => SyntaxNode),
    readonly parent: Scope | undefined,
    /** UTF-16 offsets of the body the scope's names are visible in (the module: the whole file). */
    readonly bodyStart: number,
    readonly bodyEnd: number,
    private readonly source?: BindingSource,
  ) {
    this.definitionNode = node;
  }

  /** The module, or the function or class definition. */
  get node(): SyntaxNode {
    if (typeof this.definitionNode === "function") this.definitionNode = this.definitionNode();
    return this.definitionNode;
  }

  /** Every name bound in this scope, with its bindings. Listing them binds every statement of the scope first. */
  get bindings(): ReadonlyMap<string, Binding[]> {
    this.source?.bindingsOfScope(this);
    return this.byName;
  }

  /** The bindings of `name` in this scope itself (not the enclosing ones). */
  own(name: string): Binding[] | undefined {
    this.source?.bindingsOf(name, this);
    return this.byName.get(name);
  }

  contains(offset: number): boolean {
    return offset >= this.bodyStart && offset < this.bodyEnd;
  }

  /**
   * Adds a binding in its place: definitions and parameters first, then the bindings of statements in
   * the order of their targets in the text, however the statements were found.
   */
  add(binding: Omit<Binding, "scope">): Binding {
    return this.insert({ ...binding, scope: this });
  }

  /**
   * Adds a binding of this scope that comes after every binding of its name the scope holds: the
   * bindings of the last lint, in the order it listed them (`python/carriedBindings.ts`).
   */
  addInOrder(binding: Binding): void {
    const list = this.byName.get(binding.name);
    if (list) list.push(binding);
    else this.byName.set(binding.name, [binding]);
  }

  /** Adds the binding of the function or class whose scope is `defined`, defined in this scope. */
  addDefinition(name: string, kind: "function" | "class", defined: Scope): Binding {
    return this.insert(new DefinitionBinding(name, kind, this, defined));
  }

  private insert(binding: Binding): Binding {
    const list = this.byName.get(binding.name);
    if (!list) {
      this.byName.set(binding.name, [binding]);
      return binding;
    }
    let at = list.length;
    while (at > 0 && comesBefore(binding, list[at - 1])) at--;
    list.splice(at, 0, binding);
    return binding;
  }

  /** The bindings of `name` as seen from this scope, following Python's rule that class bodies do not enclose methods. */
  lookup(name: string): Binding[] | undefined {
    const own = this.own(name);
    if (own) return own;
    for (let scope = this.parent; scope; scope = scope.parent) {
      if (scope.kind === "class") continue;
      const found = scope.own(name);
      if (found) return found;
    }
    return undefined;
  }

  /** The single binding of `name`, or undefined when it is unbound or bound more than once. */
  unique(name: string): Binding | undefined {
    const bindings = this.lookup(name);
    return bindings && bindings.length === 1 ? bindings[0] : undefined;
  }
}

/**
 * The binding of a function or class, whose name node is found when something first reads it:
 * most definitions' names are never looked at in a lint.
 */
class DefinitionBinding implements Binding {
  private nameNode: SyntaxNode | undefined;

  constructor(
    readonly name: string,
    readonly kind: "function" | "class",
    readonly scope: Scope,
    private readonly defined: Scope,
  ) {}

  get target(): SyntaxNode {
    return (this.nameNode ??= this.defined.node.childForFieldName("name")!);
  }
}

const DEFINED_UP_FRONT: ReadonlySet<BindingKind> = new Set(["function", "class", "parameter"]);

/** The order of a scope's bindings of one name: definitions and parameters, then statements' targets by position. */
function comesBefore(a: Binding, b: Binding): boolean {
  const aFirst = DEFINED_UP_FRONT.has(a.kind);
  const bFirst = DEFINED_UP_FRONT.has(b.kind);
  if (aFirst !== bFirst) return aFirst;
  return !aFirst && a.target.startIndex < b.target.startIndex;
}
