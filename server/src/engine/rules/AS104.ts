import { removeArgument } from "../fixes/edits";
import { Rule } from "./rule";
import { writtenMethod } from "../airflow/model";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a `retention=` argument given to an asset state store's `set` or async `aset`, whether
 * the store is indexed by an asset (`asset_state_store[ORDERS].set(...)`) or not
 * (`asset_state_store.set(...)`).
 *
 * ## Why is this bad?
 * The asset state store has no expiry: its entries live across all DAG runs until they are deleted,
 * and its `set(key, value)` has no `retention` parameter. Passing one raises `TypeError` at run time,
 * whatever its value (`None` included), so the value is never stored.
 *
 * ## Example
 * ```python
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", "2026-01-01", retention=timedelta(days=7))
 * ```
 *
 * ## Use instead
 * ```python
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", "2026-01-01")
 * ```
 * If the value should expire, it is per-run state: keep it in `task_state_store`, whose `set` takes
 * `retention`, or delete the asset key explicitly when it is no longer needed.
 *
 * ## Fix safety
 * The fix removes the argument, with its comma (and its line and comment when it stands on a line of
 * its own). It is safe: the original call always raises `TypeError`, so nothing was ever stored
 * with an expiry, and the asset store has no expiry to ask for. After the fix the value is kept until
 * it is deleted, which is the only lifetime an asset store entry has. If the key should expire, it
 * belongs in the task state store instead; that is the author's call, not the fix's.
 */
export const AS104: Rule = {
  code: "AS104",
  name: "asset-store-retention",
  summary: "`retention` given to the asset state store, which has no expiry (TypeError at run time)",
  defaultSeverity: "error",
  category: "values",
  fix: "safe",
  mayReport: ({ facts }) => facts.mentionsStore(["asset_state_store"]) && facts.includes("set") && facts.includes("retention"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.method !== "set" || call.store.kind !== "asset") continue;
      const retention = call.args.keywords.get("retention");
      if (!retention) continue;
      report({
        node: retention.node,
        message:
          `The asset state store has no expiry: ${codeSpan(writtenMethod(call))} takes no \`retention\` and raises \`TypeError\` at run time. ` +
          "Drop the argument (the value is kept until deleted), or use `task_state_store` if it should expire.",
        fix: {
          title: "Remove `retention=` (the value is then kept until deleted)",
          safe: true,
          kind: "quickfix",
          edits: [removeArgument(retention.node)],
        },
      });
    }
  },
};
