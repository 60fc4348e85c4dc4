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

export class Scope {
  readonly bindings = new Map<string, Binding[]>();

  constructor(
    readonly kind: ScopeKind,
    readonly node: SyntaxNode,
    readonly parent: Scope | undefined,
    /** UTF-16 offsets of the body the scope's names are visible in (the module: the whole file). */
    readonly bodyStart: number,
    readonly bodyEnd: number,
  ) {}

  contains(offset: number): boolean {
    return offset >= this.bodyStart && offset < this.bodyEnd;
  }

  add(binding: Omit<Binding, "scope">): void {
    const list = this.bindings.get(binding.name);
    const full = { ...binding, scope: this };
    if (list) list.push(full);
    else this.bindings.set(binding.name, [full]);
  }

  /** The bindings of `name` as seen from this scope, following Python's rule that class bodies do not enclose methods. */
  lookup(name: string): Binding[] | undefined {
    const own = this.bindings.get(name);
    if (own) return own;
    for (let scope = this.parent; scope; scope = scope.parent) {
      if (scope.kind === "class") continue;
      const found = scope.bindings.get(name);
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
