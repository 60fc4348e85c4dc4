import { replaceNode } from "../fixes/edits";
import { Rule } from "./rule";
import { AssetReference, assetReference, assetTextAt, compareAssets, onlyAsset, storeHolds, storeSize, taskDeclarations } from "../airflow/assets";
import { FunctionInfo, SemanticModel, StoreCall, writtenMethod } from "../airflow/model";
import { plainString } from "../syntax/nodes";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for `get`, `set`, `delete` or `clear` (or their async forms `aget`, `aset`, `adelete`,
 * `aclear`) called on the asset state store without indexing it
 * with an asset (`asset_state_store.set(...)` rather than `asset_state_store[ORDERS].set(...)`) in a
 * task that has no concrete inlet or outlet, or several. An asset that is both an inlet and an
 * outlet counts once; `AssetAlias` outlets do not count.
 *
 * The rule stays silent when the task's inlets or outlets cannot be read from the file (a computed
 * list, an imported asset, an `AssetAlias` inlet, `default_args` that set `outlets`), and for
 * class-based operators.
 *
 * ## Why is this bad?
 * The un-indexed calls are a shortcut for tasks with exactly one concrete inlet or outlet: the store
 * uses that asset. With none, or with several, it cannot tell which asset is meant and raises
 * `ValueError("Task has N concrete inlets and outlets ...")` at run time, on every try.
 *
 * ## Example
 * ```python
 * @task(inlets=[RAW_ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store.set("watermark", "2026-01-01T00:00:00+00:00")
 * ```
 *
 * ## Use instead
 * ```python
 * @task(inlets=[RAW_ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", "2026-01-01T00:00:00+00:00")
 * ```
 *
 * ## Fix safety
 * The fix indexes the store with an asset when one clearly fits: the asset under which the task
 * uses the same key through an indexed store (`asset_state_store[ORDERS].set("watermark", ...)`
 * next to an un-indexed `get("watermark")`); otherwise the task's only outlet when it writes through
 * the un-indexed store (`set`, `delete` or `clear`), or its only inlet when it only reads. Without
 * such an asset (no inlet or outlet at all, several outlets) no fix is offered. The fix is unsafe: the call no longer raises,
 * and if the chosen asset is not the one meant, the state is read from or written to another
 * asset's store.
 */
export const AS203: Rule = {
  code: "AS203",
  name: "ambiguous-asset-store",
  summary: "Asset store used without an asset in a task that has no concrete inlet or outlet, or several (ValueError at run time)",
  defaultSeverity: "error",
  category: "scope",
  fix: "unsafe",
  mayReport: ({ facts }) => facts.mentionsStore(["asset_state_store"]),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.store.kind !== "asset" || call.store.indexed || !call.function) continue;
      const declarations = taskDeclarations(model, call.function);
      if (!declarations) continue;
      const sizes = declarations.map(storeSize);
      const none = sizes.find((s) => s.max === 0);
      const several = sizes.find((s) => s.min >= 2);
      if (!none && !several) continue;
      const receiver = call.node.childForFieldName("function")!.childForFieldName("object")!;
      const method = writtenMethod(call);
      const shown = receiver.text.length <= 40 ? codeSpan(`${receiver.text}.${method}(...)`) : `${codeSpan(`${method}(...)`)} on the asset store`;
      report({
        node: call.node,
        message: none
          ? `${shown} raises \`ValueError\` at run time: this task has no concrete inlet or outlet. The store cannot tell which asset is meant; declare the asset in \`outlets=\` (or \`inlets=\`) and index the store with it.`
          : `${shown} raises \`ValueError\` at run time: this task has ${several!.min === several!.max ? several!.min : `at least ${several!.min}`} concrete inlets and outlets. The store cannot tell which one is meant; index it with the asset: ${codeSpan(`${receiver.text}[ASSET].${method}(...)`)}.`,
        fix: none ? undefined : indexFix(model, call, call.function),
      });
    }
  },
};

/**
 * Indexes the store with the asset the call evidently means, when there is one: the asset under
 * which the task reads or writes the same key elsewhere, else the task's only outlet when it writes
 * through the un-indexed store, or its only inlet when it only reads.
 */
function indexFix(model: SemanticModel, call: StoreCall, fn: FunctionInfo): Fix | undefined {
  const declarations = taskDeclarations(model, fn)!;
  const sameKey = assetOfKey(model, call, fn);
  let candidates: (AssetReference | undefined)[];
  let reason: string;
  if (sameKey && declarations.every((d) => storeHolds(d, sameKey.asset) === "same")) {
    candidates = [sameKey.asset];
    reason = `where the task keeps "${sameKey.key}"`;
  } else {
    const writes = model.storeCallsOf(fn).some((c) => c.store.kind === "asset" && !c.store.indexed && c.method !== "get");
    candidates = declarations.map((d) => onlyAsset(writes ? d.outlets : d.inlets));
    reason = `the task's only ${writes ? "outlet" : "inlet"}`;
  }
  const chosen = candidates[0];
  if (!chosen || candidates.some((c) => !c || compareAssets(chosen, c) !== "same")) return undefined;
  const assetText = textAtCall(model, candidates as AssetReference[], call);
  if (!assetText) return undefined;
  const store = call.store.node;
  return {
    title: `Index the store with ${codeSpan(assetText)} (${reason})`,
    safe: false,
    kind: "quickfix",
    edits: [replaceNode(store, `${store.text}[${assetText}]`)],
  };
}

/** The one asset under which the task uses the call's constant key through an indexed store (`store[ORDERS].set("watermark", ...)`). */
function assetOfKey(model: SemanticModel, call: StoreCall, fn: FunctionInfo): { asset: AssetReference; key: string } | undefined {
  const key = constantKey(model, call);
  if (key === undefined) return undefined;
  const assets: AssetReference[] = [];
  for (const other of model.storeCallsOf(fn)) {
    if (other.store.kind !== "asset" || !other.store.asset || constantKey(model, other) !== key) continue;
    const asset = assetReference(model, other.store.asset);
    if (!asset || asset === "alias") return undefined;
    assets.push(asset);
  }
  const asset = onlyAsset(assets);
  return asset ? { asset, key } : undefined;
}

function constantKey(model: SemanticModel, call: StoreCall): string | undefined {
  return call.key ? plainString(model.resolveValue(call.key)) : undefined;
}

/** How one of the (equal) candidates can be written at the call. */
function textAtCall(model: SemanticModel, candidates: AssetReference[], call: StoreCall): string | undefined {
  for (const candidate of candidates) {
    const text = assetTextAt(model, candidate, call.node);
    if (text !== undefined) return text;
  }
  return undefined;
}
