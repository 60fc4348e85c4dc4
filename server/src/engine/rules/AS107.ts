import { Rule } from "./rule";
import { valueParts } from "../airflow/valueKind";
import { writtenMethod } from "../airflow/model";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for NaN and Infinity given as the value of a task or asset state store's `set`, or inside
 * the list, tuple and dict literals the value is built from: `float("nan")`, `float("inf")`,
 * `float("-Infinity")` (any case), `math.nan`, `math.inf`, `-math.inf`, `numpy.nan`, `numpy.inf`,
 * `numpy.NINF` and their aliases, however they are imported, and names bound once to one of these.
 * The asset store's `aset` is checked like `set`. A number inside a tuple, or inside a dict with a
 * key that is not a string, is left to AS101: that container makes the `set` fail first.
 *
 * The search has a depth limit, so that no value takes long to examine: it looks 16 levels deep
 * into nested literals and `a if c else b` branches (a name bound to a container counts as a level
 * as well), and follows about 120 names bound to names. A value nested deeper is not examined, and
 * the rule says nothing about it.
 *
 * ## Why is this bad?
 * JSON has no NaN or Infinity. The worker serialises the value with pydantic, which writes them as
 * `null`, and what happens then depends on where the number is:
 * - the value itself (`set("mean", float("nan"))`) reaches Airflow as a `null` value, which it
 *   refuses (422, "value cannot be null"): the `set` fails when the task runs;
 * - a number nested in a list or dict (`{"best": -math.inf}`) is stored as `null` without any error:
 *   the number is lost, and the next reader gets `None`.
 *
 * Such values usually stand for "no data yet" (an empty batch, a missing metric): that case deserves
 * explicit handling rather than a stored placeholder.
 *
 * ## Example
 * ```python
 * @task
 * def score(task_state_store=None):
 *     scores = fetch_scores()
 *     task_state_store.set("mean", sum(scores) / len(scores) if scores else float("nan"))
 *     task_state_store.set("progress", {"rows": len(scores), "best": max(scores) if scores else -math.inf})
 * ```
 *
 * ## Use instead
 * ```python
 * @task
 * def score(task_state_store=None):
 *     scores = fetch_scores()
 *     if scores:
 *         task_state_store.set("mean", sum(scores) / len(scores))
 *         task_state_store.set("progress", {"rows": len(scores), "best": max(scores)})
 *     else:
 *         task_state_store.set("progress", {"rows": 0})
 * ```
 *
 * ## Fix safety
 * There is no fix: what should be stored in place of a missing number (nothing, a string marker, a
 * separate flag) is the author's decision.
 */
export const AS107: Rule = {
  code: "AS107",
  name: "non-finite-value",
  summary: "NaN or Infinity given to a state store's `set`: refused as the value, silently stored as `null` when nested",
  defaultSeverity: "error",
  category: "values",
  fix: "none",
  mayReport: ({ facts }) => facts.mentionsStore() && facts.includes("set"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.method !== "set" || !call.value) continue;
      const reportedVia = new Set<number>();
      for (const part of valueParts(model, call.value, (info) => info.kind === "non-finite")) {
        if (part.via) {
          if (reportedVia.has(part.via.id)) continue;
          reportedVia.add(part.via.id);
        }
        // Inside a tuple or a dict with a non-string key the value fails on that container (AS101).
        if (part.insideRefused) continue;
        const value = codeSpan(part.nonFinite ?? "NaN");
        const method = writtenMethod(call);
        const what = part.via
          ? `${codeSpan(part.via.text)} holds ${value} in a list or dict: it is stored as \`null\` without an error, and the number is lost.`
          : part.nested
            ? `${value} nested in this value is stored as \`null\` without an error: the number is lost.`
            : `${value} is sent to Airflow as \`null\`, which it refuses: this ${codeSpan(method)} fails when the task runs.`;
        report({
          node: part.via ?? part.node,
          message: `${what} Check the number with \`math.isfinite()\` and leave it out, or store a finite number instead.`,
        });
      }
    }
  },
};
