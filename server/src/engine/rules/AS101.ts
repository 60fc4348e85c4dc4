import { replaceNode } from "../fixes/edits";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { capitalize } from "./messageText";
import { unparenthesize } from "../syntax/nodes";
import { SemanticModel, StoreCall, writtenMethod } from "../airflow/model";
import { classDecorators, isNonJson, NonJsonKind, passesJsonDumps, ValuePart, valueParts } from "../airflow/valueKind";
import { Fix } from "../types";
import { codeSpan } from "../syntax/markdown";

interface KindText {
  /** The value as a noun phrase, lower-case: "a `datetime`". */
  noun: string;
  /** What to store instead, as an imperative sentence without the final period. */
  advice: string;
}

const KINDS: Record<Exclude<NonJsonKind, "instance" | "non-str-key">, KindText> = {
  datetime: { noun: "a `datetime`", advice: "Store its `.isoformat()` string and parse it back with `datetime.fromisoformat()` after `get`" },
  date: { noun: "a `date`", advice: "Store its `.isoformat()` string and parse it back with `date.fromisoformat()` after `get`" },
  time: { noun: "a `time`", advice: "Store its `.isoformat()` string and parse it back with `time.fromisoformat()` after `get`" },
  temporal: { noun: "the result of `pendulum.parse()`", advice: "It is a pendulum date, time or duration: store the ISO string it was parsed from" },
  timedelta: { noun: "a `timedelta`", advice: "Store a number such as `.total_seconds()` and rebuild the `timedelta` after `get`" },
  set: { noun: "a `set`", advice: "Store a list such as `sorted(...)` and rebuild the set after `get`" },
  frozenset: { noun: "a `frozenset`", advice: "Store a list such as `sorted(...)` and rebuild the set after `get`" },
  bytes: { noun: "a `bytes` value", advice: "Store text instead, e.g. `base64.b64encode(data).decode()`" },
  decimal: { noun: "a `Decimal`", advice: "Store `str(...)` to keep every digit and rebuild it with `Decimal(...)` after `get`" },
  path: { noun: "a `Path`", advice: "Store `str(...)` and rebuild it with `Path(...)` after `get`" },
  uuid: { noun: "a `UUID`", advice: "Store `str(...)` and rebuild it with `UUID(...)` after `get`" },
  lambda: { noun: "a `lambda`", advice: "Store the data the function would compute, not the function" },
  generator: { noun: "a generator", advice: "Store a list: write `[...]` instead of `(...)`" },
  tuple: { noun: "a tuple", advice: "Store a list instead: Airflow does not turn a tuple into one" },
};

/** Expressions that `.isoformat()` can be appended to without parentheses. */
const PRIMARY = new Set(["identifier", "attribute", "call", "subscript", "parenthesized_expression"]);

/**
 * ## What it does
 * Checks for values given to a task or asset state store's `set` that are certainly not JSON:
 * `datetime`, `date` and `time` objects (`datetime.now()`, `date.today()`, `pendulum.now()`,
 * `pendulum.datetime(...)`, ...), `timedelta`s, sets (`{...}`, `set()`, `frozenset()`, set
 * comprehensions), `bytes`, `Decimal`, `Path` and `UUID` objects, lambdas, generator expressions,
 * instances of classes defined in the file, tuples (`("run", 3)`, `tuple(...)`, also nested in a
 * list or dict), and dict literals with a key that is not a string (`{1: "a"}`, `{None: 0}`,
 * `{(2026, 1): 5}`). The value is followed through names bound once (in the function or at module
 * level), and into the list, tuple and dict literals it is built from
 * (`{"loaded_at": datetime.now()}`). The asset store's `aset` is checked like `set`.
 *
 * The search has a depth limit, so that no value takes long to examine: it looks 16 levels deep
 * into nested literals and `a if c else b` branches (a name bound to a container counts as a level
 * as well), and follows about 120 names bound to names. A value nested deeper is not examined, and
 * the rule says nothing about it. Chains of base classes of the file are followed to any length.
 * Within a container the outermost offending part is reported: a tuple holding a `datetime` is
 * reported as a tuple, and the `datetime` once the tuple is a list.
 *
 * ## Why is this bad?
 * A state store keeps JSON only: Airflow validates the value against pydantic's `JsonValue` before
 * storing it, so `set` raises `pydantic.ValidationError` ("input was not a valid JSON value") when
 * the task runs, and the progress it was meant to record is lost. A task that retries hits the same
 * failure on every try. A tuple is refused like the rest (it is not turned into a list), and so is a
 * dict whose keys are not all strings.
 *
 * On the asset store with a size limit (`[state_store] max_value_storage_bytes` above 0, the
 * default), the value goes through `json.dumps` first, so most of these raise `TypeError: Object of
 * type ... is not JSON serializable` instead (a dict with a tuple key: `TypeError: keys must be
 * ...`). `json.dumps` accepts tuples and `int` or `None` keys, so those still end in
 * `pydantic.ValidationError`.
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
 * `UUID`; a list literal for a tuple literal (`("run", 3)` → `["run", 3]`) whose elements hold no
 * other value the rule reports. None is offered for
 * lambdas, generators, class instances, bytes, durations, non-string dict keys or a tuple reached
 * through a name, nor when the value sits in a container defined elsewhere.
 *
 * `.isoformat()`, `[]`, `str(...)` and the list literal are safe: the original call can never have stored anything
 * (the store refuses the value), so no code that reads the key back can depend on receiving the
 * object; after the fix it receives the text form that the guidance recommends storing, and parses
 * it back where it needs the object (`datetime.fromisoformat(...)`). A stored list is what any JSON
 * reader of the entry receives in place of a tuple anyway.
 *
 * `sorted(...)` is unsafe: it raises `TypeError` when the set mixes values that cannot be compared,
 * such as `None` and strings, so it may trade one failure for another.
 */
export const AS101: Rule = {
  code: "AS101",
  name: "non-json-value",
  summary: "Non-JSON value (datetime, set, tuple, bytes, Path, non-string dict key, ...) given to a state store's `set`",
  defaultSeverity: "error",
  category: "values",
  fix: "safe or unsafe",
  mayReport: ({ facts }) => facts.mentionsStore() && facts.includes("set"),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.method !== "set" || !call.value) continue;
      const reportedVia = new Set<number>();
      for (const part of valueParts(model, call.value, (info) => isNonJson(info.kind))) {
        if (part.via) {
          // One finding per name: the container it stands for is defined elsewhere.
          if (reportedVia.has(part.via.id)) continue;
          reportedVia.add(part.via.id);
        }
        const underlined = part.via ?? (part.kind === "non-str-key" ? part.key! : part.node);
        report({ node: underlined, message: messageFor(model, call, part), fix: part.via ? undefined : fixFor(model, part) });
      }
    }
  },
};

function textFor(model: SemanticModel, part: ValuePart): KindText {
  const kind = part.kind as NonJsonKind;
  if (kind === "non-str-key") {
    const key = part.key!;
    const type = `${part.keyType === "int" ? "an" : "a"} ${codeSpan(part.keyType!)}`;
    const asString = part.keyType === "int" && /^\d{1,20}$/.test(key.text) ? `, e.g. ${codeSpan(`"${key.text}"`)}` : "";
    return { noun: `a dict with ${type} key`, advice: `JSON object keys are strings: write the key as one${asString}` };
  }
  if (kind !== "instance") return KINDS[kind];
  const name = part.cls?.name ?? "this class";
  const dataclass = !!part.cls && classDecorators(model, part.cls).includes("dataclasses.dataclass");
  return {
    noun: `an instance of ${codeSpan(name)}`,
    advice: dataclass
      ? "Store a dict of its fields, e.g. `dataclasses.asdict(...)`, and rebuild the object after `get`"
      : "Store a dict of its fields and rebuild the object after `get`",
  };
}

function messageFor(model: SemanticModel, call: StoreCall, part: ValuePart): string {
  const { noun, advice } = textFor(model, part);
  const subject = part.via ? `${codeSpan(part.via.text)} holds ${noun}, not` : `${capitalize(noun)} is not`;
  const method = writtenMethod(call);
  // The asset store's size check (`max_value_storage_bytes` > 0, the default) runs `json.dumps` before the validation.
  const dumpsFirst = call.store.kind === "asset" && !passesJsonDumps(part);
  const raised = dumpsFirst ? "`TypeError`" : "`ValidationError`";
  const note = dumpsFirst
    ? " (The `TypeError` comes from the size check's `json.dumps`; with `max_value_storage_bytes = 0` it is pydantic's `ValidationError`.)"
    : " (pydantic's `ValidationError`: \"input was not a valid JSON value\".)";
  return `${subject} a JSON value: this ${codeSpan(method)} raises ${raised} when the task runs. ${advice}.${note}`;
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
    case "tuple": {
      // A tuple that holds another non-JSON value is reported as a whole; its list would be reported again.
      const tuple = unparenthesize(node);
      if (tuple.type !== "tuple") return undefined;
      const holdsNonJson = tuple.namedChildren.some((element) => valueParts(model, element, (info) => isNonJson(info.kind)).length > 0);
      return holdsNonJson ? undefined : tupleToList(tuple);
    }
    default:
      return undefined;
  }
}

/** `(a, b)` → `[a, b]`: the parentheses become brackets, the elements and comments stay as written. */
function tupleToList(tuple: SyntaxNode): Fix {
  return {
    title: "Write a list: `[...]`",
    safe: true,
    kind: "quickfix",
    edits: [
      { start: tuple.startIndex, end: tuple.startIndex + 1, newText: "[" },
      { start: tuple.endIndex - 1, end: tuple.endIndex, newText: "]" },
    ],
  };
}

/** `set()` or `frozenset()` without arguments. */
function isEmptySetCall(node: SyntaxNode): boolean {
  const args = node.type === "call" ? node.childForFieldName("arguments") : null;
  return args?.type === "argument_list" && args.namedChildren.filter((c) => c.type !== "comment").length === 0;
}

function replacement(title: string, node: SyntaxNode, newText: string, safe: boolean): Fix {
  return { title, safe, kind: "quickfix", edits: [replaceNode(node, newText)] };
}
