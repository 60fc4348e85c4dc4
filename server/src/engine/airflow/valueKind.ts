/**
 * What kind of Python value an expression certainly evaluates to, for rules that judge values given
 * to a state store (AS101 non-JSON values, AS107 NaN/Infinity, and later ones).
 *
 * Only what is certain from the file is classified: calls resolved through imports
 * (`from datetime import datetime` → `datetime.now()` is a `datetime`), literals, and names bound
 * once. Everything else is `unknown`, and rules stay silent on `unknown`.
 *
 * Airflow's task SDK validates a stored value against pydantic's `JsonValue`, which dispatches on
 * the value's type: `str`, `int`, `float`, `bool`, `list`, `dict` with `str` keys, `None` and their
 * subclasses pass; any other type (a `datetime`, a `set`, a class instance, and a tuple, even one
 * nested in a list: it is not turned into a list) is refused with `pydantic.ValidationError`. On the
 * asset store with a size limit (`[state_store] max_value_storage_bytes` > 0, the default) the value
 * goes through `json.dumps` first, which refuses most of those types with `TypeError` but turns
 * tuples into lists and `int`/`None` dict keys into strings, so those still reach the validation.
 * NaN and Infinity are floats, so they pass the type check, but JSON has no spelling for them.
 *
 * NamedTuple instances are left `unknown`: whether a `tuple` subclass is refused the same way has not
 * been read in Airflow's source.
 */
import { identifiersIn, SyntaxNode } from "../syntax/parser";
import { ClassInfo, SemanticModel } from "./model";
import { callArguments, plainString, stringLiteral, unparenthesize } from "../syntax/nodes";

/** Values that are certainly not JSON. */
export type NonJsonKind =
  | "datetime"
  | "date"
  | "time"
  /** `pendulum.parse(...)`: a DateTime, Date, Time or Duration depending on the text. */
  | "temporal"
  | "timedelta"
  | "set"
  | "frozenset"
  | "bytes"
  | "decimal"
  | "path"
  | "uuid"
  | "lambda"
  | "generator"
  /** An instance of a class defined in the file that is not a `str`/`int`/`float`/`list`/`dict`. */
  | "instance"
  /** A tuple literal (or `tuple(...)`): not turned into a list, refused like any other non-JSON type. */
  | "tuple"
  /** A dict literal with a key that is certainly not a `str` (`1`, `None`, `True`, `(a, b)`): {@link ValueInfo.key}. */
  | "non-str-key";

export type ValueKind =
  /** Certainly a JSON value: str, int, finite float, bool, or a list/dict of JSON values. */
  | "json"
  | "none"
  /** A float that is NaN or ±Infinity. */
  | "non-finite"
  | NonJsonKind
  | "unknown";

export interface ValueInfo {
  kind: ValueKind;
  /** The expression the kind was read from, after following names (`datetime.now()` for `started`). */
  source: SyntaxNode;
  /** For `instance`: the class instantiated. */
  cls?: ClassInfo;
  /** For `non-finite`: which one. */
  nonFinite?: "NaN" | "Infinity" | "-Infinity";
  /** For `non-str-key`: the first key that is not a `str`, and its type (`int`, `float`, `bool`, `None`, `tuple`). */
  key?: SyntaxNode;
  keyType?: NonStringKeyType;
}

export type NonStringKeyType = "int" | "float" | "bool" | "None" | "tuple";

export interface ValuePart extends ValueInfo {
  /** The sub-expression, as written in the examined expression, whose value was classified. */
  node: SyntaxNode;
  /**
   * Set when the part sits in a container literal reached through a name
   * (`payload` in `set("k", payload)` after `payload = {"at": datetime.now()}`): that name as written
   * in the examined expression. Editing `node` would then change code outside the examined expression.
   */
  via?: SyntaxNode;
  /** The part is an element of a list, tuple or dict of the value, not the value itself (nor one branch of a choice). */
  nested: boolean;
  /**
   * The part sits inside a container that is refused whatever its elements are (a tuple, a dict
   * with a key that is not a `str`), so storing the value fails there first.
   */
  insideRefused: boolean;
}

const NON_JSON_KINDS: ReadonlySet<ValueKind> = new Set<NonJsonKind>([
  "datetime",
  "date",
  "time",
  "temporal",
  "timedelta",
  "set",
  "frozenset",
  "bytes",
  "decimal",
  "path",
  "uuid",
  "lambda",
  "generator",
  "instance",
  "tuple",
  "non-str-key",
]);

/**
 * The kinds `json.dumps` accepts although they are not JSON values: it writes a tuple as a list and
 * turns `int`, `float`, `bool` and `None` dict keys into strings. On the asset store with a size
 * limit, such values pass `json.dumps` and are then refused by the validation.
 */
export function passesJsonDumps(info: ValueInfo): boolean {
  return info.kind === "tuple" || (info.kind === "non-str-key" && info.keyType !== "tuple");
}

export function isNonJson(kind: ValueKind): kind is NonJsonKind {
  return NON_JSON_KINDS.has(kind);
}

/** What a call to a fully qualified callee returns. */
const CALL_RESULTS = new Map<string, ValueKind>([
  ...entries("datetime", ["datetime.datetime", "datetime.datetime.now", "datetime.datetime.today", "datetime.datetime.utcnow"]),
  ...entries("datetime", ["fromisoformat", "fromtimestamp", "utcfromtimestamp", "combine", "strptime", "fromordinal", "fromisocalendar"].map((m) => `datetime.datetime.${m}`)),
  ...entries("date", ["datetime.date", ...["today", "fromisoformat", "fromtimestamp", "fromordinal", "fromisocalendar"].map((m) => `datetime.date.${m}`)]),
  ...entries("time", ["datetime.time", "datetime.time.fromisoformat"]),
  ...entries("timedelta", ["datetime.timedelta", "pendulum.duration"]),
  ...entries("datetime", ["now", "today", "tomorrow", "yesterday", "datetime", "local", "naive", "from_timestamp", "from_format", "instance"].map((f) => `pendulum.${f}`)),
  ...entries("datetime", ["now", "today", "utcnow", "fromisoformat", "fromtimestamp", "strptime"].map((m) => `pendulum.DateTime.${m}`)),
  ...entries("date", ["pendulum.date", "pendulum.Date.today"]),
  ...entries("time", ["pendulum.time"]),
  ...entries("temporal", ["pendulum.parse"]),
  // Airflow's own helpers return (pendulum) datetimes.
  ...entries("datetime", ["airflow.utils.timezone.utcnow", "airflow.utils.timezone.datetime", "airflow.sdk.timezone.utcnow", "airflow.sdk.timezone.datetime"]),
  ...entries("set", ["set"]),
  ...entries("frozenset", ["frozenset"]),
  ...entries("tuple", ["tuple"]),
  ...entries("bytes", ["bytes", "bytearray"]),
  ...entries("decimal", ["decimal.Decimal"]),
  ...entries("path", ["Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath"].flatMap((c) => [`pathlib.${c}`, `pathlib.${c}.cwd`, `pathlib.${c}.home`])),
  ...entries("uuid", ["UUID", "uuid1", "uuid3", "uuid4", "uuid5", "uuid6", "uuid7", "uuid8"].map((f) => `uuid.${f}`)),
  // Builtins that always return a JSON scalar.
  ...entries("json", ["str", "int", "bool", "len", "repr", "ascii", "chr", "ord", "hex", "oct", "bin"]),
]);

/** Methods that keep (or change in a known way) the kind of their receiver. */
const METHOD_RESULTS: Partial<Record<NonJsonKind, Record<string, NonJsonKind>>> = {
  datetime: { replace: "datetime", astimezone: "datetime", date: "date", time: "time", timetz: "time" },
  date: { replace: "date" },
  time: { replace: "time" },
  path: Object.fromEntries(
    ["resolve", "absolute", "joinpath", "with_name", "with_stem", "with_suffix", "expanduser", "relative_to", "with_segments"].map((m) => [m, "path"]),
  ) as Record<string, NonJsonKind>,
  set: Object.fromEntries(["union", "intersection", "difference", "symmetric_difference", "copy"].map((m) => [m, "set"])) as Record<string, NonJsonKind>,
};

type NonFinite = NonNullable<ValueInfo["nonFinite"]>;

const NON_FINITE_NAMES = new Map<string, NonFinite>([
  ["math.nan", "NaN"],
  ["math.inf", "Infinity"],
  ...["nan", "NaN", "NAN"].map((n): [string, NonFinite] => [`numpy.${n}`, "NaN"]),
  ...["inf", "Inf", "Infinity", "infty", "PINF"].map((n): [string, NonFinite] => [`numpy.${n}`, "Infinity"]),
  ["numpy.NINF", "-Infinity"],
]);

/** Builtin bases whose instances are JSON values (pydantic's `JsonValue` accepts subclasses). */
const JSON_BASES = new Set(["str", "int", "float", "list", "dict", "enum.IntEnum", "enum.StrEnum", "enum.IntFlag", "typing.TypedDict", "typing_extensions.TypedDict"]);
/** Imported bases whose instances are certainly not JSON. */
const NON_JSON_BASES = new Set(["object", "abc.ABC", "enum.Enum", "Exception", "pydantic.BaseModel"]);
/** Class decorators that return the class itself. */
const TRANSPARENT_CLASS_DECORATORS = new Set([
  "dataclasses.dataclass",
  "attr.s",
  "attr.attrs",
  "attr.define",
  "attr.frozen",
  "attr.mutable",
  "attrs.define",
  "attrs.frozen",
  "attrs.mutable",
]);

const NON_FINITE_TEXT = /^\s*([+-]?)(nan|inf|infinity)\s*$/i;
/** How deep values are looked into; the docs of AS101 and AS107 state it. */
const MAX_DEPTH = 16;

/**
 * The kind of value `expression` certainly evaluates to. Containers are `json` only when every
 * element is; to find the offending elements of a container use {@link valueParts}.
 */
export function valueKind(model: SemanticModel, expression: SyntaxNode): ValueInfo {
  return classify(model, expression, 0);
}

/**
 * The parts of `expression` whose kind `wanted` accepts: the expression itself, or else the elements
 * of the list, tuple and dict literals it is made of (recursively, including both branches of
 * `a if c else b` and `a or b`). A name bound once to a container literal is looked into only when
 * the name is used nowhere else in its scope, because the container could otherwise be changed in
 * place before the examined expression runs.
 */
export function valueParts(model: SemanticModel, expression: SyntaxNode, wanted: (info: ValueInfo) => boolean): ValuePart[] {
  const parts: ValuePart[] = [];
  collectParts(model, expression, wanted, parts, { via: undefined, nested: false, insideRefused: false }, 0);
  return parts;
}

/** Where in the examined value a part sits. */
interface PartPlace {
  via: SyntaxNode | undefined;
  nested: boolean;
  insideRefused: boolean;
}

const CONTAINERS = new Set(["list", "tuple", "dictionary", "call"]);

function collectParts(model: SemanticModel, node: SyntaxNode, wanted: (info: ValueInfo) => boolean, parts: ValuePart[], place: PartPlace, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const info = classify(model, node, 0);
  if (wanted(info)) {
    parts.push({ ...info, node, ...place });
    return;
  }
  const inner = unparenthesize(node);
  // Elements of a container are nested in the value; the branches of a choice are the value itself.
  const elementPlace: PartPlace = CONTAINERS.has(inner.type)
    ? { via: place.via, nested: true, insideRefused: place.insideRefused || inner.type === "tuple" || info.kind === "non-str-key" }
    : place;
  for (const element of possibleElements(model, inner)) {
    collectParts(model, element, wanted, parts, elementPlace, depth + 1);
  }
  const container = containerBehindName(model, node);
  if (container) collectParts(model, container, wanted, parts, { ...place, via: place.via ?? node }, depth + 1);
}

/** The sub-expressions whose values end up in the value of `node` (elements, dict values, branches). */
function possibleElements(model: SemanticModel, node: SyntaxNode): SyntaxNode[] {
  switch (node.type) {
    case "list":
    case "tuple":
      return node.namedChildren.filter((c) => c.type !== "list_splat" && c.type !== "comment");
    case "dictionary":
      return node.namedChildren.filter((c) => c.type === "pair").map((pair) => pair.childForFieldName("value")!).filter(Boolean);
    case "conditional_expression": {
      // `a if condition else b`: the value is `a` or `b`.
      const [whenTrue, , whenFalse] = node.namedChildren;
      return [whenTrue, whenFalse].filter(Boolean);
    }
    case "boolean_operator":
      return [node.childForFieldName("left"), node.childForFieldName("right")].filter((c): c is SyntaxNode => !!c);
    case "named_expression":
      return [node.childForFieldName("value")].filter((c): c is SyntaxNode => !!c);
    case "call": {
      // `dict(at=..., rows=...)`
      if (model.qualifiedName(node.childForFieldName("function")) !== "dict") return [];
      return [...callArguments(node).keywords.values()].map((k) => k.value);
    }
    default:
      return [];
  }
}

/** The container literal a name is bound to, when the name is bound once and used only at `node`. */
function containerBehindName(model: SemanticModel, node: SyntaxNode): SyntaxNode | undefined {
  const name = unparenthesize(node);
  if (name.type !== "identifier") return undefined;
  const binding = model.bindingOf(name);
  if (!binding || binding.kind !== "assign" || !binding.value) return undefined;
  const value = unparenthesize(binding.value);
  if (!["list", "tuple", "dictionary"].includes(value.type)) return undefined;
  // Found from the name's spellings in the scope's text: a walk of every node of the scope for each value examined grows with the square of a module's size.
  return identifiersIn(binding.scope.node, name.text).length === 2 ? value : undefined;
}

function classify(model: SemanticModel, expression: SyntaxNode, depth: number): ValueInfo {
  const node = unparenthesize(expression);
  const unknown: ValueInfo = { kind: "unknown", source: node };
  if (depth > MAX_DEPTH) return unknown;
  const is = (kind: ValueKind, extra: Partial<ValueInfo> = {}): ValueInfo => ({ kind, source: node, ...extra });
  switch (node.type) {
    case "string":
    case "concatenated_string":
      return is(stringLiteral(node)?.isBytes ? "bytes" : "json");
    case "true":
    case "false":
      return is("json");
    case "integer":
    case "float": {
      // `2j` is a complex number; `1e999` is infinity.
      if (/[jJ]$/.test(node.text)) return unknown;
      if (node.type === "integer") return is("json");
      return Number.isFinite(Number(node.text.replace(/_/g, ""))) ? is("json") : is("non-finite", { nonFinite: "Infinity" });
    }
    case "none":
      return is("none");
    case "set":
    case "set_comprehension":
      return is("set");
    case "lambda":
      return is("lambda");
    case "tuple":
    case "expression_list":
      return is("tuple");
    case "generator_expression":
      return is("generator");
    case "list":
    case "dictionary": {
      // JSON when every element is JSON (`None` inside a container is JSON `null`) and every key a string.
      const children = node.namedChildren.filter((c) => c.type !== "comment");
      const jsonElement = (e: SyntaxNode | null) => !!e && ["json", "none"].includes(classify(model, e, depth + 1).kind);
      const textKey = (k: SyntaxNode | null) => !!k && ["string", "concatenated_string"].includes(k.type) && !stringLiteral(k)?.isBytes;
      const allJson =
        node.type === "list"
          ? children.every(jsonElement)
          : children.every((c) => c.type === "pair" && textKey(c.childForFieldName("key")) && jsonElement(c.childForFieldName("value")));
      if (allJson) return is("json");
      const nonString = node.type === "dictionary" ? nonStringKey(model, children) : undefined;
      return nonString ? is("non-str-key", nonString) : unknown;
    }
    case "named_expression": {
      const value = node.childForFieldName("value");
      return value ? classify(model, value, depth + 1) : unknown;
    }
    case "unary_operator": {
      const operand = node.childForFieldName("argument");
      const operator = node.child(0)?.text;
      if (!operand || (operator !== "-" && operator !== "+")) return unknown;
      const inner = classify(model, operand, depth + 1);
      if (inner.kind === "non-finite") {
        const negated = inner.nonFinite === "Infinity" ? "-Infinity" : inner.nonFinite === "-Infinity" ? "Infinity" : "NaN";
        return is("non-finite", { nonFinite: operator === "-" ? negated : inner.nonFinite });
      }
      return inner.kind === "json" && ["integer", "float"].includes(operand.type) ? is("json") : unknown;
    }
    case "binary_operator":
      return classifyArithmetic(model, node, depth);
    case "identifier":
    case "attribute": {
      const qualified = model.qualifiedName(node);
      const nonFinite = qualified ? NON_FINITE_NAMES.get(qualified) : undefined;
      if (nonFinite) return is("non-finite", { nonFinite });
      if (node.type === "identifier") {
        const resolved = model.resolveValue(node);
        if (resolved.id === node.id) return unknown;
        const bound = classify(model, resolved, depth + 1);
        // A dict bound to a name can lose its odd key before the name is read; valueParts looks
        // into it only where the name is used once (containerBehindName).
        return bound.kind === "non-str-key" ? unknown : bound;
      }
      // `path.parent` is a path.
      const object = node.childForFieldName("object");
      if (node.childForFieldName("attribute")?.text === "parent" && object && classify(model, object, depth + 1).kind === "path") return is("path");
      return unknown;
    }
    case "call":
      return classifyCall(model, node, depth);
    default:
      return unknown;
  }
}

/** The first key of a dict display that is certainly not a `str`: a number, bool, `None` or tuple literal, or a name bound once to one. */
function nonStringKey(model: SemanticModel, children: SyntaxNode[]): Pick<ValueInfo, "key" | "keyType"> | undefined {
  for (const pair of children) {
    const key = pair.type === "pair" ? pair.childForFieldName("key") : null;
    if (!key) continue;
    const keyType = nonStringKeyType(model.resolveValue(key));
    if (keyType) return { key, keyType };
  }
  return undefined;
}

function nonStringKeyType(key: SyntaxNode): NonStringKeyType | undefined {
  const node = key.type === "unary_operator" && ["-", "+"].includes(key.child(0)?.text ?? "") ? unparenthesize(key.childForFieldName("argument") ?? key) : key;
  switch (node.type) {
    case "integer":
      return /[jJ]$/.test(node.text) ? undefined : "int";
    case "float":
      return /[jJ]$/.test(node.text) ? undefined : "float";
    case "true":
    case "false":
      return node.id === key.id ? "bool" : undefined;
    case "none":
      return node.id === key.id ? "None" : undefined;
    case "tuple":
      return node.id === key.id ? "tuple" : undefined;
    default:
      return undefined;
  }
}

function classifyCall(model: SemanticModel, node: SyntaxNode, depth: number): ValueInfo {
  const is = (kind: ValueKind, extra: Partial<ValueInfo> = {}): ValueInfo => ({ kind, source: node, ...extra });
  const unknown: ValueInfo = { kind: "unknown", source: node };
  const fn = node.childForFieldName("function");
  if (!fn) return unknown;
  const callee = model.qualifiedName(fn);
  if (callee === "float") {
    const args = callArguments(node);
    const text = args.positional.length === 1 && args.keywords.size === 0 ? plainString(args.positional[0]) : undefined;
    const match = text !== undefined ? NON_FINITE_TEXT.exec(text) : null;
    if (match) {
      const nonFinite = match[2].toLowerCase() === "nan" ? "NaN" : match[1] === "-" ? "-Infinity" : "Infinity";
      return is("non-finite", { nonFinite });
    }
    return unknown;
  }
  const kind = callee ? CALL_RESULTS.get(callee) : undefined;
  if (kind) return is(kind);
  // A class of this file.
  if (fn.type === "identifier") {
    const binding = model.bindingOf(fn);
    if (binding?.kind === "class") {
      const cls = model.classDefinedBy(binding.target);
      if (cls) {
        const verdict = instanceKind(model, cls);
        return verdict === "unknown" ? unknown : is(verdict, verdict === "instance" ? { cls } : {});
      }
    }
    return unknown;
  }
  // Methods whose result kind follows from the receiver's: `datetime.now(tz=utc).replace(microsecond=0)`.
  if (fn.type === "attribute") {
    const object = fn.childForFieldName("object");
    const method = fn.childForFieldName("attribute")?.text;
    if (!object || !method) return unknown;
    const receiver = classify(model, object, depth + 1).kind;
    const result = isNonJson(receiver) ? METHOD_RESULTS[receiver]?.[method] : undefined;
    if (result) return is(result);
  }
  return unknown;
}

/** `datetime ± timedelta`, `datetime - datetime`, `path / "name"`. */
function classifyArithmetic(model: SemanticModel, node: SyntaxNode, depth: number): ValueInfo {
  const unknown: ValueInfo = { kind: "unknown", source: node };
  const left = node.childForFieldName("left");
  const right = node.childForFieldName("right");
  const operator = (node.childForFieldName("operator") ?? node.child(1))?.type;
  if (!left || !right) return unknown;
  const l = classify(model, left, depth + 1).kind;
  if (operator === "/" && l === "path") return { kind: "path", source: node };
  if (operator !== "+" && operator !== "-") return unknown;
  const r = classify(model, right, depth + 1).kind;
  const temporal = (k: ValueKind) => k === "datetime" || k === "date";
  if (temporal(l) && r === "timedelta") return { kind: l, source: node };
  if (operator === "+" && l === "timedelta" && temporal(r)) return { kind: r, source: node };
  if (operator === "-" && l === "datetime" && r === "datetime") return { kind: "timedelta", source: node };
  if (l === "timedelta" && r === "timedelta") return { kind: "timedelta", source: node };
  return unknown;
}

/**
 * Whether a call to `cls` certainly makes a non-JSON instance (`instance`), certainly a JSON value
 * (`json`: a `str`/`int`/`list`/`dict` subclass or a TypedDict), or something the file does not tell.
 */
function instanceKind(model: SemanticModel, cls: ClassInfo): "instance" | "json" | "unknown" {
  // Every class `cls` derives from through classes of this file is looked at once, from a work list
  // (a chain of bases can be as long as the file). Any of them that is not known makes the answer
  // unknown, one JSON base makes it JSON. A class reached twice (a diamond, a cycle) is not known.
  const seen = new Set<ClassInfo>([cls]);
  const pending = [cls];
  let verdict: "instance" | "json" = "instance";
  for (let current = pending.pop(); current; current = pending.pop()) {
    // A metaclass or `__new__` can make the call return anything.
    if (current.node.childForFieldName("superclasses")?.namedChildren.some((c) => c.type === "keyword_argument")) return "unknown";
    if (current.methods.has("__new__")) return "unknown";
    if (current.bases.some((b) => b.type === "list_splat" || b.type === "dictionary_splat")) return "unknown";
    if (classDecorators(model, current).some((name) => !name || !TRANSPARENT_CLASS_DECORATORS.has(name))) return "unknown";
    for (const [index, base] of current.bases.entries()) {
      const name = current.baseNames[index];
      if (!name) return "unknown";
      if (base.type === "identifier") {
        const binding = model.bindingOf(base);
        if (binding?.kind === "class") {
          const local = model.classDefinedBy(binding.target);
          if (!local || seen.has(local)) return "unknown";
          seen.add(local);
          pending.push(local);
          continue;
        }
      }
      if (JSON_BASES.has(name)) verdict = "json";
      else if (!NON_JSON_BASES.has(name)) return "unknown";
    }
  }
  return verdict;
}

/** The qualified names of a class's decorators (`dataclasses.dataclass`), undefined where one does not resolve. */
export function classDecorators(model: SemanticModel, cls: ClassInfo): (string | undefined)[] {
  const decorated = cls.node.parent?.type === "decorated_definition" ? cls.node.parent : undefined;
  return (decorated?.namedChildren ?? [])
    .filter((c) => c.type === "decorator")
    .map((decorator) => {
      const expression = decorator.namedChildren[0];
      return model.qualifiedName(expression?.type === "call" ? expression.childForFieldName("function") : expression);
    });
}

function entries(kind: ValueKind, names: string[]): [string, ValueKind][] {
  return names.map((name) => [name, kind]);
}
