/**
 * Generates a `ResumableJobMixin` operator class from a hand-written reconnect-or-submit (AS404's
 * rewrite). The calls the hand-written code makes become the methods' bodies — the call whose
 * result is the new job id becomes `submit_job`, the calls that wait for the job
 * `poll_until_complete`, a status call in the `if` `get_job_status` and what it is compared with
 * `is_job_active` — and the methods nothing fills are stubs that raise `NotImplementedError` under a
 * TODO. The old code stays for the user to remove.
 *
 * The class derives from the operator whose `execute` held the code (so `self.hook` and its helpers
 * keep working), or from `BaseOperator` for a task function, whose parameters become keyword
 * arguments of the constructor and whose context keys are read from `context`.
 */
import { ensureImported, insertAt } from "./edits";
import { SyntaxNode } from "../syntax/parser";
import { FunctionInfo, SemanticModel } from "../airflow/model";
import { isAirflowBaseOperator, isResumableJobMixin, snakeCaseClassName } from "../airflow/resumableOperators";
import { indentationOf } from "../syntax/nodes";
import { CONTEXT_KEYS, ReconnectOrSubmit } from "../airflow/variablesAndXcom";
import { Fix, TextEdit } from "../types";

const EXTERNAL_ID = "external_id";
const CONTEXT = "context";
/** Names that may be used as an `external_id_key` as they are: short identifiers. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface GeneratedOperator {
  className: string;
  /** The `external_id_key` the class stores the job id under. */
  key: string;
}

/** The class name and key the rewrite would use for a pattern, before making the name unique in the file. */
export function plannedOperator(pattern: ReconnectOrSubmit): GeneratedOperator {
  const { fn } = pattern.state.task;
  const className = pattern.state.task.kind === "execute" ? `Resumable${fn.enclosingClass!.name}` : `${capWords(fn.name)}Operator`;
  const value = pattern.state.keyValue;
  return { className, key: value !== undefined && PLAIN_KEY.test(value) ? value : `${snakeCaseClassName(className)}_id` };
}

/** The rewrite adding the generated class (and its imports), or undefined when the code cannot be placed or copied. */
export function generateOperatorFix(model: SemanticModel, pattern: ReconnectOrSubmit): Fix | undefined {
  const { task } = pattern.state;
  const { fn } = task;
  const planned = plannedOperator(pattern);
  const className = freeName(model, planned.className);
  const eol = model.text.includes("\r\n") ? "\r\n" : "\n";
  const unit = indentUnit(model, fn);

  const edits: TextEdit[] = [];
  const mixin = importedName(model, "ResumableJobMixin", isResumableJobMixin, edits);
  let base: string;
  if (task.kind === "execute") {
    const cls = fn.enclosingClass!;
    if (model.module.unique(cls.name)?.kind !== "class" || cls.scope.parent !== model.module) return undefined;
    base = cls.name;
  } else {
    if (fn.parameters.some((p) => p.kind === "var-positional")) return undefined;
    base = importedName(model, "BaseOperator", isAirflowBaseOperator, edits);
  }

  const copier = new CodeCopier(model, pattern);
  const submit = copier.statements([pattern.submitCall], true);
  const waits = copier.statements(pattern.waitCalls, false);
  const statusCall = pattern.checkCalls.find((call) => /status|state/i.test(calleeName(call)));
  const status = statusCall && copier.statements([statusCall], true);
  const checked = pattern.checkCalls.filter((call) => call !== statusCall).map((call) => `\`${oneLine(call.text)}\``);

  const lines: string[] = [`class ${className}(${mixin}, ${base}):`];
  const body = (text: string) => lines.push(text === "" ? "" : `${unit}${text}`);
  const method = (header: string, statements: string[]) => {
    body("");
    body(header);
    for (const statement of statements) lines.push(...statement.split("\n").map((line) => (line === "" ? "" : `${unit}${unit}${line}`)));
  };
  const origin = task.kind === "execute" ? `${fn.enclosingClass!.name}.execute` : fn.name;
  body(`# Generated from the hand-written reconnect-or-submit in \`${origin}\`.`);
  body(`# TODO: run the task with this operator, then remove that code and the Variable`);
  body(`# ${pattern.state.key.text} it kept the job id in.`);
  const unknown = copier.invisibleNames();
  if (unknown.length > 0) body(`# TODO: define ${unknown.map((n) => `\`${n}\``).join(", ")} here: ${unknown.length > 1 ? "they were" : "it was"} local to \`${origin}\`.`);
  body(`external_id_key = "${planned.key}"`);
  const initParameters = copier.constructorParameters();
  if (initParameters.length > 0) {
    const signature = initParameters.map((p) => (p.default ? `${p.name}=${p.default}` : p.name)).join(", ");
    method(`def __init__(self, *, ${signature}, **kwargs):`, ["super().__init__(**kwargs)", ...initParameters.map((p) => `self.${p.name} = ${p.name}`)]);
  }
  method(`def execute(self, ${CONTEXT}):`, [`return self.execute_resumable(${CONTEXT})`]);
  method(`def submit_job(self, ${CONTEXT}):`, submit);
  method(
    `def get_job_status(self, ${EXTERNAL_ID}, ${CONTEXT}) -> str:`,
    status ? status : stub("return the job's status from the external system.", ...(checked.length > 0 ? [`The hand-written code checked ${checked.join(" and ")}.`] : [])),
  );
  const active = statusCall && activeTest(model, pattern, statusCall);
  method("def is_job_active(self, status) -> bool:", active ? [`return ${active}`] : stub("return whether `status` means the job is still running."));
  method("def is_job_succeeded(self, status) -> bool:", stub("return whether `status` means the job succeeded."));
  method(`def poll_until_complete(self, ${EXTERNAL_ID}, ${CONTEXT}) -> None:`, waits);
  method(`def get_job_result(self, ${EXTERNAL_ID}, ${CONTEXT}):`, stub("return the job's result (what the task returns), or None."));
  const classText = lines.join("\n").replace(/\n/g, eol);

  const placement = placeClass(model, task.kind === "execute" ? fn.enclosingClass!.node : fn.node);
  if (!placement) return undefined;
  edits.push(placement.after ? insertAt(placement.offset, `${eol}${eol}${eol}${classText}`) : insertAt(placement.offset, `${classText}${eol}${eol}${eol}`));
  return {
    title: `Generate \`${className}\`, a ResumableJobMixin operator for this job (the hand-written code stays)`,
    safe: false,
    kind: "refactor.rewrite",
    edits: mergeInsertions(edits),
  };
}

/**
 * What the hand-written condition compared the status with when it chose to reconnect
 * (`if job_id and status(job_id) in ("RUNNING", "PENDING")`), as a test of `status`. Only a comparison
 * that must hold for the `if` branch to reconnect: the whole condition, or one operand of an `and`.
 */
function activeTest(model: SemanticModel, pattern: ReconnectOrSubmit, statusCall: SyntaxNode): string | undefined {
  if (!pattern.reconnectWhenTrue) return undefined;
  const conjuncts: SyntaxNode[] = [];
  // `a and b and c` nests to the left as deep as the condition is long: a stack, right side pushed first.
  const pending = [pattern.branch.childForFieldName("condition")!];
  for (let node = pending.pop(); node; node = pending.pop()) {
    const operator = node.type === "boolean_operator" ? node.childForFieldName("operator")?.type : undefined;
    if (operator === "and") {
      for (const side of [node.childForFieldName("right"), node.childForFieldName("left")]) if (side) pending.push(side);
    } else conjuncts.push(node.type === "parenthesized_expression" && node.namedChildCount === 1 ? node.namedChildren[0] : node);
  }
  for (const comparison of conjuncts) {
    if (comparison.type !== "comparison_operator" || comparison.namedChildren[0]?.id !== statusCall.id || comparison.namedChildCount !== 2) continue;
    const operator = comparison.children.find((c) => !c.isNamed)?.type;
    if (operator !== "in" && operator !== "==") continue;
    const other = comparison.namedChildren[1];
    // The compared values must mean the same in the class: literals, or names of the module (`RUNNING_STATES`).
    const names = other.type === "identifier" ? [other] : other.descendantsOfType("identifier");
    if (names.some((name) => (model.scopeOf(name).lookup(name.text)?.[0].scope ?? model.module) !== model.module)) continue;
    return `status ${operator} ${other.text}`;
  }
  return undefined;
}

/** A body that raises under a TODO comment (its further lines are comments too). */
function stub(todo: string, ...more: string[]): string[] {
  return [`# TODO: ${todo}`, ...more.map((line) => `# ${line}`), "raise NotImplementedError"];
}

/** Where the class goes: after the top-level definition holding `node`, or before the top-level statement (a DAG) holding it. */
function placeClass(model: SemanticModel, node: SyntaxNode): { offset: number; after: boolean } | undefined {
  const top = model.root.namedChildren.find((c) => c.startIndex <= node.startIndex && c.endIndex >= node.endIndex);
  if (!top) return undefined;
  const definition = top.type === "decorated_definition" ? top.childForFieldName("definition") : top;
  if (definition?.id === node.id) {
    const newline = model.text.indexOf("\n", top.endIndex);
    const end = newline < 0 ? model.text.length : model.text[newline - 1] === "\r" ? newline - 1 : newline;
    return { offset: end, after: true };
  }
  // Before the DAG, and before the comment lines that introduce it.
  let start = top;
  const siblings = model.root.children;
  for (let i = siblings.findIndex((s) => s.id === top.id) - 1; i >= 0; i--) {
    const previous = siblings[i];
    if (previous.type !== "comment" || previous.endPosition.row !== start.startPosition.row - 1) break;
    start = previous;
  }
  return { offset: start.startIndex - start.startPosition.column, after: false };
}

/** The name an import of the file gives a class (`ResumableJobMixin`), or the edits importing it from `airflow.sdk`. */
function importedName(model: SemanticModel, name: string, matches: (qualifiedName: string) => boolean, edits: TextEdit[]): string {
  for (const [bound, bindings] of model.module.bindings) {
    if (bindings.length === 1 && bindings[0].kind === "import" && bindings[0].qualifiedName && matches(bindings[0].qualifiedName)) return bound;
  }
  const imported = ensureImported(model, "airflow.sdk", name);
  edits.push(...imported.edits);
  return imported.reference;
}

/** Two imports added at the same place become one edit, in order (`, BaseOperator, ResumableJobMixin`), and two new `from airflow.sdk import` lines one line. */
function mergeInsertions(edits: TextEdit[]): TextEdit[] {
  const result: TextEdit[] = [];
  for (const edit of edits) {
    const same = result.find((e) => e.start === edit.start && e.end === edit.start && edit.end === edit.start);
    if (!same) {
      result.push({ ...edit });
      continue;
    }
    const lines = /^from airflow\.sdk import (.+?)(\r?\n)$/;
    const a = lines.exec(same.newText);
    const b = lines.exec(edit.newText);
    same.newText = a && b ? `from airflow.sdk import ${a[1]}, ${b[1]}${a[2]}` : same.newText + edit.newText;
  }
  return result;
}

function freeName(model: SemanticModel, wanted: string): string {
  const taken = (name: string) => model.module.lookup(name) !== undefined || model.classes.some((c) => c.name === name);
  let name = wanted;
  for (let n = 2; taken(name); n++) name = `${wanted}${n}`;
  return name;
}

/** `run_spark_job` → `RunSparkJob`. */
function capWords(name: string): string {
  return name
    .split("_")
    .filter((part) => part.length > 0)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}

/** One level of indentation as the task's own body uses it. */
function indentUnit(model: SemanticModel, fn: FunctionInfo): string {
  const first = fn.node.childForFieldName("body")?.namedChildren[0];
  const inner = first ? indentationOf(first, model.text) : "";
  const outer = indentationOf(fn.node, model.text);
  const unit = inner.startsWith(outer) ? inner.slice(outer.length) : "";
  return unit.length > 0 ? unit : "    ";
}

function calleeName(call: SyntaxNode): string {
  const fn = call.childForFieldName("function");
  return (fn?.type === "attribute" ? fn.childForFieldName("attribute")?.text : fn?.text) ?? "";
}

function oneLine(text: string): string {
  // Tried only where a run of white space starts: from every position of a long run it would be quadratic.
  const flat = text.replace(/(?<!\s)\s*\n\s*/g, " ");
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}

interface ConstructorParameter {
  name: string;
  default?: string;
}

/**
 * Copies expressions of the task into the generated class, renaming what means something else there:
 * the job id becomes `external_id`, the context `context`, a context key parameter `context["ti"]`,
 * another parameter of a task function `self.<name>` (a constructor argument); `self` of `execute`
 * stays `self`. A name local to the task that is assigned once before the copied code (`hook =
 * SparkHook(conn_id)`) is assigned again at the top of the method; other local names are kept and
 * listed for a TODO.
 */
class CodeCopier {
  private readonly parameters = new Map<string, ConstructorParameter>();
  private readonly invisible = new Set<string>();
  private readonly fn: FunctionInfo;

  constructor(
    private readonly model: SemanticModel,
    private readonly pattern: ReconnectOrSubmit,
  ) {
    this.fn = pattern.state.task.fn;
  }

  /** The lines of a method body running `nodes` in order, the last one returned when `returns`. */
  statements(nodes: readonly SyntaxNode[], returns: boolean): string[] {
    const locals = new Map<string, { at: number; text: string }>();
    const copied = nodes.map((node) => this.expression(node, locals, 0));
    if (returns) copied[copied.length - 1] = `return ${copied[copied.length - 1]}`;
    const assignments = [...locals.entries()].sort((a, b) => a[1].at - b[1].at).map(([name, local]) => `${name} = ${local.text}`);
    return [...assignments, ...copied];
  }

  constructorParameters(): ConstructorParameter[] {
    return [...this.parameters.values()];
  }

  invisibleNames(): string[] {
    return [...this.invisible];
  }

  private expression(node: SyntaxNode, locals: Map<string, { at: number; text: string }>, depth: number): string {
    const replacements: { start: number; end: number; text: string }[] = [];
    const identifiers = node.type === "identifier" ? [node] : node.descendantsOfType("identifier");
    for (const identifier of identifiers) {
      const replacement = this.rename(identifier, locals, depth);
      if (replacement !== undefined) replacements.push({ start: identifier.startIndex, end: identifier.endIndex, text: replacement });
    }
    let text = node.text;
    for (const r of replacements.sort((a, b) => b.start - a.start)) {
      text = text.slice(0, r.start - node.startIndex) + r.text + text.slice(r.end - node.startIndex);
    }
    // Continuation lines keep their indentation relative to the statement.
    const base = indentationOf(node, this.model.text);
    return text
      .replace(/\r\n/g, "\n")
      .split("\n")
      .map((line, i) => (i > 0 && line.startsWith(base) ? line.slice(base.length) : line))
      .join("\n");
  }

  private rename(identifier: SyntaxNode, locals: Map<string, { at: number; text: string }>, depth: number): string | undefined {
    const parent = identifier.parent;
    if (parent?.type === "attribute" && parent.childForFieldName("attribute")?.id === identifier.id) return undefined;
    if (parent?.type === "keyword_argument" && parent.childForFieldName("name")?.id === identifier.id) return undefined;
    const name = identifier.text;
    if (name === this.pattern.jobId) return EXTERNAL_ID;
    const bindings = this.model.scopeOf(identifier).lookup(name);
    const scope = bindings?.[0].scope;
    if (!bindings || !scope || scope === this.model.module) return undefined;
    const { fn } = this;
    const parameter = scope === fn.scope ? fn.parameters.find((p) => p.name === name) : undefined;
    if (this.pattern.state.task.kind === "execute") {
      if (parameter && parameter === fn.parameters[0]) return "self";
      if (parameter && parameter === fn.parameters[1]) return CONTEXT;
    } else if (parameter) {
      if (parameter.kind === "var-keyword") return CONTEXT;
      if (CONTEXT_KEYS.has(name)) return `${CONTEXT}["${name}"]`;
      if (!this.parameters.has(name)) this.parameters.set(name, { name, default: parameter.default?.text });
      return `self.${name}`;
    }
    // `hook = SparkHook(conn_id)` before the copied code: assigned again in the method.
    const binding = bindings.length === 1 ? bindings[0] : undefined;
    if (!locals.has(name) && binding?.kind === "assign" && binding.value && scope === fn.scope && binding.target.startIndex < identifier.startIndex && depth < 4) {
      locals.set(name, { at: binding.target.startIndex, text: "" });
      locals.set(name, { at: binding.target.startIndex, text: this.expression(binding.value, locals, depth + 1) });
      return undefined;
    }
    if (!locals.has(name)) this.invisible.add(name);
    return undefined;
  }
}
