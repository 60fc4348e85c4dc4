import { replaceNode } from "../fixes/edits";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { mentionsStore } from "./textGates";
import { SemanticModel } from "../airflow/model";
import { classDecorators, isNonJson, NonJsonKind, ValuePart, valueParts } from "../airflow/valueKind";
import { Fix } from "../types";

interface KindText {
  /** The value as a noun phrase, lower-case: "a `datetime`". */
  noun: string;
  /** What to store instead, as an imperative sentence without the final period. */
  advice: string;
}

const KINDS: Record<Exclude<NonJsonKind, "instance">, KindText> = {
  datetime: { noun: "a `datetime`", advice: "Store its `.isoformat()` string and parse it back with `datetime.fromisoformat()` after `get`" },
  date: { noun: "a `date`", advice: "Store its `.isoformat()` string and parse it back with `date.fromisoformat()` after `get`" },
  time: { noun: "a `time`", advice: "Store its `.isoformat()` string and parse it back with `time.fromisoformat()` after `get`" },
  temporal: { noun: "the result of `pendulum.parse()` (a pendulum date, time or duration)", advice: "Store the ISO string it was parsed from" },
  timedelta: { noun: "a `timedelta`", advice: "Store a number such as `.total_seconds()` and rebuild the `timedelta` after `get`" },
  set: { noun: "a `set`", advice: "Store a list such as `sorted(...)` and rebuild the set after `get`" },
  frozenset: { noun: "a `frozenset`", advice: "Store a list such as `sorted(...)` and rebuild the set after `get`" },
  bytes: { noun: "a `bytes` value", advice: "Store text instead, e.g. `base64.b64encode(data).decode()`" },
  decimal: { noun: "a `Decimal`", advice: "Store `str(...)` to keep every digit and rebuild it with `Decimal(...)` after `get`" },
  path: { noun: "a `Path`", advice: "Store `str(...)` and rebuild it with `Path(...)` after `get`" },
  uuid: { noun: "a `UUID`", advice: "Store `str(...)` and rebuild it with `UUID(...)` after `get`" },
  lambda: { noun: "a `lambda`", advice: "Store the data the function would compute, not the function" },
  generator: { noun: "a generator", advice: "Store a list: write `[...]` instead of `(...)`" },
};

/** Expressions that `.isoformat()` can be appended to without parentheses. */
const PRIMARY = new Set(["identifier", "attribute", "call", "subscript", "parenthesized_expression"]);

/**
 * ## What it does
 * Checks for values given to a task or asset state store's `set` that are certainly not JSON:
 * `datetime`, `date` and `time` objects (`datetime.now()`, `date.today()`, `pendulum.now()`,
 * `pendulum.datetime(...)`, ...), `timedelta`s, sets (`{...}`, `set()`, `frozenset()`, set
 * comprehensions), `bytes`, `Decimal`, `Path` and `UUID` objects, lambdas, generator expressions and
 * instances of classes defined in the file. The value is followed through names bound once (in the
 * function or at module level), and into the list, tuple and dict literals it is built from
 * (`{"loaded_at": datetime.now()}`).
 *
 * The search has a depth limit, so that no value takes long to examine: it looks 16 levels deep
 * into nested literals and `a if c else b` branches (a name bound to a container counts as a level
 * as well), and follows about 120 names bound to names. A value nested deeper is not examined, and
 * the rule says nothing about it. Chains of base classes of the file are followed to any length.
 *
 * ## Why is this bad?
 * A state store keeps JSON only: Airflow checks the value before storing it, so `set` fails when
 * the task runs, and the progress it was meant to record is lost. A task that retries hits the same
 * failure on every try.
 *
 * ## Example
 * ```python
 * from datetime import datetime, timezone
 *
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     store = asset_state_store[ORDERS]
 *     store.set("watermark", datetime.now(tz=timezone.utc))
 *     store.set("seen_ids", {"a-1", "a-2"})
 * ```
 *
 * ## Use instead
 * ```python
 * from datetime import datetime, timezone
 *
 * @task(inlets=[ORDERS], outlets=[ORDERS])
 * def load(asset_state_store=None):
 *     store = asset_state_store[ORDERS]
 *     store.set("watermark", datetime.now(tz=timezone.utc).isoformat())
 *     store.set("seen_ids", sorted({"a-1", "a-2"}))
 * ```
 *
 * ## Fix safety
 * Fixes are offered only where the value's type is certain: `.isoformat()` for datetimes, dates and
 * times; `sorted(...)` for sets (`[]` for an empty `set()`); `str(...)` for `Decimal`, `Path` and
 * `UUID`. None is offered for lambdas, generators, class instances, bytes or durations, nor when
 * the value sits in a container defined elsewhere.
 *
 * `.isoformat()`, `[]` and `str(...)` are safe: the original call can never have stored anything
 * (the store refuses the value), so no code that reads the key back can depend on receiving the
 * object; after the fix it receives the text form that the guidance recommends storing, and parses
 * it back where it needs the object (`datetime.fromisoformat(...)`).
 *
 * `sorted(...)` is unsafe: it raises `TypeError` when the set mixes values that cannot be compared,
 * such as `None` and strings, so it may trade one failure for another.
 */
export const AS101: Rule = {
  code: "AS101",
  name: "non-json-value",
  summary: "Non-JSON value (datetime, set, bytes, Path, ...) given to a state store's `set`",
  defaultSeverity: "error",
  category: "values",
  fix: "safe or unsafe",
  mayReport: ({ text }) => mentionsStore(text) && text.includes("set"),
  check({ model, report }) {
    for (const call of model.storeCalls) {
      if (call.method !== "set" || !call.value) continue;
      const reportedVia = new Set<number>();
      for (const part of valueParts(model, call.value, (info) => isNonJson(info.kind))) {
        if (part.via) {
          // One finding per name: the container it stands for is defined elsewhere.
          if (reportedVia.has(part.via.id)) continue;
          reportedVia.add(part.via.id);
        }
        report({ node: part.via ?? part.node, message: messageFor(model, part), fix: part.via ? undefined : fixFor(model, part) });
      }
    }
  },
};

function textFor(model: SemanticModel, part: ValuePart): KindText {
  const kind = part.kind as NonJsonKind;
  if (kind !== "instance") return KINDS[kind];
  const name = part.cls?.name ?? "this class";
  const dataclass = !!part.cls && classDecorators(model, part.cls).includes("dataclasses.dataclass");
  return {
    noun: `an instance of \`${name}\``,
    advice: dataclass
      ? "Store a dict of its fields, e.g. `dataclasses.asdict(...)`, and rebuild the object after `get`"
      : "Store a dict of its fields and rebuild the object after `get`",
  };
}

function messageFor(model: SemanticModel, part: ValuePart): string {
  const { noun, advice } = textFor(model, part);
  const subject = part.via ? `\`${part.via.text}\` holds ${noun}, which` : capitalize(noun);
  return `${subject} is not a JSON value, so storing it fails when the task runs. ${advice}.`;
}

function fixFor(model: SemanticModel, part: ValuePart): Fix | undefined {
  const node = part.node;
  const builtinAvailable = (name: string) => !model.scopeOf(node).lookup(name);
  switch (part.kind) {
    case "datetime":
    case "date":
    case "time": {
      const receiver = PRIMARY.has(node.type) ? node.text : `(${node.text})`;
      return replacement("Convert with `.isoformat()`", node, `${receiver}.isoformat()`, true);
    }
    case "set":
    case "frozenset": {
      if (isEmptySetCall(part.source) && node.id === part.source.id) return replacement("Replace with `[]`", node, "[]", true);
      return builtinAvailable("sorted") ? replacement("Wrap in `sorted(...)`", node, `sorted(${node.text})`, false) : undefined;
    }
    case "decimal":
    case "path":
    case "uuid":
      return builtinAvailable("str") ? replacement("Wrap in `str(...)`", node, `str(${node.text})`, true) : undefined;
    default:
      return undefined;
  }
}

/** `set()` or `frozenset()` without arguments. */
function isEmptySetCall(node: SyntaxNode): boolean {
  const args = node.type === "call" ? node.childForFieldName("arguments") : null;
  return args?.type === "argument_list" && args.namedChildren.filter((c) => c.type !== "comment").length === 0;
}

function replacement(title: string, node: SyntaxNode, newText: string, safe: boolean): Fix {
  return { title, safe, kind: "quickfix", edits: [replaceNode(node, newText)] };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
