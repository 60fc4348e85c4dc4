/**
 * A Markdown review of one DAG file, as the seed guidance asks a reviewer to write it, made
 * deterministic: every finding of every enabled rule, grouped by the guidance's categories, with why
 * it matters at run time and a before/after snippet taken from its own fix or rewrite (the fix applied
 * to the file's text, the changed lines shown with some context). For a submit-and-poll split, the
 * trade-off of Section 6 (Triggerer, job length, worker slots) is spelled out without declaring one
 * answer right, with both one-task rewrites side by side.
 *
 * The same file and options always give the same text: no dates, no absolute paths beyond what the
 * caller passes as the title.
 */
import * as path from "node:path";
import { PythonDocument } from "../syntax/document";
import { codeSpan } from "../syntax/markdown";
import { applyEdits } from "../fixes/edits";
import { AnalysisContext } from "../context";
import { check, enabledRules, LintOptions } from "../linter";
import { pinStatement } from "../project/pin";
import { RuleCategory } from "../rules/rule";
import { ruleByCode } from "../rules";
import { SemanticModel, semanticModel } from "../airflow/model";
import { SubmitAndPoll, submitAndPollSplits, WaitTask } from "../airflow/submitAndPoll";
import { collapseSplit, taskName } from "../fixes/submitAndPollRewrites";
import { Diagnostic, Fix, Severity, TextEdit } from "../types";
import { alsoAtLines, relatedLines } from "./relatedLines";

export interface ReviewOptions extends LintOptions {
  /** How the review names the file (a path relative to the workspace); by default the file name of `path` or of the document's URI. */
  title?: string;
  /** Lines of unchanged code shown around the changed ones in before/after snippets; 2 by default. */
  contextLines?: number;
}

export interface ReviewCategory {
  id: RuleCategory | "other";
  title: string;
  /** What goes wrong at run time when code falls into this category. */
  why: string;
}

/** The guidance's categories, in the order the review presents them. */
export const REVIEW_CATEGORIES: readonly ReviewCategory[] = [
  {
    id: "syntax",
    title: "Syntax",
    why: "A file Python cannot parse raises `SyntaxError` when it is imported: Airflow records an import error and loads none of its DAGs. The other findings cover only what the parser could read.",
  },
  {
    id: "values",
    title: "Values and keys",
    why: "The stores keep JSON values under short string keys. A value they refuse fails the task on the very line meant to record its progress (`None` raises `ValueError`, an integer `retention` raises `TypeError`), NaN and values over the size limit are refused by the REST API, naive timestamps compare wrongly across time zones, and keys with dots or slashes are awkward to address in the UI and the API.",
  },
  {
    id: "scope",
    title: "Scope and injection",
    why: "A task reaches a store through what Airflow injects when it starts: a context key or parameter shape Airflow does not provide raises `KeyError` or `ValueError` before any work is done. Scope decides who sees an entry: the task store belongs to one task instance and map index, the asset store to one asset across every DAG and every map index, so a shared key is overwritten by the last writer.",
  },
  {
    id: "crash",
    title: "Crash safety (ResumableJobMixin)",
    why: "`ResumableJobMixin` stores the external job id so that a retry after a worker crash reconnects to the running job instead of submitting it again. A renamed `external_id_key`, an `execute` that bypasses `execute_resumable`, a `submit_job` that returns `None`, `durable=False` or `retries=0` each quietly bring duplicate jobs back; a missing method fails the DAG when it is parsed.",
  },
  {
    id: "state",
    title: "State in the wrong place (Variables, XCom)",
    why: "Variables are global to the deployment: per-run state kept there is shared by every run and every DAG that reads the key, and any of them can overwrite a watermark. XCom is cleared when a task retries, so a job id pushed to survive a retry is gone on the retry that needs it. The task store survives retries of one task instance; the asset store holds state for one asset.",
  },
  {
    id: "submit",
    title: "Submit-and-poll",
    why: "A submit task that does not wait turns green when the external system accepts the job, not when the job succeeds: only the task that waits knows the outcome. Whether to keep the split depends on the deployment (a Triggerer, the job's length, free worker slots), and whatever needs the outcome must depend on the waiting task.",
  },
  {
    id: "version",
    title: "Airflow version",
    why: "The state stores and `ResumableJobMixin` exist from Airflow 3.3 on. Below it the stores are missing when the task runs, and the providers' shim of the mixin stores no job id, so `durable=True` does nothing and every retry after a crash submits the job again.",
  },
  {
    id: "other",
    title: "Other findings",
    why: "Findings of rules this review has no category for.",
  },
];

/** The category a rule's findings are reviewed under. */
export function reviewCategory(code: string): ReviewCategory {
  const id = ruleByCode(code)?.category ?? "other";
  return REVIEW_CATEGORIES.find((c) => c.id === id)!;
}

const SEVERITY_ORDER: readonly Severity[] = ["error", "warning", "info", "hint"];
const DEFAULT_CONTEXT_LINES = 2;

/** The review of `document` as Markdown. */
export function reviewMarkdown(document: PythonDocument, options: ReviewOptions = {}): string {
  const text = document.analysedText();
  const { diagnostics, context: analyses } = check(document, { ...options, fixEdits: true });
  const splits = analyses ? splitsToDescribe(analyses, options, diagnostics) : [];
  const context = options.contextLines ?? DEFAULT_CONTEXT_LINES;
  const title = options.title ?? path.basename(options.path ?? decodeURIComponent(document.uri.replace(/^[a-z]+:\/\//i, "")));

  const out: string[] = [`# Airflow state store review: ${codeSpan(title)}`, ""];
  out.push(summaryLine(diagnostics), "");
  if (options.airflowPin) out.push(`Airflow version: ${inlineMarkdown(pinStatement(options.airflowPin, options.path))}.`, "");

  const groups = REVIEW_CATEGORIES.map((category) => ({ category, findings: diagnostics.filter((d) => reviewCategory(d.code) === category) }));
  const splitNotes = splits.filter((s) => !s.finding);
  const shown = groups.filter((g) => g.findings.length > 0 || (g.category.id === "submit" && splitNotes.length > 0));
  if (diagnostics.length > 0) {
    out.push("| Category | Findings |", "|---|---|");
    for (const group of groups) if (group.findings.length > 0) out.push(`| ${group.category.title} | ${group.findings.length} |`);
    out.push("");
  }

  let number = 0;
  for (const { category, findings } of shown) {
    out.push(`## ${category.title}`, "", `**Why it matters at run time.** ${category.why}`, "");
    for (const finding of findings) {
      number++;
      const also = alsoAtLines(relatedLines(finding));
      out.push(`### ${number}. ${finding.code} \`${finding.name}\` (${finding.severity}, line ${finding.range.start.line + 1})`, "", paragraph(also ? `${finding.message} (${also})` : finding.message), "");
      const split = splits.find((s) => s.finding === finding);
      if (split) out.push(...splitSection(text, split, context, finding.fix));
      else out.push(...fixSection(text, finding.fix, context));
    }
    if (category.id === "submit") {
      for (const split of splitNotes) {
        out.push(inlineMarkdown(`### Split kept: ${taskName(split.split.submit)} then ${taskName(waitingTask(split.split).task)}`), "");
        out.push(...tradeOff(split.split).map(inlineMarkdown));
      }
    }
  }
  while (out[out.length - 1] === "") out.pop();
  return out.join("\n") + "\n";
}

interface DescribedSplit {
  split: SubmitAndPoll;
  /** The AS405 finding on the split's submit call, when there is one. */
  finding?: Diagnostic;
  model: SemanticModel;
}

/** The file's submit-and-poll splits, when AS405 is among the enabled rules, each with its AS405 finding. */
function splitsToDescribe(context: AnalysisContext, options: ReviewOptions, diagnostics: readonly Diagnostic[]): DescribedSplit[] {
  if (!enabledRules(options).some((r) => r.code === "AS405")) return [];
  const model = context.get(semanticModel);
  return submitAndPollSplits(context).map((split) => ({
    split,
    model,
    finding: diagnostics.find((d) => d.code === "AS405" && d.startOffset === split.submit.call.node.startIndex),
  }));
}

function summaryLine(diagnostics: readonly Diagnostic[]): string {
  if (diagnostics.length === 0) return "No findings: every enabled rule passes on this file.";
  const bySeverity = SEVERITY_ORDER.map((severity) => [severity, diagnostics.filter((d) => d.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => `${n} ${severity === "info" ? "info" : n === 1 ? severity : `${severity}s`}`);
  const categories = new Set(diagnostics.map((d) => reviewCategory(d.code).id)).size;
  const safe = diagnostics.filter((d) => d.fix?.safe).length;
  const rewrites = diagnostics.filter((d) => d.fix && !d.fix.safe).length;
  const parts = [`**${plural(diagnostics.length, "finding")}** (${bySeverity.join(", ")}) in ${plural(categories, "category", "categories")}.`];
  if (safe > 0) parts.push(safe === 1 ? "1 has a safe fix (`--fix` applies it)." : `${safe} have safe fixes (\`--fix\` applies them).`);
  if (rewrites > 0) {
    parts.push(rewrites === 1 ? "1 comes with a rewrite to review before applying, since it changes what the DAG does." : `${rewrites} come with rewrites to review before applying, since they change what the DAG does.`);
  }
  return parts.join(" ");
}

function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}

function fixSection(text: string, fix: Fix | undefined, context: number): string[] {
  if (!fix) return ["No automatic fix: the change depends on what the code is for.", ""];
  const label = fix.safe ? "Fix (safe)" : fix.kind === "refactor.rewrite" ? "Rewrite (changes behaviour; review it)" : "Fix (unsafe: changes behaviour; review it)";
  return [`**${label}:** ${inlineMarkdown(fix.title)}`, "", ...snippet(text, fix.edits, context)];
}

/** An AS405 finding: both one-task rewrites, then the trade-off between them and the split. */
function splitSection(text: string, described: DescribedSplit, context: number, fix: Fix | undefined): string[] {
  const { split, model } = described;
  const out: string[] = [];
  const durable = collapseSplit(model, split, "durable");
  if (!fix && !durable) {
    out.push("No automatic rewrite: the waiting task cannot be folded into the submit task exactly (its result is used elsewhere, or its dependencies cannot be moved as written).", "");
  }
  if (fix) out.push(`**Rewrite A, with a Triggerer (changes behaviour; review it):** ${inlineMarkdown(fix.title)}`, "", ...snippet(text, fix.edits, context));
  if (durable) out.push(`**Rewrite B, without a Triggerer (changes behaviour; review it):** ${inlineMarkdown(durable.title)}`, "", ...snippet(text, durable.edits, context));
  out.push(...tradeOff(split).map(inlineMarkdown));
  return out;
}

function waitingTask(split: SubmitAndPoll): WaitTask {
  return split.waits.find((w) => !w.freesSlot) ?? split.waits[0];
}

/** Section 6 of the guidance for one split, in the split's own names. */
function tradeOff(split: SubmitAndPoll): string[] {
  const submit = taskName(split.submit);
  const wait = waitingTask(split);
  const waitName = taskName(wait.task);
  const keyword = split.noWait.name;
  const current =
    wait.freesSlot === "reschedule"
      ? `${waitName} runs in \`mode="reschedule"\` and frees its worker slot between checks: this is the third shape below.`
      : wait.freesSlot === "deferrable"
        ? `${waitName} defers to a Triggerer between checks, so one is deployed: the first shape below applies too, in one task instead of two.`
        : wait.kind === "sensor"
          ? `${waitName} waits in poke mode: it holds a worker slot for the job's whole run, as one task would, so the split frees nothing.`
          : `${waitName} polls in a task of its own: it holds a worker slot for the job's whole run, as one task would, so the split frees nothing.`;
  const durableShape = split.durable
    ? `one task with \`${keyword}=True, durable=True\` (both are the operator's defaults). It holds a worker slot for the job's whole run, and \`ResumableJobMixin\` protects submit and poll alike: a retry after a worker crash reconnects to the job instead of submitting it again. A hand-written sensor has retry semantics of its own, usually weaker, and is one more piece of code to maintain.`
    : `one task with \`${keyword}=True\`. It holds a worker slot for the job's whole run; it is crash-safe only if its operator offers \`durable=True\` (is built on \`ResumableJobMixin\`), which is not known for this one.`;
  return [
    `**One task or two?** ${submit} turns green as soon as its job is accepted; ${waitName} is the only task whose result says whether the job succeeded. ${current} Which shape is right depends on the deployment:`,
    "",
    `- **A Triggerer is deployed:** one task with \`deferrable=True\` and \`${keyword}=True\` (deferral alone does not wait). The worker slot is free while the job runs and the task's own result is the job's. The deferrable path is not protected by \`durable=True\`: a crash between submitting and handing over to the Triggerer resubmits on retry.`,
    `- **No Triggerer; the job is short or medium, or worker slots are plentiful:** ${durableShape}`,
    `- **No Triggerer; the job is very long and worker slots are scarce:** keep the split with \`mode="reschedule"\` on the sensor, so it frees its slot between checks, and make every downstream task, alert and SLA depend on the sensor, not on ${submit} (AS407 checks this).`,
    "",
    split.durable
      ? `Either way ${submit} keeps \`durable=True\`: splitting off the poll does not remove its duplicate-submit risk, and the waiting task submits nothing, so it needs no crash safety of its own. Crash safety and the number of tasks are separate decisions; the second is about worker slots.`
      : `Either way ${submit} itself still needs crash safety (\`durable=True\` where its operator offers it): splitting off the poll does not remove its duplicate-submit risk, and the waiting task submits nothing. Crash safety and the number of tasks are separate decisions; the second is about worker slots.`,
    "",
  ];
}

// ---- before/after snippets ----

interface Hunk {
  /** 1-based first and last line of the unchanged text the hunk shows. */
  firstLine: number;
  lastLine: number;
  before: string;
  after: string;
}

/** The fix applied to the text, shown as one before/after pair per group of nearby changed lines. */
function snippet(text: string, edits: readonly TextEdit[], context: number): string[] {
  const out: string[] = [];
  for (const hunk of hunks(text, edits, context)) {
    const fence = fenceFor(hunk.before + hunk.after);
    const lines = hunk.firstLine === hunk.lastLine ? `line ${hunk.firstLine}` : `lines ${hunk.firstLine}–${hunk.lastLine}`;
    out.push(`Before (${lines}):`, "", `${fence}python`, hunk.before, fence, "", "After:", "", `${fence}python`, hunk.after, fence, "");
  }
  return out;
}

/** Groups the edits by the lines they touch, with `context` lines around each group; nearby groups merge. */
export function hunks(text: string, edits: readonly TextEdit[], context: number): Hunk[] {
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  // A text ending in a line break has no line after it.
  const lineCount = lineStarts[lineStarts.length - 1] === text.length && text.length > 0 ? lineStarts.length - 1 : lineStarts.length;
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineCount - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const spans = [...edits]
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .map((edit) => ({ edit, first: lineOf(edit.start), last: lineOf(edit.end > edit.start ? edit.end - 1 : edit.start) }));
  const groups: { first: number; last: number; edits: TextEdit[] }[] = [];
  for (const span of spans) {
    const current = groups[groups.length - 1];
    if (current && span.first - current.last <= 2 * context + 1) {
      current.last = Math.max(current.last, span.last);
      current.edits.push(span.edit);
    } else groups.push({ first: span.first, last: span.last, edits: [span.edit] });
  }
  const blank = (line: number) => text.slice(lineStarts[line], line + 1 < lineStarts.length ? lineStarts[line + 1] : text.length).trim() === "";
  return groups.map((group) => {
    let first = Math.max(0, group.first - context);
    let last = Math.min(lineCount - 1, group.last + context);
    // Blank context lines at either end show nothing.
    while (first < group.first && blank(first)) first++;
    while (last > group.last && blank(last)) last--;
    const start = lineStarts[first];
    const end = last + 1 < lineStarts.length ? lineStarts[last + 1] : text.length;
    const before = text.slice(start, end);
    const after = applyEdits(
      before,
      group.edits.map((e) => ({ start: e.start - start, end: e.end - start, newText: e.newText })),
    );
    return { firstLine: first + 1, lastLine: last + 1, before: displayed(before), after: displayed(after) };
  });
}

function displayed(code: string): string {
  // Fix edits carry the file's own line breaks; the review shows every line ending as `\n`.
  return code.replace(/\r\n?/g, "\n").replace(/\n$/, "");
}

/** A code fence longer than any run of backticks in the code. */
function fenceFor(code: string): string {
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

// ---- DAG text in Markdown ----
// Messages, fix titles and task names carry text from the DAG file in code spans written with one
// backtick, so a literal holding a backtick ends its span early and the rest would be read as
// Markdown: a link to a `command:` URI or raw HTML in the rendered review. Text outside the code
// spans (as CommonMark finds them) is escaped, so nothing in it is a link, an HTML tag or an entity.

/** A finding's message as a paragraph of its own: escaped as `inlineMarkdown`, and never a heading, list or quote. */
function paragraph(text: string): string {
  const inline = inlineMarkdown(text);
  return /^(?:[#>+=|-]|\d+[.)])/.test(inline) ? `\\${inline}` : inline;
}

/**
 * Prose with code spans, on one line: the code spans (CommonMark's pairs of equal backtick runs) as
 * written, and the text between them with `\\`, `[`, `]`, `<`, `>` and `&` escaped.
 */
export function inlineMarkdown(text: string): string {
  const flat = text.replace(/[\r\n]+/g, " ");
  const runs = [...flat.matchAll(/`+/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }));
  let out = "";
  let position = 0;
  for (let i = 0; i < runs.length; i++) {
    const length = runs[i].end - runs[i].start;
    const closing = runs.findIndex((run, j) => j > i && run.end - run.start === length);
    if (closing < 0) continue; // An unmatched run is literal text, as the renderer reads it.
    out += escapeProse(flat.slice(position, runs[i].start)) + flat.slice(runs[i].start, runs[closing].end);
    position = runs[closing].end;
    i = closing;
  }
  return out + escapeProse(flat.slice(position));
}

function escapeProse(text: string): string {
  return text.replace(/[\\[\]<>&]/g, (c) => (c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "&" ? "&amp;" : `\\${c}`));
}
