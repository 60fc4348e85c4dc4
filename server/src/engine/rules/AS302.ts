import { docstringOf } from "../fixes/classBody";
import { SyntaxNode } from "../syntax/parser";
import { Rule } from "./rule";
import { Fix } from "../types";
import { FunctionInfo } from "../airflow/model";
import { ownDescendants } from "../python/controlFlow";
import { MIXIN_PROVIDER_OPERATORS, ResumableOperators } from "../airflow/resumableOperators";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks the `execute()` method of `ResumableJobMixin` operator classes (classes deriving from the
 * mixin directly or through other classes, including classes of other modules of the workspace): it
 * must return `self.execute_resumable(context)`. The rule reports an `execute()` that never calls
 * `execute_resumable` (and does not delegate to `super().execute(...)`), and one that calls it but
 * throws its result away. An `execute()` that does more around a returned `execute_resumable` call
 * (preparing a hook, deferring when `deferrable=True`) is left alone.
 *
 * A class counts as a `ResumableJobMixin` operator when at most 16 classes stand between it and the
 * mixin in its chain of bases, as for every rule about these operators; one further down is not
 * checked.
 *
 * ## Why is this bad?
 * `execute_resumable` is what makes the operator crash-safe: it reads the job id stored by an earlier
 * try, reconnects to a job that is still running, returns the result of one that already succeeded,
 * and only submits a new job otherwise. An `execute()` that submits and polls by itself never reads
 * the stored id, so a retry after a worker crash submits a duplicate job. One that calls
 * `execute_resumable` without returning its value makes the task return `None`: the job's result is
 * not pushed to XCom.
 *
 * ## Example
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def execute(self, context):
 *         job_id = self.submit_job(context)
 *         self.poll_until_complete(job_id, context)
 * ```
 *
 * ## Use instead
 * ```python
 * class BatchOperator(ResumableJobMixin, BaseOperator):
 *     def execute(self, context):
 *         return self.execute_resumable(context)
 * ```
 *
 * ## Fix safety
 * The fix replaces the body of `execute()` (keeping its docstring) with
 * `return self.execute_resumable(context)`, using the method's own name for the context parameter.
 * It is unsafe: it discards whatever else the body did, which may have been needed (setting up a
 * client, logging, pushing extra XComs).
 */
export const AS302: Rule = {
  code: "AS302",
  name: "execute-not-resumable",
  summary: "`execute()` of a ResumableJobMixin operator does not `return self.execute_resumable(context)`",
  defaultSeverity: "error",
  category: "crash",
  fix: "unsafe",
  inputs: { workspace: true },
  mayReport: ({ workspace, facts }) => facts.includes("execute") && facts.includes("class") && (workspace !== undefined || facts.mentionsAny(["ResumableJobMixin", ...MIXIN_PROVIDER_OPERATORS])),
  check(context) {
    const { model, report } = context;
    if (!model.text.includes("execute")) return;
    const resumable = ResumableOperators.of(context);
    for (const cls of resumable.classes) {
      const execute = cls.methods.get("execute");
      // A body that does not parse may hold the call where the parser could not read it.
      if (!execute || execute.node.type !== "function_definition" || execute.node.hasError) continue;
      const problem = executeProblem(execute, cls.bases.map((b) => b.text));
      if (!problem) continue;
      const contextName = contextParameter(execute);
      const call = `self.execute_resumable(${contextName ?? "context"})`;
      report({
        node: execute.nameNode,
        message:
          problem === "never-called"
            ? `${codeSpan(`${cls.name}.execute()`)} never calls ${codeSpan(call)}: a retry after a worker crash submits the job again. The job id stored by an earlier try is never read; make the body ${codeSpan(`return ${call}`)}.`
            : `${codeSpan(`${cls.name}.execute()`)} drops the result of \`execute_resumable\`: the task returns \`None\`, not the job's result. Make it ${codeSpan(`return ${call}`)}.`,
        fix: contextName ? replaceBody(execute, `return self.execute_resumable(${contextName})`) : undefined,
      });
    }
  },
};

type Problem = "never-called" | "result-dropped";

function executeProblem(execute: FunctionInfo, bases: readonly string[]): Problem | undefined {
  const self = execute.parameters[0]?.kind === "positional" ? execute.parameters[0].name : undefined;
  if (!self) return undefined;
  let dropped = false;
  let called = false;
  for (const call of ownCalls(execute)) {
    const fn = call.childForFieldName("function");
    if (fn?.type !== "attribute") continue;
    const object = fn.childForFieldName("object");
    const attribute = fn.childForFieldName("attribute")?.text;
    if (attribute === "execute_resumable" && object?.type === "identifier" && object.text === self) {
      called = true;
      const parent = call.parent;
      if (parent?.type === "return_statement") return undefined;
      if (parent?.type === "expression_statement") dropped = true;
    }
    // `super().execute(context)` or `Base.execute(self, context)`: the base class decides.
    if (attribute === "execute" && object && (isSuperCall(object) || bases.includes(object.text))) return undefined;
  }
  if (!called) return "never-called";
  return dropped ? "result-dropped" : undefined;
}

function isSuperCall(node: SyntaxNode): boolean {
  return node.type === "call" && node.childForFieldName("function")?.text === "super";
}

/** Calls in the method's own body, not in functions, classes or lambdas nested in it. */
function ownCalls(fn: FunctionInfo): SyntaxNode[] {
  const body = fn.node.childForFieldName("body");
  return body ? ownDescendants(body, "call") : [];
}

/** The name of `execute`'s context parameter: its second positional parameter. */
function contextParameter(execute: FunctionInfo): string | undefined {
  const parameter = execute.parameters[1];
  return parameter && parameter.kind === "positional" ? parameter.name : undefined;
}

/**
 * Replaces the body's statements, and the comments among them that describe them, with `statement`;
 * the docstring and a comment ending the `def` line or the last statement's line stay.
 */
function replaceBody(execute: FunctionInfo, statement: string): Fix | undefined {
  const body = execute.node.childForFieldName("body");
  const colon = execute.node.children.find((c) => c.type === ":");
  if (!body || !colon) return undefined;
  const docstring = docstringOf(body);
  // tree-sitter may attach a comment that opens the body to the function rather than to the body.
  const opening = execute.node.children.filter((c) => c.type === "comment" && c.startIndex > colon.endIndex && c.startIndex < body.startIndex && !docstring);
  const children = [...opening, ...body.namedChildren.filter((c) => c.id !== docstring?.id)];
  const statements = children.filter((c) => c.type !== "comment");
  const first = children.find((c) => c.type !== "comment" || c.startPosition.row > colon.endPosition.row);
  const last = statements[statements.length - 1];
  if (!first || !last) return undefined;
  return {
    title: `Replace the body with ${codeSpan(statement)}`,
    safe: false,
    kind: "quickfix",
    edits: [{ start: first.startIndex, end: last.endIndex, newText: statement }],
  };
}
