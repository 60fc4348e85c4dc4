import { ensureImported, replaceNode } from "../fixes/edits";
import { attributeCalls, SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { SemanticModel } from "../airflow/model";
import { callArguments } from "../syntax/nodes";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

const UTCNOW = "datetime.datetime.utcnow";

/**
 * ## What it does
 * Checks a DAG file (a file that imports from `airflow`) for calls of `datetime.utcnow()`, however
 * `datetime` is imported (`from datetime import datetime`, `import datetime`, aliases).
 *
 * ## Why is this bad?
 * `datetime.utcnow()` returns a naive `datetime`: it carries no time zone, although it holds UTC.
 * Airflow works with aware datetimes: if one is compared with a `logical_date` or a `start_date`,
 * the comparison raises `TypeError: can't compare offset-naive and offset-aware datetimes` (only
 * then: a naive value that is never compared raises nothing). What is certain: `.timestamp()` reads
 * it as local time, and a watermark stored as its `.isoformat()` has no `+00:00` for the next reader
 * to rely on. It is deprecated since Python 3.12. Store
 * `datetime.now(tz=timezone.utc).isoformat()`.
 *
 * ## Example
 * ```python
 * from datetime import datetime
 *
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", datetime.utcnow().isoformat())
 * ```
 *
 * ## Use instead
 * ```python
 * from datetime import datetime, timezone
 *
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     asset_state_store[ORDERS].set("watermark", datetime.now(tz=timezone.utc).isoformat())
 * ```
 *
 * ## Fix safety
 * The fix writes `datetime.now(tz=timezone.utc)` and imports `timezone` in the file's own style
 * (`from datetime import ..., timezone`, `datetime.timezone` after `import datetime`). It is unsafe:
 * the value becomes aware, so comparisons with naive datetimes start raising `TypeError` and
 * `.isoformat()` gains `+00:00`, which changes what is stored and what readers parse. When the call
 * is immediately followed by `.replace(tzinfo=...)`, the result is the same value either way and the
 * fix is safe.
 */
export const AS206: Rule = {
  code: "AS206",
  name: "naive-utcnow",
  summary: "`datetime.utcnow()` in a DAG file: a naive timestamp (deprecated since Python 3.12)",
  defaultSeverity: "warning",
  category: "values",
  fix: "safe or unsafe",
  mayReport: ({ facts }) => facts.includes("utcnow") && facts.includes("airflow"),
  scope: "expression",
  check({ model, text, report, regions }) {
    if (!text.includes("utcnow") || !model.importsFrom("airflow")) return;
    // Candidates found from the text (of the regions, after an edit); only they have their callee resolved.
    const candidates = regions ? regions.flatMap((region) => attributeCalls(model.tree, text, ["utcnow"], region)) : attributeCalls(model.tree, text, ["utcnow"]);
    for (const node of candidates) {
      const call = model.callInfo(node);
      if (call.callee !== UTCNOW || call.args.positional.length > 0 || call.args.keywords.size > 0 || call.args.hasSplat) continue;
      const retagged = followedByTzinfoReplace(call.node);
      report({
        node: call.node,
        message: retagged
          ? "`datetime.utcnow()` is deprecated since Python 3.12 (a `DeprecationWarning` when it runs). `datetime.now(tz=timezone.utc)` gives the current UTC time as an aware datetime directly."
          : "`datetime.utcnow()` returns a naive datetime: it holds UTC but carries no time zone. If it is compared with Airflow's aware dates, the comparison raises `TypeError`; `.timestamp()` reads it as local time, and its `.isoformat()` has no `+00:00`. Deprecated since Python 3.12: use `datetime.now(tz=timezone.utc)`.",
        fix: fixFor(model, call.node, retagged),
      });
    }
  },
};

/** `datetime.utcnow().replace(tzinfo=...)`: the time zone is set either way, so the fix changes nothing. */
function followedByTzinfoReplace(call: SyntaxNode): boolean {
  const attribute = call.parent;
  if (attribute?.type !== "attribute" || attribute.childForFieldName("object")?.id !== call.id || attribute.childForFieldName("attribute")?.text !== "replace") return false;
  const outer = attribute.parent;
  return outer?.type === "call" && outer.childForFieldName("function")?.id === attribute.id && callArguments(outer).keywords.has("tzinfo");
}

function fixFor(model: SemanticModel, call: SyntaxNode, safe: boolean): Fix | undefined {
  const receiver = call.childForFieldName("function")?.childForFieldName("object");
  if (!receiver) return undefined;
  const timezone = ensureImported(model, "datetime", "timezone", call);
  const replacement = `${receiver.text}.now(tz=${timezone.reference}.utc)`;
  return {
    title: `Replace with ${codeSpan(replacement)}`,
    safe,
    kind: "quickfix",
    edits: [replaceNode(call, replacement), ...timezone.edits],
  };
}
