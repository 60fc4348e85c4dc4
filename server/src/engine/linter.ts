/**
 * Runs the rules over a document: rule selection and severities, `# noqa` suppression, and
 * fix-all. This is the whole engine API the front ends (language server, CLI) use.
 */
import { PythonDocument } from "./syntax/document";
import { applyEdits, editsOverlap } from "./fixes/edits";
import { parseFileNoqa, parseNoqa } from "./syntax/noqa";
import { firstLineBreak, withCarriageReturns } from "./syntax/lineBreaks";
import { Tree } from "./syntax/parser";
import { AirflowPin } from "./project/pin";
import { AnalysisContext, FileInputs, WorkspaceClasses } from "./context";
import { Report, Rule, RuleContext } from "./rules/rule";
import { allRules } from "./rules";
import { gateInputs, TextFacts } from "./rules/textGates";
import { SemanticModel, semanticModel } from "./airflow/model";
import { KnownDefinitions, knownDefinitions } from "./python/definitions";
import { moduleBoundWholeLastTime } from "./python/model";
import { BindingPlace, moduleBindingsLastTime } from "./python/carriedBindings";
import { Diagnostic, Fix, FixSummary, FoundDiagnostic, OffsetRange, SeveritySetting, TextEdit } from "./types";

export interface LintOptions {
  /** Severity per rule code; `off` disables the rule. Codes not named keep their default. */
  severities?: Readonly<Record<string, SeveritySetting>>;
  /** Only rules whose code starts with one of these (ruff-style prefixes: `AS1`, `AS101`). */
  select?: readonly string[];
  /** Skips rules whose code starts with one of these. */
  ignore?: readonly string[];
  /** Filesystem path of the document. */
  path?: string;
  /** The document's text at the baseline revision, for rules that compare with it (AS301). */
  baselineText?: string;
  /** Classes of the workspace's other modules, for rules that follow imports (ResumableJobMixin subclasses). */
  workspace?: WorkspaceClasses;
  /** The Airflow version the document's project pins (`AirflowVersionResolver.pinFor(path)`), for AS501 and AS502. */
  airflowPin?: AirflowPin;
  /** The rules to choose from instead of the registry's (tests that check the registry's rules against altered copies). */
  rules?: readonly Rule[];
  /** Called when a rule throws; the other rules still run. */
  onRuleError?: (rule: Rule, error: unknown) => void;
  /**
   * Whether the findings' fixes come with their edits (the default). Without, each fix and
   * alternative is a `FixSummary` (title, safety, kind): enough to show and count findings. A front
   * end that publishes findings on every keystroke and needs edits only for the few a code action
   * asks about lints without, and asks `fixesOf` for those.
   */
  fixEdits?: boolean;
}

/** Options of a lint whose findings' fixes come with their edits. */
export type LintOptionsWithEdits = LintOptions & { fixEdits?: true };

export function enabledRules(options: LintOptions = {}): Rule[] {
  const matches = (code: string, prefixes: readonly string[]) => prefixes.some((p) => code.startsWith(p.trim().toUpperCase()));
  return (options.rules ?? allRules).filter(
    (rule) =>
      (options.severities?.[rule.code] ?? rule.defaultSeverity) !== "off" &&
      (!options.select || options.select.length === 0 || matches(rule.code, options.select)) &&
      !(options.ignore && matches(rule.code, options.ignore)),
  );
}

export function lint(document: PythonDocument, options?: LintOptionsWithEdits): Diagnostic[];
export function lint(document: PythonDocument, options: LintOptions): FoundDiagnostic[];
export function lint(document: PythonDocument, options: LintOptions = {}): FoundDiagnostic[] {
  return check(document, options).diagnostics;
}

export interface CheckResult<F extends FixSummary = FixSummary> {
  diagnostics: Diagnostic<F>[];
  /** The analysis context the findings came from, for front ends that go on to use its analyses (the review). */
  context?: AnalysisContext;
  /** The rules that ran: enabled, and their text tests passed. */
  rules: readonly Rule[];
  /** The regions the rules with a `scope` examined; undefined when they examined the whole file. */
  regions?: readonly OffsetRange[];
  /** What the rules' text tests found in the text (none for a file that is not relevant). */
  facts?: TextFacts;
}

/**
 * Chooses, once the file's model can be asked, the regions the rules with a `scope` examine this
 * lint (`RuleContext.regions`); undefined: the whole file.
 */
export type RegionChooser = (context: RuleContext) => readonly OffsetRange[] | undefined;

/** What a lint knows from the document's last one (`IncrementalLinter`): after an edit, or of the same text. */
export interface FromLastLint {
  /** The regions the rules with a `scope` examine. */
  chooseRegions?: RegionChooser;
  /** The definitions of the last text, and the edit since. */
  definitions?: KnownDefinitions;
  /** The text's facts, worked out from the last text's (`TextFacts.afterEdit`). */
  facts?: TextFacts;
  /** The model a lint of the same text with the same options built: used again instead of built anew. */
  model?: SemanticModel;
  /** Whether the last lint bound every statement of the module scope (`moduleBoundWholeLastTime`). */
  moduleBoundWhole?: boolean;
  /** The module scope's statement bindings, when the edit since the last lint cannot have changed them (`python/carriedBindings.ts`). */
  moduleBindings?: readonly BindingPlace[];
}

/** The findings, and the analysis context they came from. */
export function check(document: PythonDocument, options?: LintOptionsWithEdits, fromLastLint?: FromLastLint): CheckResult<Fix>;
export function check(document: PythonDocument, options: LintOptions, fromLastLint?: FromLastLint): CheckResult;
export function check(document: PythonDocument, options: LintOptions = {}, fromLastLint: FromLastLint = {}): CheckResult<FixSummary> {
  if (!document.isRelevant()) return { diagnostics: [], rules: [] };
  const file: FileInputs = { text: document.analysedText(), path: options.path, baselineText: options.baselineText, workspace: options.workspace, airflowPin: options.airflowPin };
  // Rules whose text test fails could report nothing here; when that is every rule, the file is not even parsed.
  const gates = gateInputs(file, fromLastLint.facts);
  const rules = enabledRules(options).filter((rule) => !rule.mayReport || rule.mayReport(gates));
  if (rules.length === 0) return { diagnostics: [], rules, facts: gates.facts };
  const checker = new Checker(document, file, options, fromLastLint.chooseRegions);
  if (fromLastLint.definitions) checker.provide(knownDefinitions, fromLastLint.definitions);
  if (fromLastLint.model) checker.provide(semanticModel, fromLastLint.model);
  if (fromLastLint.moduleBoundWhole) checker.provide(moduleBoundWholeLastTime, true);
  if (fromLastLint.moduleBindings) checker.provide(moduleBindingsLastTime, fromLastLint.moduleBindings);
  for (const rule of rules) checker.run(rule);
  return { diagnostics: checker.diagnostics.sort(inDocumentOrder), context: checker, rules, regions: checker.chosenRegions, facts: gates.facts };
}

/** The order findings are returned in: by start, then by code. */
export function inDocumentOrder(a: FoundDiagnostic, b: FoundDiagnostic): number {
  return a.startOffset - b.startOffset || a.code.localeCompare(b.code);
}

/** The context every rule of one lint is given: the file's analyses, and the findings they report. */
class Checker extends AnalysisContext implements RuleContext {
  readonly diagnostics: FoundDiagnostic[] = [];
  private rule: Rule | undefined;
  private suppressions: Suppressions | undefined;
  private linesEndWithCarriageReturns: boolean | undefined;
  private regionsChosen = false;
  chosenRegions: readonly OffsetRange[] | undefined;

  constructor(
    private readonly document: PythonDocument,
    file: FileInputs,
    private readonly options: LintOptions,
    private readonly chooseRegions?: RegionChooser,
  ) {
    super(file, () => document.tree);
  }

  get model(): SemanticModel {
    return this.get(semanticModel);
  }

  /** Chosen when the first rule with a `scope` asks, so a lint whose scoped rules do not run chooses nothing. */
  get regions(): readonly OffsetRange[] | undefined {
    if (!this.rule?.scope) return undefined;
    if (!this.regionsChosen) {
      this.regionsChosen = true;
      this.chosenRegions = this.chooseRegions?.(this);
    }
    return this.chosenRegions;
  }

  run(rule: Rule): void {
    this.rule = rule;
    try {
      rule.check(this);
    } catch (error) {
      this.options.onRuleError?.(rule, error);
    } finally {
      this.rule = undefined;
    }
  }

  /** A property, not a method: rules take it out of their context (`{ model, report }`). */
  readonly report = (r: Report): void => {
    const rule = this.rule!;
    // The user's setting for the rule wins over the severity a rule gives a single report.
    const severity = this.options.severities?.[rule.code] ?? r.severity ?? rule.defaultSeverity;
    if (severity === "off") return;
    const start = r.node ? r.node.startIndex : r.start!;
    const end = r.node ? r.node.endIndex : r.end ?? start;
    const range = { start: this.document.positionAt(start), end: this.document.positionAt(end) };
    const suppressions = (this.suppressions ??= noqaComments(this.tree, this.text));
    if (suppressions.file === "all" || suppressions.file.has(rule.code)) return;
    const noqa = suppressions.lines.get(range.start.line);
    if (noqa === "all" || noqa?.has(rule.code)) return;
    const diagnostic: FoundDiagnostic = { code: rule.code, name: rule.name, severity, message: r.message, range, startOffset: start, endOffset: end, fix: r.fix && this.placed(r.fix) };
    if (r.alternatives && r.alternatives.length > 0) diagnostic.alternatives = r.alternatives.map((alternative) => this.placed(alternative));
    if (r.related && r.related.nodes.length > 0) {
      const ranges = r.related.nodes.map((node) => ({ start: this.document.positionAt(node.startIndex), end: this.document.positionAt(node.endIndex) }));
      diagnostic.related = { message: r.related.message, ranges };
    }
    this.diagnostics.push(diagnostic);
  };

  /** The fix as the lint gives it: its summary alone when its edits were not asked for. */
  private placed(fix: Fix): FixSummary {
    if (this.options.fixEdits === false) return { title: fix.title, safe: fix.safe, kind: fix.kind };
    return this.inFileLineBreaks(fix);
  }

  /** Fixes are built from the analysed text, whose lines all end in `\n` or `\r\n`; a file of lone `\r`s gets its own. */
  private inFileLineBreaks(fix: Fix): Fix {
    this.linesEndWithCarriageReturns ??= firstLineBreak(this.document.getText()) === "\r";
    if (!this.linesEndWithCarriageReturns) return fix;
    return { ...fix, edits: fix.edits.map((edit) => ({ ...edit, newText: withCarriageReturns(edit.newText) })) };
  }
}

interface Suppressions {
  /** Codes silenced in the whole file by `# airflow-state-lint: noqa[: codes]`. */
  file: Set<string> | "all";
  /** Codes silenced per line by `# noqa[: codes]`. */
  lines: Map<number, Set<string> | "all">;
}

/**
 * `# noqa` (everything) or `# noqa: AS101, AS102` on a line, and the file-level comments, as ruff
 * reads them (in any case). The comments are found from the word's occurrences in the text, in
 * document order: a walk of every node for the comments cost a lint after an edit more than most rules.
 */
function noqaComments(tree: Tree, text: string): Suppressions {
  const result: Suppressions = { file: new Set(), lines: new Map() };
  const root = tree.rootNode;
  const mention = /noqa/gi;
  let previous = -1;
  for (let match = mention.exec(text); match; match = mention.exec(text)) {
    const comment = root.descendantForIndex(match.index, match.index + match[0].length);
    // A comment that says it twice is read once.
    if (comment.type !== "comment" || comment.startIndex === previous) continue;
    previous = comment.startIndex;
    const fileNoqa = isOwnLine(text, comment.startIndex) ? parseFileNoqa(comment.text) : undefined;
    if (fileNoqa) {
      result.file = merged(result.file, fileNoqa.codes);
      continue;
    }
    const noqa = parseNoqa(comment.text);
    if (!noqa) continue;
    const line = comment.startPosition.row;
    result.lines.set(line, merged(result.lines.get(line) ?? new Set(), noqa.codes));
  }
  return result;
}

function merged(existing: Set<string> | "all", added: Set<string> | "all"): Set<string> | "all" {
  return existing === "all" || added === "all" ? "all" : new Set([...existing, ...added]);
}

/**
 * Whether only indentation precedes `offset` on its line. A file-level comment must stand alone, so
 * `x = f()  # airflow-state-lint: noqa` (meant for one line) does not silence the whole file.
 */
function isOwnLine(text: string, offset: number): boolean {
  for (let i = offset - 1; i >= 0; i--) {
    const character = text[i];
    if (character === "\n" || character === "\r") return true;
    if (character !== " " && character !== "\t" && character !== "\f") return false;
  }
  return true;
}

/** A finding's fix and alternative rewrites, with their edits. */
export interface FindingFixes {
  fix?: Fix;
  alternatives?: Fix[];
}

/**
 * The fixes, with their edits, of findings that a lint of `document` with `options` gave without
 * them (`fixEdits: false`), in the same order: undefined for a finding that has none, or that the
 * document no longer holds. Only the findings' rules run again, a rule with a `scope` over the
 * functions around the findings alone (the whole file for a finding outside every function), and
 * each finding is given those of the finding of its code at its place. `model`, the model that
 * lint built (`IncrementalLinter.lastModel`), is used again when given: the rules then only look
 * again at what they report on.
 */
export function fixesOf(document: PythonDocument, options: LintOptions, findings: readonly FoundDiagnostic[], model?: SemanticModel): (FindingFixes | undefined)[] {
  const wanted = findings.filter(offersFixes);
  if (wanted.length === 0) return findings.map(() => undefined);
  const codes = new Set(wanted.map((finding) => finding.code));
  const rules = enabledRules(options).filter((rule) => codes.has(rule.code));
  const chooseRegions = (context: RuleContext) => functionsAround(context.model, wanted);
  const found = check(document, { ...options, rules, fixEdits: true }, { chooseRegions, model }).diagnostics;
  const at = (finding: FoundDiagnostic) => `${finding.code}:${finding.startOffset}:${finding.endOffset}`;
  const byPlace = new Map(found.map((finding) => [at(finding), finding]));
  return findings.map((finding) => {
    const again = offersFixes(finding) ? byPlace.get(at(finding)) : undefined;
    return again && offersFixes(again) ? { fix: again.fix, alternatives: again.alternatives } : undefined;
  });
}

function offersFixes(finding: FoundDiagnostic): boolean {
  return finding.fix !== undefined || finding.alternatives !== undefined;
}

/**
 * The innermost functions that hold the findings (their definitions, decorators left out, which the
 * model knows without their nodes); undefined when one lies outside every function, a decorator of
 * a module-level function's included. What a rule with a scope reports on lies in them, or, for a
 * `function` rule, in the header of one of them.
 */
function functionsAround(model: SemanticModel, findings: readonly FoundDiagnostic[]): OffsetRange[] | undefined {
  const regions: OffsetRange[] = [];
  for (const finding of findings) {
    let innermost: OffsetRange | undefined;
    for (const { range } of model.functions) {
      if (range.start <= finding.startOffset && finding.endOffset <= range.end && (!innermost || range.end - range.start < innermost.end - innermost.start)) innermost = range;
    }
    if (!innermost) return undefined;
    if (!regions.some((region) => region.start === innermost!.start)) regions.push(innermost);
  }
  return regions;
}

export interface FixAllResult {
  text: string;
  /** Number of fixes applied over all passes. */
  applied: number;
  /** What remains after fixing. */
  diagnostics: Diagnostic[];
}

/**
 * Applies every safe fix (or every fix, with `unsafe`), re-linting between passes as ruff does,
 * because one fix can change what another would edit. Overlapping fixes wait for the next pass.
 */
export function fixAll(uri: string, text: string, options: LintOptionsWithEdits = {}, unsafe = false): FixAllResult {
  let current = text;
  let applied = 0;
  for (let pass = 0; pass < 10; pass++) {
    const diagnostics = lint(new PythonDocument(uri, current), options);
    const chosen: TextEdit[][] = [];
    for (const d of diagnostics) {
      if (!d.fix || (!d.fix.safe && !unsafe)) continue;
      if (chosen.some((edits) => editsOverlap(edits, d.fix!.edits))) continue;
      chosen.push(d.fix.edits);
    }
    if (chosen.length === 0) return { text: current, applied, diagnostics };
    current = applyEdits(current, chosen.flat());
    applied += chosen.length;
  }
  return { text: current, applied, diagnostics: lint(new PythonDocument(uri, current), options) };
}
