import { insertFirstInClassBody } from "../fixes/classBody";
import { analysis } from "../context";
import { replaceNode } from "../fixes/edits";
import { parsePython, SyntaxNode } from "../syntax/parser";
import { Report, Rule } from "./rule";
import { ClassInfo, SemanticModel } from "../airflow/model";
import { DEFAULT_EXTERNAL_ID_KEY, EXTERNAL_ID_KEY, isAirflowBaseOperator, isResumableJobMixin } from "../airflow/resumableOperators";
import { plainString, unparenthesize } from "../syntax/nodes";

/**
 * ## What it does
 * Checks whether a `ResumableJobMixin` operator class stores its job id under another key than in the
 * file's committed version (`HEAD`, or the CLI's `--baseline REV`). Classes are matched by name, and
 * what is compared is the key the class really uses at run time: its own `external_id_key`, else the
 * one it inherits from a class of the same file (in Python's method resolution order), else the
 * mixin's default `"remote_job_id"`. A name bound once to a string (`external_id_key = SPARK_KEY`)
 * counts as that string. So the rule reports:
 * - a key whose string changed, on the string (or on the constant's string, when the constant's
 *   value changed);
 * - a class that used the default or an inherited key and now sets its own, on the new value;
 * - a class whose `external_id_key` was removed, or whose inherited key changed with its bases, on
 *   the class name. When a base class is reported and fixing it restores the subclass too, only the
 *   base is.
 *
 * The rule is silent without git, for untracked files, for classes that are new or were not
 * resumable in the committed version, and whenever the key is not known in either version: a value
 * that is not a string literal or a constant bound once to one, a key assigned more than once, or a
 * key that could come from a base class defined in another file.
 *
 * ## Why is this bad?
 * `execute_resumable` looks for the external job id under `external_id_key` in the task state store.
 * A task instance that submitted its job with the deployed code stored the id under the old key;
 * when it is retried with the new key it finds no id and submits the job again, so every retry in
 * flight at deploy time runs a duplicate job. Adding an `external_id_key` to an operator that used the
 * default, or removing one, renames the key just the same.
 *
 * The default severity is a warning, not an error: the committed version is not necessarily the
 * deployed one, and a rename is harmless when that version never ran or no task instance of it is
 * still running or due for a retry.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "batch_run_id"  # committed as "batch_job_id"
 *
 * class ExportOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "export_id"  # committed without a key: the default "remote_job_id"
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "batch_job_id"
 *
 * class ExportOperator(ResumableJobMixin, BaseOperator):
 *     external_id_key = "remote_job_id"
 * ```
 *
 * ## Fix safety
 * The fix restores the committed key: it puts the committed string back where the value is written
 * now (the attribute's string, or the constant's), writes `"remote_job_id"` for a class that used the
 * default, and for a class that no longer sets a key, adds `external_id_key = "<committed key>"` as the
 * first statement of its body (after its docstring). It is unsafe: it undoes an edit the user made on
 * purpose, and a rename can be intended (the operator never shipped, or in-flight runs were drained
 * first); a restored constant also changes every other use of that constant. It is never applied by
 * `--fix` or fix-all.
 */
export const AS301: Rule = {
  code: "AS301",
  name: "external-id-key-renamed",
  summary: "`external_id_key` renamed since the committed version: in-flight retries submit duplicate jobs",
  defaultSeverity: "warning",
  category: "crash",
  fix: "unsafe",
  // Only a class deriving from the mixin (named in the file) can have a key to compare.
  inputs: { baseline: (text) => text.includes("ResumableJobMixin") },
  mayReport: ({ text, baselineText }) => baselineText !== undefined && text.includes("ResumableJobMixin") && text.includes("class"),
  check(context) {
    const { model, text, baselineText, report } = context;
    if (baselineText === undefined) return;
    const current = resumableKeys(model);
    if (current.size === 0) return;
    const committed = context.get(baselineKeysAnalysis);
    const changes: KeyChange[] = [];
    for (const [className, now] of current) {
      const before = committed.get(className);
      if (before && before.key.value !== now.key.value) changes.push(keyChange(now.cls, now.key, before.key));
    }
    const reported = changes.filter((change) => !restoredByAnother(model, change, changes));
    for (const group of groupBySite(reported)) report(diagnostic(group, text));
  },
};

const ATTRIBUTE = EXTERNAL_ID_KEY;
const DEFAULT_KEY = DEFAULT_EXTERNAL_ID_KEY;
const DEFAULT_KEY_LITERAL = `"${DEFAULT_KEY}"`;

/** Bases defined elsewhere that are known not to set `external_id_key`: Airflow's operator base and `object`. */
function setsNoKey(qualifiedName: string): boolean {
  return qualifiedName === "object" || isAirflowBaseOperator(qualifiedName);
}

/** Where a class's key comes from: a string assigned in some class of the file, or the mixin's default. */
interface KeySource {
  value: string;
  /** The class whose body assigns `external_id_key`; undefined for the mixin's default. */
  definer?: ClassInfo;
  /** The assigned expression (`"batch_job_id"`, `SPARK_KEY`). */
  assigned?: SyntaxNode;
  /** The string literal that holds the value: the assigned one, or the one of the constant it names. */
  literal?: SyntaxNode;
}

interface ResumableKey {
  cls: ClassInfo;
  key: KeySource;
}

/**
 * The key of each resumable operator class whose key is known, by class name. Classes whose name is
 * defined twice in the file are left out.
 */
function resumableKeys(model: SemanticModel): Map<string, ResumableKey> {
  const keys = new Map<string, ResumableKey>();
  for (const cls of model.subclassesOf(isResumableJobMixin)) {
    if (!definedOnce(model, cls.name)) continue;
    const key = effectiveKey(model, cls);
    if (key) keys.set(cls.name, { cls, key });
  }
  return keys;
}

function definedOnce(model: SemanticModel, name: string): boolean {
  return model.classes.filter((c) => c.name === name).length === 1;
}

/**
 * The key `cls` uses at run time, following Python's attribute lookup: the first class in its method
 * resolution order that assigns `external_id_key`, or the mixin. Undefined when that is not known.
 */
function effectiveKey(model: SemanticModel, cls: ClassInfo): KeySource | undefined {
  const own = ownKey(model, cls);
  if (own !== "unset") return own === "unknown" ? undefined : own;
  const order = methodResolutionOrder(model, cls);
  if (!order) return undefined;
  for (const entry of order.slice(1)) {
    if (typeof entry !== "string") {
      const inherited = ownKey(model, entry);
      if (inherited === "unset") continue;
      return inherited === "unknown" ? undefined : inherited;
    }
    if (isResumableJobMixin(entry)) return { value: DEFAULT_KEY };
    // A class from another file may set the key itself.
    if (!setsNoKey(entry)) return undefined;
  }
  return undefined;
}

/** The key assigned in the class's own body: "unset" when none is, "unknown" when it is not a single string. */
function ownKey(model: SemanticModel, cls: ClassInfo): KeySource | "unset" | "unknown" {
  const bindings = cls.scope.bindings.get(ATTRIBUTE);
  if (!bindings) return "unset";
  const [binding] = bindings;
  if (bindings.length !== 1 || binding.kind !== "assign" || !binding.value || binding.target.parent?.hasError) return "unknown";
  const assigned = unparenthesize(binding.value);
  const literal = model.resolveValue(assigned);
  const value = plainString(literal);
  // Escapes are kept as written, so two spellings of one value could differ: only plain text is compared.
  if (value === undefined || value.includes("\\")) return "unknown";
  return { value, definer: cls, assigned, literal };
}

/** A class of this file, or the qualified name of a class defined elsewhere (whose own bases are not known). */
type Ancestor = ClassInfo | string;

/**
 * The class's method resolution order (C3 linearisation, as Python computes it), with classes from
 * other files as opaque entries. Undefined when a base cannot be resolved or the order is inconsistent.
 */
function methodResolutionOrder(model: SemanticModel, cls: ClassInfo, visiting: ReadonlySet<string> = new Set()): Ancestor[] | undefined {
  if (visiting.has(cls.name)) return undefined;
  const inside = new Set([...visiting, cls.name]);
  const bases: Ancestor[] = [];
  const orders: Ancestor[][] = [];
  for (const name of cls.baseNames) {
    if (!name) return undefined;
    const local = model.classNamed(name);
    if (!local) {
      bases.push(name);
      orders.push([name]);
      continue;
    }
    if (!definedOnce(model, name)) return undefined;
    const order = methodResolutionOrder(model, local, inside);
    if (!order) return undefined;
    bases.push(local);
    orders.push(order);
  }
  const merged = mergeOrders([...orders, bases]);
  return merged && [cls, ...merged];
}

function mergeOrders(orders: Ancestor[][]): Ancestor[] | undefined {
  const remaining = orders.map((order) => [...order]).filter((order) => order.length > 0);
  const result: Ancestor[] = [];
  while (remaining.length > 0) {
    const head = remaining.map((order) => order[0]).find((candidate) => !remaining.some((order) => order.indexOf(candidate) > 0));
    if (head === undefined) return undefined;
    result.push(head);
    for (const order of remaining) if (order[0] === head) order.shift();
    for (let i = remaining.length - 1; i >= 0; i--) if (remaining[i].length === 0) remaining.splice(i, 1);
  }
  return result;
}

interface KeyChange {
  cls: ClassInfo;
  now: KeySource;
  before: KeySource;
  /**
   * What the fix edits: the expression that holds the new value (replaced with the committed string),
   * or, when the class no longer sets a key of its own, the class (given one again).
   */
  site: { kind: "replace"; node: SyntaxNode } | { kind: "insert" };
}

function keyChange(cls: ClassInfo, now: KeySource, before: KeySource): KeyChange {
  const setsOwnKey = now.definer === cls;
  const setOwnKey = before.definer?.name === cls.name;
  // Inherited both times from the same class: that class's value changed.
  const changedInBase = !setsOwnKey && !setOwnKey && now.definer !== undefined && now.definer.name === before.definer?.name;
  if (setsOwnKey || changedInBase) return { cls, now, before, site: { kind: "replace", node: changedExpression(now, before) } };
  return { cls, now, before, site: { kind: "insert" } };
}

/** The attribute's value, or the constant's string when the attribute names the same constant in both versions. */
function changedExpression(now: KeySource, before: KeySource): SyntaxNode {
  const assigned = now.assigned!;
  const sameConstant = assigned.type === "identifier" && before.assigned?.type === "identifier" && before.assigned.text === assigned.text;
  return sameConstant ? now.literal! : assigned;
}

/**
 * Whether fixing another reported change gives this class its committed key back: a class between it
 * and the one its key now comes from gets the same committed key inserted, or the string it now
 * inherits is restored to the same committed key. Then only that other change is reported.
 */
function restoredByAnother(model: SemanticModel, change: KeyChange, changes: readonly KeyChange[]): boolean {
  if (change.now.definer === change.cls) return false;
  const order = methodResolutionOrder(model, change.cls);
  if (!order) return false;
  const provider = change.now.definer ?? order.find((entry) => typeof entry === "string" && isResumableJobMixin(entry));
  const between = order.slice(1, provider ? order.indexOf(provider) : order.length);
  const providerNodes = [change.now.assigned, change.now.literal].filter((node): node is SyntaxNode => node !== undefined);
  return changes.some((other) => {
    if (other === change || other.before.value !== change.before.value) return false;
    if (other.site.kind === "insert") return between.includes(other.cls);
    const node = other.site.node;
    return change.site.kind === "insert" && providerNodes.some((n) => sameRange(n, node));
  });
}

function sameRange(a: SyntaxNode, b: SyntaxNode): boolean {
  return a.startIndex === b.startIndex && a.endIndex === b.endIndex;
}

/** Changes with the same fix (classes sharing a constant or a base's string) give one diagnostic. */
function groupBySite(changes: readonly KeyChange[]): KeyChange[][] {
  const groups = new Map<string, KeyChange[]>();
  for (const change of changes) {
    const { site } = change;
    const id = site.kind === "insert" ? `class ${change.cls.name}` : `${site.node.startIndex}:${site.node.endIndex}:${change.before.value}`;
    const group = groups.get(id);
    if (group) group.push(change);
    else groups.set(id, [change]);
  }
  return [...groups.values()];
}

function diagnostic(group: KeyChange[], text: string): Report {
  const [first] = group;
  const { cls, now, before, site } = first;
  const committed = literalText(before);
  const names = group.map((c) => `\`${c.cls.name}\``);
  const classes = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
  const stored = `Task instances of ${classes} that already submitted a job stored its id under the committed key \`${before.value}\`${origin(before, cls, "")}`;
  if (site.kind === "replace") {
    const restored = `${constantName(site.node) ?? ATTRIBUTE} = ${committed}`;
    return {
      node: site.node,
      message: `${stored}, so their retries find nothing under \`${now.value}\` and submit a duplicate job. Restore \`${restored}\`.`,
      fix: { title: `Restore the committed key ${committed}`, safe: false, kind: "quickfix", edits: [replaceNode(site.node, committed)] },
    };
  }
  const statement = `${ATTRIBUTE} = ${committed}`;
  const edit = insertFirstInClassBody(cls, statement, text);
  return {
    node: cls.nameNode,
    message: `${stored}, so their retries find nothing under \`${now.value}\`${origin(now, cls, "now ")} and submit a duplicate job. Set \`${statement}\` in \`${cls.name}\`${before.definer?.name === cls.name ? " again" : ""}.`,
    fix: edit && { title: `Set ${statement} in ${cls.name}`, safe: false, kind: "quickfix", edits: [edit] },
  };
}

/** " (the mixin's default)" or " (inherited from `Base`)"; nothing for the class's own key. */
function origin(key: KeySource, cls: ClassInfo, prefix: string): string {
  if (!key.definer) return ` (${prefix}the mixin's default)`;
  return key.definer.name === cls.name ? "" : ` (${prefix}inherited from \`${key.definer.name}\`)`;
}

/** The committed string as it was written, on one line. */
function literalText(key: KeySource): string {
  if (!key.literal) return DEFAULT_KEY_LITERAL;
  // Keys hold no backslash (those are not compared), so JSON's quoting is a valid Python string.
  return key.literal.text.includes("\n") ? JSON.stringify(key.value) : key.literal.text;
}

/** The constant a string is assigned to (`SPARK_KEY = "spark_job_id"`), unless that is `external_id_key` itself. */
function constantName(literal: SyntaxNode): string | undefined {
  let node = literal;
  while (node.parent?.type === "parenthesized_expression") node = node.parent;
  const assignment = node.parent;
  const target = assignment?.type === "assignment" && assignment.childForFieldName("right")?.id === node.id ? assignment.childForFieldName("left") : undefined;
  return target?.type === "identifier" && target.text !== ATTRIBUTE ? target.text : undefined;
}

/** The keys of the committed text, read once per lint from the `baselineText` input. */
const baselineKeysAnalysis = analysis("committed external_id_key values", (context) => {
  const text = context.baselineText ?? "";
  return resumableKeys(new SemanticModel(parsePython(text), text));
});
