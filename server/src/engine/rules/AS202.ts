import { addToKeywordList } from "../fixes/lists";
import { captures, subscripts, SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { AssetReference, assetReference, assetTextAt, storeEntries, storeHolds, TaskDeclaration, taskDeclarations } from "../airflow/assets";
import { FunctionInfo, SemanticModel } from "../airflow/model";
import { Fix, OffsetRange, TextEdit } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for an asset state store indexed with an asset that is not among the task's concrete
 * inlets or outlets: `asset_state_store[ORDERS]` in a task declared with `outlets=[EVENTS]`, or
 * with no inlets or outlets at all. Assets are matched by the name Airflow looks them up by, through
 * module-level names (`ORDERS = Asset(...)`) and inline `Asset(name=..., uri=...)` calls, in
 * `@task(...)` decorators and in the `PythonOperator` calls that run a function as `python_callable`.
 *
 * The rule stays silent when the task's inlets or outlets cannot be read from the file: a computed
 * list, an imported asset, an `AssetAlias` inlet (resolved when the task starts), `default_args`
 * that set `outlets`, or a class-based operator's `execute`.
 *
 * ## Why is this bad?
 * Airflow builds the task's `asset_state_store` from its inlets and outlets when the task starts,
 * keyed by asset name (`AssetAlias` outlets are skipped). Indexing it with any other asset raises
 * `KeyError("... is not in this task's inlets or outlets")`, so the task fails on the line that
 * reads or records the asset's state, on every try.
 *
 * ## Example
 * ```python
 * ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")
 *
 *
 * @task
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", "2026-01-01T00:00:00+00:00")
 * ```
 *
 * ## Use instead
 * ```python
 * ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")
 *
 *
 * @task(outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", "2026-01-01T00:00:00+00:00")
 * ```
 *
 * ## Fix safety
 * The fix adds the asset to the task's `outlets=` — or to its `inlets=` when the task only reads
 * the asset's store (every use of `asset_state_store[X]` is a `get`) — creating the keyword when it
 * is missing (`@task` becomes `@task(outlets=[X])`) and appending to a list or tuple written in
 * place. It is not offered when the lineage is a list shared through a name, when the asset's name
 * is not visible at the decorator, or when the task also calls the store without an index (one more
 * asset would make those calls raise `ValueError`).
 *
 * Adding an outlet is unsafe: when the task succeeds Airflow emits an event for the asset, so DAGs
 * scheduled on it start running. Adding an inlet only changes lineage and is safe, unless the task
 * hands `asset_state_store` on un-indexed (to a helper, or through `**context`), where one more
 * asset could make an un-indexed call raise `ValueError`.
 */
export const AS202: Rule = {
  code: "AS202",
  name: "asset-not-in-task-lineage",
  summary: "Asset store indexed with an asset that is not among the task's inlets or outlets (KeyError at run time)",
  defaultSeverity: "error",
  category: "scope",
  fix: "safe or unsafe",
  mayReport: ({ facts }) => facts.mentionsStore(["asset_state_store"]),
  scope: "store use",
  check({ model, text, report, regions }) {
    if (!text.includes("asset_state_store")) return;
    // Every subscript, in document order.
    for (const subscript of subscriptsWithin(model, regions)) {
      const store = model.storeReference(subscript);
      if (store?.kind !== "asset" || !store.indexed || !store.asset || store.node.id !== subscript.id) continue;
      const fn = model.functionOf(subscript);
      const declarations = fn && taskDeclarations(model, fn);
      if (!fn || !declarations) continue;
      const asset = assetReference(model, store.asset);
      if (!asset || asset === "alias") continue;
      const verdicts = declarations.map((d) => storeHolds(d, asset));
      if (verdicts.includes("unknown") || !verdicts.includes("different")) continue;
      const missing = declarations.filter((_, i) => verdicts[i] === "different");
      const named = store.asset.text.length <= 40 ? codeSpan(store.asset.text) : "this asset";
      const declaresNone = missing.every((d) => storeEntries(d).length === 0);
      report({
        node: subscript,
        message:
          `Indexing the asset store with ${named} raises \`KeyError\` at run time: ` +
          (declaresNone ? "this task has no concrete inlet or outlet. " : "it is not an inlet or outlet of this task. ") +
          "The store holds only the task's inlets and outlets: add it to the task's `outlets=` (or `inlets=` if the task only reads it).",
        fix: addAssetFix(model, fn, subscript, store.asset, asset, missing),
      });
    }
  },
};

const STORE_PARAMETER = "asset_state_store";

/** The subscripts of the file, or of the regions. */
function subscriptsWithin(model: SemanticModel, regions: readonly OffsetRange[] | undefined): SyntaxNode[] {
  if (!regions) return subscripts(model.tree, model.text);
  return regions.flatMap((region) => subscripts(model.tree, model.text, region));
}

function addAssetFix(model: SemanticModel, fn: FunctionInfo, subscript: SyntaxNode, index: SyntaxNode, asset: AssetReference, missing: TaskDeclaration[]): Fix | undefined {
  // One more asset changes what un-indexed calls of this task resolve to (or makes them raise).
  if (model.storeCallsOf(fn).some((c) => c.store.kind === "asset" && !c.store.indexed)) return undefined;
  const keyword = onlyReads(model, fn, subscript, index) ? "inlets" : "outlets";
  const edits: TextEdit[] = [];
  let assetText: string | undefined;
  for (const declaration of missing) {
    assetText = assetTextAt(model, asset, declaration.node);
    const added = assetText === undefined ? undefined : addToLineage(model, declaration, keyword, assetText);
    if (!added) return undefined;
    edits.push(...added);
  }
  if (assetText === undefined) return undefined;
  return {
    title: `Add ${codeSpan(assetText)} to the task's ${codeSpan(`${keyword}=`)}`,
    safe: keyword === "inlets" && storeAlwaysIndexed(model, fn),
    kind: "quickfix",
    edits,
  };
}

/**
 * Whether the accessor `asset_state_store[X]` is only read: it is the receiver of one `get`, or it is
 * assigned to a name whose every use is the receiver of a `get`.
 */
function onlyReads(model: SemanticModel, fn: FunctionInfo, subscript: SyntaxNode, index: SyntaxNode): boolean {
  // A name bound to the store in the task is seen only by the task and the functions nested in it.
  const calls = model.storeCallsWithin([{ start: fn.node.startIndex, end: fn.node.endIndex }]).filter((c) => c.store.asset?.id === index.id);
  if (calls.length === 0 || calls.some((c) => c.method !== "get")) return false;
  const parent = subscript.parent;
  if (parent?.type === "attribute") return calls.length === 1 && calls[0].store.node.id === subscript.id;
  if (parent?.type !== "assignment" || parent.childForFieldName("right")?.id !== subscript.id) return false;
  const target = parent.childForFieldName("left");
  const binding = target?.type === "identifier" ? model.bindingOf(target) : undefined;
  if (!target || !binding) return false;
  const uses = captures(fn.node, "(identifier) @name", "name").filter((id) => id.text === target.text && id.id !== target.id && model.bindingOf(id) === binding);
  return uses.length === calls.length;
}

/** Whether every use of the `asset_state_store` parameter in the task is indexed, so no un-indexed call can hide in a helper. */
function storeAlwaysIndexed(model: SemanticModel, fn: FunctionInfo): boolean {
  if (fn.parameters.some((p) => p.kind === "var-keyword")) return false;
  const body = fn.node.childForFieldName("body");
  if (!body) return false;
  const indexed = new Set(captures(body, `(subscript value: (identifier) @store (#eq? @store "${STORE_PARAMETER}"))`, "store").map((n) => n.id));
  return captures(body, `((identifier) @name (#eq? @name "${STORE_PARAMETER}"))`, "name").every((n) => indexed.has(n.id));
}

/** Edits adding `assetText` to the declaration's `inlets=` / `outlets=`, or undefined when the list cannot be extended in place. */
function addToLineage(model: SemanticModel, declaration: TaskDeclaration, keyword: string, assetText: string): TextEdit[] | undefined {
  return addToKeywordList(model, declaration.node, declaration.keywords, keyword, assetText);
}
