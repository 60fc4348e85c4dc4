/**
 * The assets a task's `asset_state_store` holds. Airflow builds the store when the task starts from
 * the task's inlets and outlets (the task SDK's `AssetStateStoreAccessors`): each `Asset` (and
 * `Asset.ref(name=...)`) keyed by its name, each `Asset.ref(uri=...)` by its URI, an `AssetAlias`
 * inlet expanded to the assets it resolves to at run time, an `AssetAlias` outlet skipped.
 * Indexing the store with any other asset raises `KeyError`; its un-indexed `get` / `set` /
 * `delete` / `clear` need exactly one asset, else `ValueError`.
 *
 * Everything here answers "unknown" (undefined) as soon as the file does not tell for sure — a
 * computed list, an imported asset, an alias inlet, `default_args` that may carry `outlets`, lineage
 * changed after the task is built — so that rules built on it stay silent there.
 */
import { attributeCalls, captures, SyntaxNode } from "../syntax/parser";
import { mappingOf } from "./taskMapping";
import { analysis } from "../context";
import { FunctionInfo, SemanticModel, semanticModel } from "./model";
import { Binding } from "../python/scope";
import { callArguments, KeywordArgument, plainString, unparenthesize } from "../syntax/nodes";

/** How the store looks an asset up: `Asset` and `Asset.ref(name=)` by name, `Asset.ref(uri=)` by URI, in two separate tables. */
export interface AssetKey {
  by: "name" | "uri";
  value: string;
}

/** An asset written in the file. */
export interface AssetReference {
  /** The expression as written (`ORDERS`, `Asset(name="orders", uri="s3://...")`). */
  node: SyntaxNode;
  /** The lookup key, when the name (or URI) is a literal. */
  key?: AssetKey;
  /** The name the asset was assigned to, which identifies it even when its name is computed. */
  binding?: Binding;
}

/** One place that makes a function a task and gives it its inlets and outlets. */
export interface TaskDeclaration {
  /** The decorator expression (`task`, `task(outlets=[...])`) or the operator call (`PythonOperator(...)`, `PythonOperator.partial(...)`). */
  node: SyntaxNode;
  /** The keyword arguments of `node` when it is a call (a bare `@task` has none). */
  keywords: Map<string, KeywordArgument>;
  /** The concrete inlets (aliases excluded: a task with an alias inlet has no known declaration). */
  inlets: AssetReference[];
  /** The concrete outlets (alias outlets skipped, as Airflow does). */
  outlets: AssetReference[];
}

export type Sameness = "same" | "different" | "unknown";

const ASSET_CLASS = /^airflow\.(sdk|sdk\.definitions\.asset|datasets)\.(Asset|Dataset|Model)$/;
const ASSET_ALIAS_CLASS = /^airflow\.(sdk|sdk\.definitions\.asset|datasets)\.(AssetAlias|DatasetAlias)$/;
const LINEAGE_KEYWORDS = new Set(["inlets", "outlets"]);
/** Lineage changed after the task is built: `task.outlets = ...`, `op.add_outlets(...)`, `.override(outlets=...)`. */
const LINEAGE_ATTRIBUTES = `(attribute attribute: (identifier) @name (#match? @name "^(inlets|outlets|add_inlets|add_outlets)$")) @attribute`;
/** `default_args={"outlets": ...}` (on a DAG, a task group or an operator) gives every task below it those outlets. */
const LINEAGE_DICTIONARY_KEYS = `(pair key: (string) @key)`;

/** Per task, filled as tasks are asked about. */
const declarationsByTask = analysis("task lineage declarations", () => new Map<FunctionInfo, TaskDeclaration[] | undefined>());
/** Per asset call (by node id), filled as calls are asked about. */
const assetCallsById = analysis("asset calls", () => new Map<number, { key?: AssetKey } | "alias" | undefined>());
const lineageUnknown = analysis("lineage set outside task keywords", (context) => findsLineageChanges(context.get(semanticModel)));
const lineageOverrides = analysis("lineage overrides", (context) => findLineageOverrides(context.get(semanticModel)));

/**
 * The declarations of `fn`'s inlets and outlets: its `@task` decorator, or every operator call that
 * runs it as `python_callable`. Undefined when `fn` is not a task (an operator's `execute`, a
 * helper) or when any of its inlets or outlets cannot be told.
 */
export function taskDeclarations(model: SemanticModel, fn: FunctionInfo): TaskDeclaration[] | undefined {
  const known = model.context.get(declarationsByTask);
  if (!known.has(fn)) known.set(fn, findDeclarations(model, fn));
  return known.get(fn);
}

function findDeclarations(model: SemanticModel, fn: FunctionInfo): TaskDeclaration[] | undefined {
  if (fileChangesLineage(model)) return undefined;
  const declarations: TaskDeclaration[] = [];
  if (fn.task) {
    const call = fn.task.node.type === "call" ? fn.task.node : undefined;
    if (call && callArguments(call).hasSplat) return undefined;
    if (overridesLineage(model, fn)) return undefined;
    const declared = declaration(model, fn.task.node, fn.task.keywords);
    if (!declared) return undefined;
    declarations.push(declared);
  }
  for (const call of fn.callableOf) {
    if (call.args.hasSplat) return undefined;
    const declared = declaration(model, call.node, call.args.keywords);
    if (!declared) return undefined;
    declarations.push(declared);
  }
  // A mapped operator's expand(...) could map its lineage keywords too.
  const mapping = mappingOf(model, fn);
  if (mapping?.expansions.some((expand) => [...callArguments(expand).keywords.keys()].some((k) => LINEAGE_KEYWORDS.has(k)))) return undefined;
  return declarations.length > 0 ? declarations : undefined;
}

function declaration(model: SemanticModel, node: SyntaxNode, keywords: Map<string, KeywordArgument>): TaskDeclaration | undefined {
  if (keywords.has("default_args")) {
    const defaults = model.resolveValue(keywords.get("default_args")!.value);
    if (defaults.type !== "dictionary") return undefined;
  }
  const inlets = lineageList(model, keywords.get("inlets")?.value, "inlets");
  const outlets = lineageList(model, keywords.get("outlets")?.value, "outlets");
  return inlets && outlets ? { node, keywords, inlets, outlets } : undefined;
}

/**
 * The concrete assets of an `inlets=` / `outlets=` value: a list or tuple literal (or a name bound
 * once to one) of assets, a single asset, or `None`. Airflow turns any collection into a list and
 * wraps a single value.
 */
function lineageList(model: SemanticModel, value: SyntaxNode | undefined, keyword: "inlets" | "outlets"): AssetReference[] | undefined {
  if (!value) return [];
  let node = unparenthesize(value);
  for (let depth = 0; depth < 8 && node.type === "identifier"; depth++) {
    const binding = model.bindingOf(node);
    if (!binding || binding.kind !== "assign" || !binding.value) return undefined;
    const bound = unparenthesize(binding.value);
    // A name bound to an asset is one asset, kept as written so that its binding identifies it.
    if (bound.type !== "identifier" && bound.type !== "list" && bound.type !== "tuple") break;
    node = bound;
  }
  if (node.type === "none") return [];
  const elements = node.type === "list" || node.type === "tuple" ? node.namedChildren.filter((c) => c.type !== "comment") : [node];
  const assets: AssetReference[] = [];
  for (const element of elements) {
    const asset = assetReference(model, element);
    if (asset === "alias") {
      // An alias inlet stands for the assets it resolves to when the task starts; an alias outlet is skipped.
      if (keyword === "inlets") return undefined;
      continue;
    }
    if (!asset) return undefined;
    assets.push(asset);
  }
  return assets;
}

/**
 * What an expression is as an asset: an `Asset(...)` / `Asset.ref(...)` call, or a name bound once
 * (in this file) to one; `"alias"` for an `AssetAlias`; undefined for anything else.
 */
export function assetReference(model: SemanticModel, expression: SyntaxNode): AssetReference | "alias" | undefined {
  let node = unparenthesize(expression);
  let binding: Binding | undefined;
  for (let depth = 0; depth < 8 && node.type === "identifier"; depth++) {
    const bound = model.bindingOf(node);
    if (!bound || bound.kind !== "assign" || !bound.value) return undefined;
    binding = bound;
    node = unparenthesize(bound.value);
  }
  if (node.type !== "call") return undefined;
  const calls = model.context.get(assetCallsById);
  if (!calls.has(node.id)) calls.set(node.id, assetCall(model, node));
  const found = calls.get(node.id);
  return found === "alias" || found === undefined ? found : { node: expression, binding, key: found.key };
}

/** What an asset call is: its key (undefined when not literal) or an alias; undefined when the call makes no asset. */
function assetCall(model: SemanticModel, node: SyntaxNode): { key?: AssetKey } | "alias" | undefined {
  const callee = node.childForFieldName("function");
  const name = model.qualifiedName(callee);
  const args = callArguments(node);
  if (name && ASSET_ALIAS_CLASS.test(name)) return "alias";
  if (name && ASSET_CLASS.test(name)) {
    if (args.hasSplat) return {};
    const nameArgument = args.keywords.get("name")?.value ?? args.positional[0];
    const uriArgument = args.keywords.get("uri")?.value ?? args.positional[1];
    if (!nameArgument && !uriArgument) return undefined; // TypeError when the DAG is parsed
    // Without a name, the asset is named after its URI as written.
    const keyText = literal(model, nameArgument ?? uriArgument);
    return { key: keyText === undefined ? undefined : { by: "name", value: keyText } };
  }
  // Asset.ref(name=...) / Asset.ref(uri=...)
  if (callee?.type === "attribute" && callee.childForFieldName("attribute")?.text === "ref") {
    const owner = model.qualifiedName(callee.childForFieldName("object"));
    if (!owner || !ASSET_CLASS.test(owner) || args.hasSplat || args.positional.length > 0) return undefined;
    const by = args.keywords.has("name") ? "name" : args.keywords.has("uri") ? "uri" : undefined;
    if (!by || args.keywords.size !== 1) return undefined;
    const keyText = literal(model, args.keywords.get(by)!.value);
    return { key: keyText === undefined ? undefined : { by, value: keyText } };
  }
  return undefined;
}

/** A string literal's value, or of a name bound once to one; escapes make two spellings of one value differ, so they count as unknown. */
function literal(model: SemanticModel, node: SyntaxNode | undefined): string | undefined {
  if (!node) return undefined;
  const value = plainString(model.resolveValue(node));
  return value === undefined || value.includes("\\") ? undefined : value;
}

/** Whether two asset references open the same entry of the store. */
export function compareAssets(a: AssetReference, b: AssetReference): Sameness {
  if (a.binding && a.binding === b.binding) return "same";
  if (a.key && b.key) return a.key.by === b.key.by && a.key.value === b.key.value ? "same" : "different";
  return "unknown";
}

/** Whether the store of a task declared by `declaration` holds `asset`. */
export function storeHolds(declaration: TaskDeclaration, asset: AssetReference): Sameness {
  let result: Sameness = "different";
  for (const entry of storeEntries(declaration)) {
    const sameness = compareAssets(entry, asset);
    if (sameness === "same") return "same";
    if (sameness === "unknown") result = "unknown";
  }
  return result;
}

/** The assets the store holds, in Airflow's order (inlets, then outlets). */
export function storeEntries(declaration: TaskDeclaration): AssetReference[] {
  return [...declaration.inlets, ...declaration.outlets];
}

/**
 * How many distinct assets the store holds, as a range: assets whose names are not literal may
 * coincide with others. `min` counts the distinct literal keys (at least one when there is any
 * asset), `max` every asset not certainly equal to an earlier one.
 */
export function storeSize(declaration: TaskDeclaration): { min: number; max: number } {
  return distinctCount(storeEntries(declaration));
}

export function distinctCount(assets: readonly AssetReference[]): { min: number; max: number } {
  const distinct: AssetReference[] = [];
  for (const asset of assets) {
    if (!distinct.some((d) => compareAssets(d, asset) === "same")) distinct.push(asset);
  }
  const keys = new Set(distinct.filter((d) => d.key).map((d) => `${d.key!.by}:${d.key!.value}`));
  return { min: Math.max(keys.size, distinct.length > 0 ? 1 : 0), max: distinct.length };
}

/** The single asset of a list when all its entries are certainly the same asset. */
export function onlyAsset(assets: readonly AssetReference[]): AssetReference | undefined {
  if (assets.length === 0) return undefined;
  return assets.every((a) => compareAssets(assets[0], a) === "same") ? assets[0] : undefined;
}

/**
 * Whether something in the file may change a task's lineage beyond its own keywords: an
 * `inlets` / `outlets` key in a dictionary (default arguments of a DAG, task group or operator), or
 * `.inlets` / `.outlets` / `.add_outlets(...)` on a built task.
 */
function fileChangesLineage(model: SemanticModel): boolean {
  return model.context.get(lineageUnknown);
}

function findsLineageChanges(model: SemanticModel): boolean {
  // The text tells cheaply whether the (slower) queries can find anything.
  return (
    (/\.(add_)?(inlets|outlets)\b/.test(model.text) && captures(model.root, LINEAGE_ATTRIBUTES, "attribute").length > 0) ||
    (/["'](inlets|outlets)["']/.test(model.text) && captures(model.root, LINEAGE_DICTIONARY_KEYS, "key").some((key) => LINEAGE_KEYWORDS.has(plainString(key) ?? "")))
  );
}

/** `fn.override(outlets=...)` (or with a splat) gives that instance of the task other lineage. */
function overridesLineage(model: SemanticModel, fn: FunctionInfo): boolean {
  return model.context.get(lineageOverrides).has(fn);
}

function findLineageOverrides(model: SemanticModel): Set<FunctionInfo> {
  const overridden = new Set<FunctionInfo>();
  const calls = model.text.includes(".override") ? attributeCalls(model.tree, model.text, ["override"]) : [];
  for (const node of calls) {
    const object = node.childForFieldName("function")!.childForFieldName("object");
    const target = object?.type === "identifier" ? model.functionNamed(object.text, model.scopeOf(object)) : undefined;
    const args = callArguments(node);
    if (target && (args.hasSplat || [...args.keywords.keys()].some((k) => LINEAGE_KEYWORDS.has(k)))) overridden.add(target);
  }
  return overridden;
}

const KEYWORD_NAMES = `(keyword_argument name: (identifier) @name)`;

/**
 * The text that names `asset` at `at` (for a fix that writes it there): its expression as written,
 * when every name in it means the same at `at` as where it is written and is bound above `at`.
 * Undefined otherwise (a name local to the task function, shadowed, or bound further down).
 */
export function assetTextAt(model: SemanticModel, asset: AssetReference, at: SyntaxNode): string | undefined {
  const atScope = model.scopeOf(at);
  const keywordNames = new Set(captures(asset.node, KEYWORD_NAMES, "name").map((n) => n.id));
  const identifiers = asset.node.type === "identifier" ? [asset.node] : asset.node.descendantsOfType("identifier");
  for (const identifier of identifiers) {
    if (keywordNames.has(identifier.id)) continue;
    // lookup returns the binding list of the scope that owns the name, so identity means "the same name".
    const bindings = atScope.lookup(identifier.text);
    if (model.scopeOf(identifier).lookup(identifier.text) !== bindings) return undefined;
    // A decorator or an operator call is evaluated where it stands: the name must be bound above it.
    if (bindings?.some((b) => b.target.startIndex > at.startIndex)) return undefined;
  }
  return asset.node.text;
}
