import { ensureImported, replaceNode } from "../fixes/edits";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { capitalize } from "./messageText";
import { SemanticModel } from "../airflow/model";
import { isNumberLiteral, plainString, stringLiteral, unparenthesize } from "../syntax/nodes";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for a `retention` given to a task state store's `set` that is a number or a string: an
 * `int`, `float` or `str` literal (negative numbers and constant arithmetic included), or a name
 * bound once to one, at module level or in the same function. Arithmetic and names bound to names
 * are followed 16 levels deep; a value built deeper than that is not examined, and the rule says
 * nothing about it.
 *
 * ## Why is this bad?
 * `retention` takes a `timedelta`, `NEVER_EXPIRE` or `None`. The store adds it to the current time to
 * compute the key's expiry, so a number or a string raises `TypeError` at run time and the task fails
 * on the line that was meant to record its progress. A bare number does not say its unit either.
 *
 * ## Example
 * ```python
 * @task
 * def load(task_state_store=None):
 *     task_state_store.set("cursor", 42, retention=7)
 * ```
 *
 * ## Use instead
 * ```python
 * from datetime import timedelta
 *
 *
 * @task
 * def load(task_state_store=None):
 *     task_state_store.set("cursor", 42, retention=timedelta(days=7))
 * ```
 *
 * ## Fix safety
 * The fix wraps the number in `timedelta(...)` and imports `timedelta` in the file's own style
 * (`from datetime import ..., timedelta`, `datetime.timedelta` after `import datetime`,
 * `dt.timedelta` after `import datetime as dt`). It is unsafe because the unit is a guess, stated in
 * the fix's title: a name that says its unit is followed (`RETENTION_SECONDS` → `seconds=`,
 * `ttl_hours` → `hours=`), a whole multiple of 3600 is read as seconds (`86400`), and any other single
 * number is read as days, like `[state_store] default_retention_days`. A name keeps its name
 * (`timedelta(days=RETENTION_DAYS)`), a name bound to an integer string is converted with `int(...)`.
 * `0` becomes `NEVER_EXPIRE`, because `0` means "never expire" in `default_retention_days`, while
 * `timedelta(days=0)` makes the entry due for cleanup at once: `get` still reads it (it does not
 * filter on expiry) until `airflow state-store clean` deletes it, so whether it survives depends on
 * when the cleanup runs. No fix is offered for negative numbers,
 * arithmetic whose unit nothing states (`7 * 24`), or strings that are not plain integers (`"7d"`).
 */
export const AS103: Rule = {
  code: "AS103",
  name: "retention-not-timedelta",
  summary: "`retention` that is a number or a string, not a `timedelta` (TypeError at run time)",
  defaultSeverity: "error",
  category: "values",
  fix: "unsafe",
  mayReport: ({ facts }) => facts.mentionsStore(["task_state_store"]) && facts.includes("set") && facts.includes("retention"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.method !== "set" || call.store.kind !== "task") continue;
      const retention = call.args.keywords.get("retention");
      if (!retention) continue;
      const constant = constantOf(model, retention.value);
      if (!constant) continue;
      const fix = fixFor(model, retention.value, constant, call.node);
      const advice = fix
        ? `Use ${codeSpan(`retention=${fix.replacement}`)}${constant.value === 0 ? " to keep the key forever" : ""}.`
        : constant.value !== undefined && constant.value < 0
          ? "Pass a positive `timedelta`, or `NEVER_EXPIRE` to keep the key forever."
          : "Pass a `timedelta`, e.g. `timedelta(days=7)`.";
      report({
        node: retention.node,
        message: `${capitalize(describe(retention.value, constant))} is not a \`timedelta\`: this \`set\` raises \`TypeError\` when the task runs. \`retention\` takes a \`timedelta\`, \`NEVER_EXPIRE\` or \`None\`. ${advice}`,
        fix: fix?.fix,
      });
    }
  },
};

interface Constant {
  kind: "number" | "string";
  /** The expression the value resolves to (a literal, or arithmetic on literals). */
  node: SyntaxNode;
  /** The numeric value: of the number, or of a string holding a plain integer. */
  value?: number;
  /** Whether `node` is one number literal (not arithmetic), the only form whose unit is guessed as days. */
  single: boolean;
}

/** What a `retention` value certainly is when it is a number or a string; undefined for anything else. */
function constantOf(model: SemanticModel, value: SyntaxNode): Constant | undefined {
  const resolved = model.resolveValue(value);
  const literal = stringLiteral(resolved);
  if (literal) {
    const text = plainString(resolved);
    const integer = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : undefined;
    return { kind: "string", node: resolved, value: integer, single: integer !== undefined };
  }
  const number = numericValue(model, resolved);
  if (number === undefined) return undefined;
  return { kind: "number", node: resolved, value: number, single: isNumberLiteral(resolved) };
}

/** The value of a number literal, or of arithmetic on numbers and names bound to them; undefined otherwise. */
function numericValue(model: SemanticModel, node: SyntaxNode, depth = 0): number | undefined {
  if (depth > 16) return undefined; // names bound to each other in a cycle
  const current = unparenthesize(node);
  switch (current.type) {
    case "integer":
    case "float": {
      // Complex literals (`7j`) give NaN and are left alone.
      const value = Number(current.text.replace(/_/g, ""));
      return Number.isFinite(value) ? value : undefined;
    }
    case "identifier": {
      const resolved = model.resolveValue(current);
      return resolved.id === current.id ? undefined : numericValue(model, resolved, depth + 1);
    }
    case "unary_operator": {
      const operand = numericValue(model, current.childForFieldName("argument")!, depth + 1);
      const operator = current.childForFieldName("operator")?.text;
      if (operand === undefined) return undefined;
      return operator === "-" ? -operand : operator === "+" ? operand : undefined;
    }
    case "binary_operator": {
      const left = numericValue(model, current.childForFieldName("left")!, depth + 1);
      const right = numericValue(model, current.childForFieldName("right")!, depth + 1);
      if (left === undefined || right === undefined) return undefined;
      switch (current.childForFieldName("operator")?.text) {
        case "+":
          return left + right;
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          return right === 0 ? undefined : left / right;
        case "//":
          return right === 0 ? undefined : Math.floor(left / right);
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

/** "the number `7`", or "`RETENTION_DAYS`, the number `7`," when the value is reached through a name. */
function describe(value: SyntaxNode, constant: Constant): string {
  const written = unparenthesize(value);
  const text = constant.node.text.length > 40 ? `${constant.node.text.slice(0, 37)}...` : constant.node.text;
  const what = `the ${constant.kind} ${codeSpan(text)}`;
  return written.type === "identifier" ? `${codeSpan(written.text)}, ${what},` : what;
}

type Unit = "weeks" | "days" | "hours" | "minutes" | "seconds" | "milliseconds";

const UNIT_WORDS: Record<string, Unit> = {
  weeks: "weeks",
  week: "weeks",
  days: "days",
  day: "days",
  hours: "hours",
  hour: "hours",
  hrs: "hours",
  minutes: "minutes",
  minute: "minutes",
  mins: "minutes",
  seconds: "seconds",
  second: "seconds",
  secs: "seconds",
  sec: "seconds",
  milliseconds: "milliseconds",
  millis: "milliseconds",
  ms: "milliseconds",
};

/** The unit a name states (`RETENTION_SECONDS`, `ttl_hours`, `retentionDays`); undefined when none or several. */
function unitFromName(name: string): Unit | undefined {
  const words = name.split(/_+|(?<=[a-z0-9])(?=[A-Z])/).map((w) => w.toLowerCase());
  const units = new Set(words.map((w) => UNIT_WORDS[w]).filter((u): u is Unit => u !== undefined));
  return units.size === 1 ? [...units][0] : undefined;
}

/** The fix and the replacement text it writes for `retention`'s value, when a unit can be named. */
function fixFor(model: SemanticModel, value: SyntaxNode, constant: Constant, call: SyntaxNode): { fix: Fix; replacement: string } | undefined {
  if (constant.value === undefined || constant.value < 0) return undefined;
  const written = unparenthesize(value);
  const name = written.type === "identifier" ? written.text : undefined;
  if (constant.value === 0) {
    const imported = ensureImported(model, "airflow.sdk", "NEVER_EXPIRE", call);
    return {
      replacement: imported.reference,
      fix: {
        title: `Replace with ${codeSpan(`retention=${imported.reference}`)} (reads 0 as "never expire", as in \`default_retention_days\`)`,
        safe: false,
        kind: "quickfix",
        edits: [replaceNode(value, imported.reference), ...imported.edits],
      },
    };
  }
  const named = name ? unitFromName(name) : undefined;
  const unit = named ?? (Number.isInteger(constant.value) && constant.value % 3600 === 0 ? "seconds" : constant.single ? "days" : undefined);
  if (!unit) return undefined;
  // A name stays, so later edits of the constant still apply; a string bound to a name is converted.
  const amount = name ? (constant.kind === "string" ? `int(${name})` : name) : constant.kind === "string" ? String(constant.value) : written.text;
  const imported = ensureImported(model, "datetime", "timedelta", call);
  const replacement = `${imported.reference}(${unit}=${amount})`;
  const reading = named ? `reads ${name} as ${unit}, from its name` : `reads ${name ?? amount} as ${unit}`;
  return {
    replacement,
    fix: { title: `Replace with ${codeSpan(`retention=${replacement}`)} (${reading})`, safe: false, kind: "quickfix", edits: [replaceNode(value, replacement), ...imported.edits] },
  };
}
