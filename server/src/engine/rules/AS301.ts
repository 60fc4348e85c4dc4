import { insertFirstInClassBody } from "../fixes/classBody";
import { analysis } from "../context";
import { replaceNode } from "../fixes/edits";
import { parsePython, SyntaxNode } from "../syntax/parser";
import { Report, Rule } from "./rule";
import { ClassInfo, SemanticModel } from "../airflow/model";
import { DEFAULT_EXTERNAL_ID_KEY, EXTERNAL_ID_KEY, isAirflowBaseOperator, isResumableJobMixin } from "../airflow/resumableOperators";
import { plainString, unparenthesize } from "../syntax/nodes";
import { codeSpan } from "../syntax/markdown";

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
  inputs: { baseline: namesTheMixin },
  mayReport: ({ text, baselineText, facts }) => baselineText !== undefined && namesTheMixin(text) && facts.includes("class"),
  check(context) {
    const { model, text, baselineText, report } = context;
    if (baselineText === undefined) return;
    const orders = new ResolutionOrders(model);
    const current = resumableKeys(orders);
    if (current.size === 0) return;
    const committed = context.get(baselineKeysAnalysis);
    const changes: KeyChange[] = [];
    for (const [className, now] of current) {
      const before = committed.get(className);
      if (before && before.key.value !== now.key.value) changes.push(keyChange(now.cls, now.key, before.key));
    }
    const fixSites = fixSitesByKey(changes);
    const reported = changes.filter((change) => !restoredByAnother(orders, change, fixSites));
    for (const group of groupBySite(reported)) report(diagnostic(group, text));
  },
};

/** Only a class deriving from the mixin, which the file must name, can have a key to compare. */
function namesTheMixin(text: string): boolean {
  return text.includes("ResumableJobMixin");
}

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
function resumableKeys(orders: ResolutionOrders): Map<string, ResumableKey> {
  const { model } = orders;
  const keys = new Map<string, ResumableKey>();
  const inherited = new Map<Order, KeySource | null>();
  for (const cls of model.subclassesOf(isResumableJobMixin)) {
    if (!definedOnce(model, cls.name)) continue;
    const key = effectiveKey(orders, cls, inherited);
    if (key) keys.set(cls.name, { cls, key });
  }
  return keys;
}

function definedOnce(model: SemanticModel, name: string): boolean {
  return model.classesNamed(name).length === 1;
}

/**
 * The key `cls` uses at run time, following Python's attribute lookup: the first class in its method
 * resolution order that assigns `external_id_key`, or the mixin. Undefined when that is not known.
 */
function effectiveKey(orders: ResolutionOrders, cls: ClassInfo, inherited: Map<Order, KeySource | null>): KeySource | undefined {
  const own = ownKey(orders.model, cls);
  if (own !== "unset") return own === "unknown" ? undefined : own;
  const order = orders.of(cls);
  return order?.rest && inheritedKey(orders.model, order.rest, inherited);
}

/**
 * The key found first along `order`; `found` keeps the answer of each order walked, and orders share
 * their tails, so each class of a chain of subclasses is looked at once for all of them.
 */
function inheritedKey(model: SemanticModel, order: Order, found: Map<Order, KeySource | null>): KeySource | undefined {
  const walked: Order[] = [];
  let answer: KeySource | null = null;
  for (let entry: Order | undefined = order; entry; entry = entry.rest) {
    const known = found.get(entry);
    if (known !== undefined) {
      answer = known;
      break;
    }
    walked.push(entry);
    const { head } = entry;
    if (typeof head !== "string") {
      const own = ownKey(model, head);
      if (own === "unset") continue;
      answer = own === "unknown" ? null : own;
      break;
    }
    if (isResumableJobMixin(head)) answer = { value: DEFAULT_KEY };
    // A class from another file may set the key itself.
    if (isResumableJobMixin(head) || !setsNoKey(head)) break;
  }
  for (const entry of walked) found.set(entry, answer);
  return answer ?? undefined;
}

/** The key assigned in the class's own body: "unset" when none is, "unknown" when it is not a single string. */
function ownKey(model: SemanticModel, cls: ClassInfo): KeySource | "unset" | "unknown" {
  const bindings = cls.scope.own(ATTRIBUTE);
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

/** A method resolution order, as a list whose tail a class with one base shares with that base's order. */
interface Order {
  head: Ancestor;
  rest?: Order;
}

/**
 * The classes' method resolution orders (C3 linearisation, as Python computes it), with classes from
 * other files as opaque entries; each class's is worked out once, and chains of bases as long as the
 * file are followed with a stack, not recursion.
 */
class ResolutionOrders {
  /** null: a base cannot be resolved, the bases form a cycle, or the order is inconsistent. */
  private readonly orders = new Map<ClassInfo, Order | null>();

  constructor(readonly model: SemanticModel) {}

  of(cls: ClassInfo): Order | undefined {
    const visiting = new Set<ClassInfo>([cls]);
    const stack = [cls];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (this.orders.has(top)) {
        stack.pop();
        continue;
      }
      const bases = this.bases(top);
      const next = bases && bases.find((base): base is ClassInfo => typeof base !== "string" && !this.orders.has(base));
      if (next && !visiting.has(next)) {
        visiting.add(next);
        stack.push(next);
        continue;
      }
      // A base still being worked out is a cycle.
      this.orders.set(top, bases && !next ? this.linearise(top, bases) ?? null : null);
      visiting.delete(top);
      stack.pop();
    }
    return this.orders.get(cls) ?? undefined;
  }

  /** The bases as classes of the file or names of others; undefined when one cannot be resolved. */
  private bases(cls: ClassInfo): Ancestor[] | undefined {
    const bases: Ancestor[] = [];
    for (const name of cls.baseNames) {
      if (!name) return undefined;
      const local = this.model.classNamed(name);
      if (local && !definedOnce(this.model, name)) return undefined;
      bases.push(local ?? name);
    }
    return bases;
  }

  /** The order of `cls` from its bases', which are all known. */
  private linearise(cls: ClassInfo, bases: Ancestor[]): Order | undefined {
    const orderOf = (base: Ancestor): Order | undefined => (typeof base === "string" ? { head: base } : this.orders.get(base) ?? undefined);
    // With one base the merge keeps the base's order as it is.
    if (bases.length === 1) {
      const rest = orderOf(bases[0]);
      return rest && { head: cls, rest };
    }
    const orders: Ancestor[][] = [];
    for (const base of bases) {
      const order = orderOf(base);
      if (!order) return undefined;
      orders.push(entries(order));
    }
    const merged = mergeOrders([...orders, bases]);
    if (!merged) return undefined;
    let rest: Order | undefined;
    for (let i = merged.length - 1; i >= 0; i--) rest = { head: merged[i], rest };
    return { head: cls, rest };
  }
}

function entries(order: Order): Ancestor[] {
  const result: Ancestor[] = [];
  for (let entry: Order | undefined = order; entry; entry = entry.rest) result.push(entry.head);
  return result;
}

/** C3's merge. How often each ancestor stands behind the head of an order is counted, so checking a candidate head costs nothing. */
function mergeOrders(orders: Ancestor[][]): Ancestor[] | undefined {
  const behindHead = new Map<Ancestor, number>();
  for (const order of orders) for (let i = 1; i < order.length; i++) behindHead.set(order[i], (behindHead.get(order[i]) ?? 0) + 1);
  const heads = orders.map(() => 0);
  const result: Ancestor[] = [];
  for (;;) {
    let head: Ancestor | undefined;
    let remaining = false;
    for (const [k, order] of orders.entries()) {
      if (heads[k] >= order.length) continue;
      remaining = true;
      const candidate = order[heads[k]];
      if (!behindHead.get(candidate)) {
        head = candidate;
        break;
      }
    }
    if (!remaining) return result;
    if (head === undefined) return undefined;
    result.push(head);
    for (const [k, order] of orders.entries()) {
      if (order[heads[k]] !== head) continue;
      heads[k]++;
      if (heads[k] < order.length) behindHead.set(order[heads[k]], behindHead.get(order[heads[k]])! - 1);
    }
  }
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
function restoredByAnother(orders: ResolutionOrders, change: KeyChange, fixSites: Map<string, FixSites>): boolean {
  if (change.now.definer === change.cls) return false;
  const order = orders.of(change.cls);
  if (!order) return false;
  const sites = fixSites.get(change.before.value)!;
  if (change.site.kind === "insert" && [change.now.assigned, change.now.literal].some((node) => node && sites.replaced.has(rangeKey(node)))) return true;
  if (sites.inserted.size === 0) return false;
  // The classes between this one and the one its key now comes from, nearest first.
  const isProvider = (entry: Ancestor) => (change.now.definer ? entry === change.now.definer : typeof entry === "string" && isResumableJobMixin(entry));
  for (let entry = order.rest; entry && !isProvider(entry.head); entry = entry.rest) {
    if (typeof entry.head !== "string" && sites.inserted.has(entry.head)) return true;
  }
  return false;
}

/** What the fixes restoring one committed key edit: the classes given the key, and the ranges replaced with it. */
interface FixSites {
  inserted: Set<ClassInfo>;
  replaced: Set<string>;
}

/** The fix sites of the changes, by the committed key they restore. */
function fixSitesByKey(changes: readonly KeyChange[]): Map<string, FixSites> {
  const byKey = new Map<string, FixSites>();
  for (const change of changes) {
    let sites = byKey.get(change.before.value);
    if (!sites) byKey.set(change.before.value, (sites = { inserted: new Set(), replaced: new Set() }));
    if (change.site.kind === "insert") sites.inserted.add(change.cls);
    else sites.replaced.add(rangeKey(change.site.node));
  }
  return byKey;
}

function rangeKey(node: SyntaxNode): string {
  return `${node.startIndex}:${node.endIndex}`;
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
  const names = group.map((c) => codeSpan(c.cls.name));
  const classes = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
  const renamed = `\`external_id_key\` is no longer the committed key ${codeSpan(before.value)}${origin(before, cls, "")}: in-flight retries of ${classes} submit a duplicate job.`;
  const stored = "Task instances that already submitted a job stored its id under that key";
  if (site.kind === "replace") {
    const restored = `${constantName(site.node) ?? ATTRIBUTE} = ${committed}`;
    return {
      node: site.node,
      message: `${renamed} ${stored}, and their retries find nothing under ${codeSpan(now.value)}. Restore ${codeSpan(restored)}.`,
      fix: { title: `Restore the committed key ${committed}`, safe: false, kind: "quickfix", edits: [replaceNode(site.node, committed)] },
    };
  }
  const statement = `${ATTRIBUTE} = ${committed}`;
  const edit = insertFirstInClassBody(cls, statement, text);
  return {
    node: cls.nameNode,
    message: `${renamed} ${stored}, and their retries find nothing under ${codeSpan(now.value)}${origin(now, cls, "now ")}. Set ${codeSpan(statement)} in ${codeSpan(cls.name)}${before.definer?.name === cls.name ? " again" : ""}.`,
    fix: edit && { title: `Set ${statement} in ${cls.name}`, safe: false, kind: "quickfix", edits: [edit] },
  };
}

/** " (the mixin's default)" or " (inherited from `Base`)"; nothing for the class's own key. */
function origin(key: KeySource, cls: ClassInfo, prefix: string): string {
  if (!key.definer) return ` (${prefix}the mixin's default)`;
  return key.definer.name === cls.name ? "" : ` (${prefix}inherited from ${codeSpan(key.definer.name)})`;
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
  return resumableKeys(new ResolutionOrders(new SemanticModel(parsePython(text), text)));
});
