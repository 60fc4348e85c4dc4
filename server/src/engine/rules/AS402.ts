import { addToKeywordList } from "../fixes/lists";
import { Rule } from "./rule";
import { assetTextAt } from "../airflow/assets";
import { SemanticModel } from "../airflow/model";
import { AssetHome, assetHome, laterCalls, variableFindings, VariableState } from "../airflow/variablesAndXcom";
import { jsonMode, storeAccess, storeCallFor } from "../fixes/storeRewrite";
import { Fix, TextEdit } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a watermark kept in an Airflow Variable: `Variable.get` and `Variable.set` of the same
 * key in one task body (a `@task` function, a `python_callable`, an operator's `execute`), with
 * nothing else in the file using the key, when the key looks like a watermark (it contains
 * `watermark`, `last_processed`, `processed_at`, `high_water`, `last_run`, `last_success` or
 * `last_sync`) or the task declares exactly one outlet asset. Each task and key is reported once, on
 * its first call, with the other calls as related locations; a key only ever set to a literal
 * constant is configuration and is left alone, as in AS401. It takes these keys over from AS401; a
 * job id kept for reconnecting is AS404's.
 *
 * ## Why is this bad?
 * A watermark says how far the data of an asset has been processed, across DAG runs. In a Variable it
 * is global and tied to nothing: any DAG or task that uses the same key overwrites it (a copied DAG, a
 * backfill, a test run against production Variables), and nothing shows which asset it describes.
 * `asset_state_store[ASSET]` keeps it with the asset itself, readable by every task that declares the
 * asset among its inlets or outlets, and records which task last wrote it.
 *
 * ## Example
 * From `examples/dags/variables_before.py`:
 * ```python
 * ORDERS = Asset(name="warehouse/orders", uri="s3://warehouse/orders")
 *
 *
 * @task(outlets=[ORDERS], retries=3)
 * def load_orders():
 *     warehouse = WarehouseClient()
 *     since = Variable.get("orders_last_processed_at", default_var="2026-01-01T00:00:00+00:00")
 *     warehouse.copy_orders_changed_since(since)
 *     Variable.set("orders_last_processed_at", datetime.now(tz=timezone.utc).isoformat())
 * ```
 *
 * ## Use instead
 * The rewrite's result, as in `examples/dags/variables_after.py`:
 * ```python
 * ORDERS = Asset(name="warehouse/orders", uri="s3://warehouse/orders")
 *
 *
 * @task(outlets=[ORDERS], retries=3)
 * def load_orders(asset_state_store=None):
 *     warehouse = WarehouseClient()
 *     since = asset_state_store[ORDERS].get("orders_last_processed_at", default="2026-01-01T00:00:00+00:00")
 *     warehouse.copy_orders_changed_since(since)
 *     asset_state_store[ORDERS].set("orders_last_processed_at", datetime.now(tz=timezone.utc).isoformat())
 * ```
 *
 * ## Fix safety
 * The rewrite moves every `Variable` call of the key in the task to `asset_state_store[ASSET]` in one
 * edit, where ASSET is the task's single outlet, else its single inlet, else — when the task declares
 * none — the only asset the file defines, which it adds to the task's `outlets=` (not when a DAG of
 * the file is scheduled on that asset). Calls are rewritten as AS401's are (`default_var=` becomes
 * `default=`, values stay strings unless the calls use JSON), and the store is reached through a new
 * `asset_state_store=None` parameter, or `asset_state_store = context["asset_state_store"]` at the top
 * of a body that takes `**context`. No rewrite is offered when no asset fits, as in an operator's
 * `execute`.
 *
 * It is an unsafe refactoring, never applied by `--fix` or fix-all: the asset's store starts empty,
 * so the first run after the change starts from the default instead of the Variable's current value
 * (copy it over first, through the REST API or the UI); other DAGs that read the Variable no longer
 * see it move; and an added outlet makes the task emit an event for the asset when it succeeds,
 * which starts the DAGs scheduled on it.
 */
export const AS402: Rule = {
  code: "AS402",
  name: "variable-as-watermark",
  summary: "A watermark kept in a Variable: global, any DAG can overwrite it",
  defaultSeverity: "warning",
  category: "state",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ facts }) => facts.includes("Variable") && facts.includes("get") && facts.includes("set"),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("Variable")) return;
    for (const state of variableFindings(context).states) {
      const home = assetHome(model, state);
      if (!home) continue;
      const key = state.key.text;
      const assetText = home.asset && assetTextAt(model, home.asset, state.calls[0].call.node);
      const where = assetText && assetText.length <= 40 ? codeSpan(`asset_state_store[${assetText}]`) : "the store of the asset it describes (`asset_state_store[ASSET]`, the asset among the task's outlets)";
      const message =
        home.reason === "watermark"
          ? `The watermark ${codeSpan(key)} is kept in a global Variable: any DAG or task using the same key overwrites it. Nothing ties it to the data it tracks; keep it in ${where}.`
          : `${codeSpan(key)} is kept in a global Variable: any DAG or task using the same key overwrites it. This task produces ${assetText ? codeSpan(assetText) : "one asset"}; keep it with the asset, in ${where}.`;
      const fix = assetText ? assetStoreFix(model, state, home, assetText) : undefined;
      report({ node: state.calls[0].call.node, message, fix, related: laterCalls(state) });
    }
  },
};

/** One edit for every call of the key (the key's one report carries it), plus the outlet it needs. */
function assetStoreFix(model: SemanticModel, state: VariableState, home: AssetHome, assetText: string): Fix | undefined {
  const json = jsonMode(state.calls);
  if (json === undefined) return undefined;
  const edits: TextEdit[] = [];
  if (home.addTo.length > 0) {
    // One more asset changes what un-indexed calls of the task's asset store resolve to.
    if (model.storeCalls.some((c) => c.function === state.task.fn && c.store.kind === "asset" && !c.store.indexed)) return undefined;
    for (const declaration of home.addTo) {
      const text = assetTextAt(model, home.asset!, declaration.node);
      const added = text === undefined ? undefined : addToKeywordList(model, declaration.node, declaration.keywords, "outlets", text);
      if (!added) return undefined;
      edits.push(...added);
    }
  }
  const access = storeAccess(model, state.task, "asset", state.calls[0].call.node);
  if (!access) return undefined;
  edits.push(...access.edits);
  const receiver = `${access.name}[${assetText}]`;
  for (const call of state.calls) {
    const edit = storeCallFor(model, call, receiver, json);
    if (!edit) return undefined;
    edits.push(edit);
  }
  const outlet = home.addTo.length > 0 ? ` (adding ${codeSpan(assetText)} to the task's outlets)` : "";
  return { title: `Keep ${codeSpan(state.key.text)} in ${codeSpan(receiver)}${outlet}`, safe: false, kind: "refactor.rewrite", edits };
}
