/**
 * The module scope's bindings carried over an edit that cannot change them. Binding every statement
 * of the module scope walks every import, constant and `with DAG(...)` block of the file: in a
 * 10,000-line file of operators that was a fifth of a lint after a keystroke in one task. An edit
 * inside one function's body (the incremental linter's "edited function") binds nothing in the
 * module scope (`global` and `nonlocal` are linted from scratch), so the module's bindings are the
 * last lint's, moved by the edit: kept as places (offsets and node types), and their nodes found in
 * the new tree only when something reads them.
 */
import { analysis } from "../context";
import type { SyntaxNode, Tree } from "../syntax/parser";
import type { OffsetRange } from "../types";
import type { Binding, BindingKind, Scope } from "./scope";

/** Where a node of a binding was: its range and its type, which find it again in another tree. */
export interface NodePlace {
  readonly start: number;
  readonly end: number;
  readonly type: string;
}

/** A binding of the module scope, without its nodes. */
export interface BindingPlace {
  readonly name: string;
  readonly kind: BindingKind;
  readonly qualifiedName?: string;
  readonly target: NodePlace;
  readonly value?: NodePlace;
}

/** The kinds of bindings that statements make; definitions are carried with the file's definitions (`python/definitions.ts`). */
const STATEMENT_KINDS: ReadonlySet<BindingKind> = new Set(["assign", "import", "other"]);

/** The last lint's module bindings, moved by the edit since; provided by `IncrementalLinter`, undefined otherwise. */
export const moduleBindingsLastTime = analysis<readonly BindingPlace[] | undefined>("module bindings of the last lint", () => undefined);

/** The places of a complete module scope's statement bindings, in the scope's order (by name, then as the scope lists them). */
export function bindingPlacesOf(module: Scope): BindingPlace[] {
  const places: BindingPlace[] = [];
  for (const bindings of module.bindings.values()) {
    for (const binding of bindings) {
      if (!STATEMENT_KINDS.has(binding.kind)) continue;
      places.push(binding instanceof CarriedBinding ? binding.place : placeOf(binding));
    }
  }
  return places;
}

function placeOf(binding: Binding): BindingPlace {
  const { name, kind, qualifiedName, target, value } = binding;
  return { name, kind, qualifiedName, target: nodePlace(target), value: value && nodePlace(value) };
}

function nodePlace(node: SyntaxNode): NodePlace {
  return { start: node.startIndex, end: node.endIndex, type: node.type };
}

/**
 * `places` after an edit that replaced `edited` (the last text's offsets) and moved what followed
 * it by `delta`; undefined when a place lies in what was edited, which then cannot be carried.
 */
export function placesAfterEdit(places: readonly BindingPlace[], edited: OffsetRange, delta: number): BindingPlace[] | undefined {
  const moved: BindingPlace[] = [];
  const outside = (place: NodePlace) => place.end <= edited.start || place.start >= edited.end;
  const move = (place: NodePlace): NodePlace => (delta !== 0 && place.start >= edited.end ? { start: place.start + delta, end: place.end + delta, type: place.type } : place);
  for (const place of places) {
    if (!outside(place.target) || (place.value && !outside(place.value))) return undefined;
    const target = move(place.target);
    const value = place.value && move(place.value);
    moved.push(target === place.target && value === place.value ? place : { ...place, target, value });
  }
  return moved;
}

/** A binding carried from the last lint: its nodes are found in `tree` when first read. */
export class CarriedBinding implements Binding {
  private targetNode: SyntaxNode | undefined;
  private valueNode: SyntaxNode | undefined;

  constructor(
    readonly place: BindingPlace,
    readonly scope: Scope,
    private readonly tree: Tree,
  ) {}

  get name(): string {
    return this.place.name;
  }

  get kind(): BindingKind {
    return this.place.kind;
  }

  get qualifiedName(): string | undefined {
    return this.place.qualifiedName;
  }

  get target(): SyntaxNode {
    return (this.targetNode ??= nodeAt(this.tree, this.place.target));
  }

  get value(): SyntaxNode | undefined {
    const place = this.place.value;
    return place && (this.valueNode ??= nodeAt(this.tree, place));
  }
}

/**
 * The node of `tree` at `place`: the smallest named node spanning its range, or the nearest node
 * around it of its type and range (a node whose only child spans all of it, as an expression
 * statement spans its call, is found below the one meant).
 */
function nodeAt(tree: Tree, place: NodePlace): SyntaxNode {
  for (let node: SyntaxNode | null = tree.rootNode.namedDescendantForIndex(place.start, place.end); node; node = node.parent) {
    if (node.startIndex !== place.start || node.endIndex !== place.end) break;
    if (node.type === place.type) return node;
  }
  throw new Error(`no ${place.type} node spans offsets ${place.start}–${place.end}: the module bindings were carried over an edit that changed them`);
}
