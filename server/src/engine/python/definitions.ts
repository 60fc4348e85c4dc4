/**
 * Where a file's function and class definitions are, as offsets and names, apart from the tree:
 * what the Python model's scopes are made of. A lint after an edit inside one function takes the
 * last lint's places over for the definitions the edit cannot have touched (those before the
 * edited function unchanged, those after it moved by the edit) and looks in the tree only for the
 * edited function, what it holds, and the definitions around it. Finding every definition of a
 * 20,000-line DAG in its tree cost more than half of such a lint; the nodes are found again only
 * for the definitions a rule looks at.
 */
import { analysis } from "../context";
import { definitions, definitionWithKeyword, SyntaxNode, Tree, walkedDefinitions } from "../syntax/parser";
import type { OffsetRange, TextChange } from "../types";

export interface DefinitionPlace {
  readonly kind: "function" | "class";
  /** The definition node's range (`def`, or `async def`, to the end of its body; decorators are outside it). */
  readonly start: number;
  readonly end: number;
  /** Where its `def` or `class` keyword starts: how its node is found again (`definitionNodeAt`). */
  readonly keyword: number;
  /** Its body's range, where its scope's names are visible. */
  readonly bodyStart: number;
  readonly bodyEnd: number;
  /** Undefined for a definition whose name is missing (a tree with errors). */
  readonly name: string | undefined;
}

/** The place of a definition node. */
export function placeOf(node: SyntaxNode): DefinitionPlace {
  const kind = node.type === "class_definition" ? "class" : "function";
  const body = node.childForFieldName("body");
  const start = node.startIndex;
  // The keyword is the node's first child, or its second after `async`.
  const keyword = kind === "function" && node.firstChild?.type === "async" ? node.child(1)!.startIndex : start;
  return { kind, start, end: node.endIndex, keyword, bodyStart: body?.startIndex ?? node.endIndex, bodyEnd: body?.endIndex ?? node.endIndex, name: node.childForFieldName("name")?.text };
}

/** The node of the definition at `place` in `tree` (the tree the place was found in, or carried into). */
export function definitionNodeAt(tree: Tree, text: string, place: DefinitionPlace): SyntaxNode {
  const node = definitionWithKeywordOf(tree, place);
  if (node) return node;
  // Not where the place says: a defect in carrying places over, which the tree still corrects.
  const found = definitions(tree, text).find((definition) => definition.startIndex === place.start);
  if (!found) throw new Error(`no definition starts at offset ${place.start}`);
  return found;
}

/**
 * The definitions of the last text a lint read, and the edit since, if any: inside one function,
 * whose definition (decorators included) was `oldRange` and is `newRange`, its end moved by `delta`.
 */
export interface KnownDefinitions {
  readonly places: readonly DefinitionPlace[];
  readonly edit?: { readonly oldRange: OffsetRange; readonly newRange: OffsetRange; readonly delta: number };
}

/** What the front end knows of the file's definitions before its tree is read; provided by `IncrementalLinter` for a lint after an edit. */
export const knownDefinitions = analysis<KnownDefinitions | undefined>("known definitions", () => undefined);

/** The places of the tree's definitions, and the nodes they were found from (by start). */
export interface FoundDefinitions {
  places: DefinitionPlace[];
  nodes: Map<number, SyntaxNode>;
}

/** Every definition of the tree (with `within`, those whose keyword lies in it), found in it. */
export function definitionsFound(tree: Tree, text: string, within?: OffsetRange): FoundDefinitions {
  const nodes = new Map<number, SyntaxNode>();
  const places: DefinitionPlace[] = [];
  const walked = walkedDefinitions(tree, text, within);
  if (walked) {
    for (const { node, kind, start, end, keyword, name, body } of walked) {
      nodes.set(start, node);
      places.push({ kind, start, end, keyword, bodyStart: body?.start ?? end, bodyEnd: body?.end ?? end, name: name && text.slice(name.start, name.end) });
    }
    return { places, nodes };
  }
  for (const node of definitions(tree, text, within)) {
    nodes.set(node.startIndex, node);
    places.push(placeOf(node));
  }
  return { places, nodes };
}

/**
 * The definitions of the text as `known` says they are. After an edit: the last places before the
 * edited function as they were, those after it moved by the edit; the edited function and what it
 * holds, and the definitions that hold it (whose ends moved), found in the tree. Undefined when the
 * places do not nest around the edited function as a tree's do (then every definition is found in the tree).
 */
export function knownDefinitionsIn(known: KnownDefinitions, tree: Tree, text: string): FoundDefinitions | undefined {
  if (!known.edit) return { places: [...known.places], nodes: new Map() };
  const { oldRange, newRange, delta } = known.edit;
  const inner = definitionsFound(tree, text, newRange);
  const places: DefinitionPlace[] = [];
  const nodes = inner.nodes;
  for (const place of known.places) {
    if (place.end <= oldRange.start) places.push(place);
    else if (place.start >= oldRange.end) places.push(withOffsets(place, (offset) => offset + delta));
    else if (place.start >= oldRange.start && place.end <= oldRange.end) continue;
    else if (place.start < oldRange.start && place.end >= oldRange.end) {
      // Around the edited function: its header is before the edit, its end after it.
      const node = definitionWithKeywordOf(tree, place);
      if (!node || node.endIndex < newRange.end) return undefined;
      nodes.set(node.startIndex, node);
      places.push(placeOf(node));
    } else return undefined;
  }
  places.push(...inner.places);
  return { places: places.sort((a, b) => a.start - b.start), nodes };
}

/**
 * The places after an edit that changed no code (inside a comment line, which stays where it was in
 * the tree): offsets before the edit as they were, those after it moved. Undefined when an offset
 * lies inside the edited text.
 */
export function placesMovedPast(places: readonly DefinitionPlace[], change: TextChange): DefinitionPlace[] | undefined {
  const delta = change.newEnd - change.oldEnd;
  const moved: DefinitionPlace[] = [];
  const inside = (offset: number) => offset > change.start && offset < change.oldEnd;
  const move = (offset: number) => (offset >= change.oldEnd ? offset + delta : offset);
  for (const place of places) {
    if (place.end <= change.start) {
      moved.push(place);
      continue;
    }
    if (inside(place.start) || inside(place.end) || inside(place.keyword) || inside(place.bodyStart) || inside(place.bodyEnd)) return undefined;
    moved.push(withOffsets(place, move));
  }
  return moved;
}

/** The definition in `tree` whose keyword is where `place` says, when it starts where the place does. */
function definitionWithKeywordOf(tree: Tree, place: DefinitionPlace): SyntaxNode | undefined {
  const node = definitionWithKeyword(tree.rootNode, place.keyword, place.kind === "class" ? "class" : "def");
  return node?.startIndex === place.start ? node : undefined;
}

/** The place with each of its offsets moved as `move` says. */
function withOffsets(place: DefinitionPlace, move: (offset: number) => number): DefinitionPlace {
  // Written out rather than spread: a 20,000-line DAG moves thousands of places on every keystroke.
  return { kind: place.kind, start: move(place.start), end: move(place.end), keyword: move(place.keyword), bodyStart: move(place.bodyStart), bodyEnd: move(place.bodyEnd), name: place.name };
}
