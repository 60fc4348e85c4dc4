/**
 * Lints of one document as it is edited. After an edit inside one function's body, the rules that
 * declare a `scope` (rules/rule.ts) examine only that function and the functions it names, and the
 * rest of the file's findings of those rules are kept from the previous lint, moved by the edit.
 * Rules without a scope run over the whole file as in every lint. Whatever this cannot place (an
 * edit outside any function body, an edit that changes which function holds it, `global`, a
 * file-level `noqa`, other options) is linted from scratch, so the findings are always those of a
 * lint from scratch: `test/engine/incremental.test.ts` checks that over edits of every fixture.
 *
 * The front end keeps one per open document (the language server's lint worker); nothing is shared
 * between documents.
 */
import { check, inDocumentOrder, LintOptions, LintOptionsWithEdits } from "./linter";
import type { AnalysisContext } from "./context";
import { SemanticModel, semanticModel } from "./airflow/model";
import { PythonDocument } from "./syntax/document";
import { parsePython, sameScopeStatements, SyntaxNode, Tree, treeHasErrors } from "./syntax/parser";
import { BindingPlace, placesAfterEdit } from "./python/carriedBindings";
import { DefinitionPlace, placesMovedPast } from "./python/definitions";
import type { FunctionInfo } from "./python/model";
import { definitionStatement } from "./syntax/nodes";
import { Rule, RuleContext } from "./rules/rule";
import { TextFacts } from "./rules/textGates";
import { Diagnostic, Fix, FixSummary, FoundDiagnostic, OffsetRange, Range, RelatedLocations, TextChange, TextEdit } from "./types";

interface PreviousLint {
  text: string;
  lineCount: number;
  /** Where the definitions of `text` are, when the lint's model was built. */
  definitions: readonly DefinitionPlace[] | undefined;
  /** What the rules' text tests found in `text`. */
  facts: TextFacts | undefined;
  /** The inputs beyond the text the lint read. */
  inputs: LintInputs;
  /** The tree the lint read; let go by `releaseTree` (then parsed again from `text` when an edit needs it). */
  tree: Tree | undefined;
  options: LintOptions;
  settings: string;
  diagnostics: FoundDiagnostic[];
  around?: StatementsAround;
  /** Whether a lint of the text bound every statement of its module scope (`moduleBoundWholeLastTime`). */
  moduleBoundWhole: boolean;
  /** The module scope's statement bindings in `text`, worked out when a lint after an edit carries them over (`python/carriedBindings.ts`); absent when unknown. */
  moduleBindings?: ModuleBindings;
}

/** Bindings worked out the first time they are asked for; undefined when they cannot be carried. */
type ModuleBindings = () => readonly BindingPlace[] | undefined;

/**
 * The binding statements around the function a lint re-checked, whose definition starts at `start`:
 * while edits stay inside that function, the text around it, and so these, do not change.
 */
interface StatementsAround {
  start: number;
  statements: string[];
}

/** A lint's findings, the rules that ran, and how it was made. */
interface Outcome {
  diagnostics: FoundDiagnostic[];
  rules: readonly Rule[];
  mode: LintMode;
  around?: StatementsAround;
  context?: AnalysisContext;
  facts?: TextFacts;
  /** The definitions of the text, when the lint carried them over without building a model. */
  definitions?: readonly DefinitionPlace[];
  /** The module bindings of the text, when the lint carried them over without building a model. */
  moduleBindings?: ModuleBindings;
}

/** The function an edit lies in, and what around it its findings are replaced in. */
interface EditedFunction {
  /** Its definition (with decorators), before and after the edit. */
  oldRange: OffsetRange;
  newRange: OffsetRange;
  node: SyntaxNode;
}

/** Code that binds names outside the function it is written in, or silences the whole file: its edits are linted from scratch. */
const NON_LOCAL_EFFECT = /\b(?:global|nonlocal)\b|airflow-state-lint/;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * How the last lint was made: from scratch; by re-checking the edited function; by keeping every
 * finding, moved, after an edit of a comment line that changed nothing else; or, for the same
 * text linted again (a front end does when an input changed: a project's pin, the workspace's
 * classes, a baseline), by re-running only the rules without a scope, which are the ones that read
 * those inputs.
 */
export type LintMode = "from scratch" | "edited function" | "edited comment" | "same text";

export class IncrementalLinter {
  private previous: PreviousLint | undefined;
  private mode: LintMode = "from scratch";
  private lastContext: AnalysisContext | undefined;

  get lastMode(): LintMode {
    return this.mode;
  }

  /**
   * The whole file's model the last lint built, if one of its rules asked for it, for a front end
   * that needs the same model of the same text (the workspace summary of an open document), until
   * the next lint or `releaseTree`.
   */
  get lastModel(): SemanticModel | undefined {
    return this.lastContext?.peek(semanticModel);
  }

  /** The findings of `document`, as `lint` gives them. */
  lint(document: PythonDocument, options?: LintOptionsWithEdits): Diagnostic[];
  lint(document: PythonDocument, options: LintOptions): FoundDiagnostic[];
  lint(document: PythonDocument, options: LintOptions = {}): FoundDiagnostic[] {
    const text = document.analysedText();
    const settings = settingsOf(options);
    const previous = this.previous && this.previous.options.rules === options.rules && this.previous.settings === settings ? this.previous : undefined;
    let outcome: Outcome | undefined;
    this.lastContext = undefined;
    const change = previous && previous.text !== text ? changeBetween(previous.text, text) : undefined;
    // What the text tests found in the last text stands wherever the edit cannot have changed it.
    const facts = previous?.facts && (change ? TextFacts.afterEdit(text, previous.facts, change) : previous.facts);
    if (previous && !change) outcome = this.relint(document, options, previous);
    else if (previous && change) outcome = this.lintEditedComment(document, text, options, previous, change, facts) ?? this.lintEdited(document, text, options, previous, change, facts);
    if (!outcome) {
      const result = check(document, options, { facts });
      outcome = { diagnostics: result.diagnostics, rules: result.rules, mode: "from scratch", context: result.context, facts: result.facts };
    }
    this.mode = outcome.mode;
    this.lastContext = outcome.context;
    // A file that never names Airflow keeps nothing (it is not even parsed); any other keeps its
    // tree, so that an edit that brings a rule back (an undo) re-checks one function.
    const model = outcome.context?.peek(semanticModel);
    const definitions = outcome.definitions ?? model?.definitionPlaces;
    // A lint that built no model (an edited comment) leaves what the last one found.
    const moduleBoundWhole = model ? model.moduleBoundWhole : previous?.moduleBoundWhole === true;
    const moduleBindings = model ? moduleBindingsOf(model) : outcome.moduleBindings;
    outcome.facts?.settle();
    this.previous = document.isRelevant()
      ? { text, lineCount: document.lineCount, tree: document.tree, definitions, facts: outcome.facts, inputs: inputsOf(options), options, settings, diagnostics: outcome.diagnostics, around: outcome.around, moduleBoundWhole, moduleBindings }
      : undefined;
    return outcome.diagnostics;
  }

  /** Forgets the previous lint: the next one starts from scratch. */
  reset(): void {
    this.previous = undefined;
  }

  /**
   * Lets the last lint's syntax tree go and keeps its findings: a document not being edited keeps
   * no tree (its native memory is far larger than its text), and the first edit after a pause
   * parses the old text again, at a fraction of what a lint from scratch costs.
   */
  releaseTree(): void {
    if (this.previous) {
      // Worked out while the last model's nodes can still be read; the model goes with the tree.
      const places = this.previous.moduleBindings?.();
      this.previous.moduleBindings = places && (() => places);
      this.previous.tree = undefined;
    }
    this.lastContext = undefined;
  }

  /** The same text again: the rules with a scope read no input but the text, so their findings stand. */
  private relint(document: PythonDocument, options: LintOptions, previous: PreviousLint): Outcome {
    const moduleBindings = carriedInto(document, previous.moduleBindings?.());
    const result = check(document, options, { chooseRegions: () => [], definitions: previous.definitions && { places: previous.definitions }, facts: previous.facts, moduleBoundWhole: previous.moduleBoundWhole, moduleBindings });
    const scoped = new Set(result.rules.filter((rule) => rule.scope).map((rule) => rule.code));
    const kept = previous.diagnostics.filter((d) => scoped.has(d.code));
    return { diagnostics: [...kept, ...result.diagnostics.filter((d) => !scoped.has(d.code))].sort(inDocumentOrder), rules: result.rules, mode: "same text", context: result.context, facts: result.facts };
  }

  /**
   * An edit that wrote only inside one comment line (a line of nothing but a comment, before and
   * after, whose comment sits where it sat in the tree): no code changed. When the inputs beyond the
   * text are those of the last lint too, every finding stands, moved by the edit, and no rule runs;
   * otherwise the rules with a scope examine nothing (their findings are kept, moved) and the
   * others run as in every lint. Undefined for any other edit, and for a comment that silences
   * findings (`noqa`).
   */
  private lintEditedComment(document: PythonDocument, text: string, options: LintOptions, previous: PreviousLint, change: TextChange, facts: TextFacts | undefined): Outcome | undefined {
    const oldComment = commentLineHolding(previous.text, change.start, change.oldEnd);
    const newComment = commentLineHolding(text, change.start, change.newEnd);
    if (!oldComment || !newComment || SUPPRESSION.test(oldComment.text) || SUPPRESSION.test(newComment.text)) return undefined;
    const delta = change.newEnd - change.oldEnd;
    const oldTree = (previous.tree ??= parsePython(previous.text));
    if (!sameCommentPlace(oldTree, oldComment, document.tree, newComment, delta)) return undefined;
    const changed = { start: change.start, end: change.oldEnd };
    const move = new FindingMove(document, changed, delta, document.lineCount - previous.lineCount);
    const everyFindingMoved = sameInputs(previous.inputs, inputsOf(options)) ? movedFindings(previous.diagnostics, move, () => true) : undefined;
    const moduleBindings = movedBindings(previous.moduleBindings, changed, delta);
    if (everyFindingMoved) return { diagnostics: everyFindingMoved, rules: [], mode: "edited comment", facts, definitions: previous.definitions && placesMovedPast(previous.definitions, change), moduleBindings };
    // A finding around the comment (a call it sits in) is found again by its rule, when the rule has no scope.
    const definitions = previous.definitions && { places: previous.definitions, edit: { oldRange: changed, newRange: { start: change.start, end: change.newEnd }, delta } };
    const result = check(document, options, { chooseRegions: () => [], definitions, facts, moduleBoundWhole: previous.moduleBoundWhole, moduleBindings: carriedInto(document, moduleBindings?.()) });
    const scoped = new Set(result.rules.filter((rule) => rule.scope).map((rule) => rule.code));
    const kept = movedFindings(previous.diagnostics, move, (d) => scoped.has(d.code));
    if (!kept) return undefined;
    const fresh = result.diagnostics.filter((d) => !scoped.has(d.code));
    return { diagnostics: [...kept, ...fresh].sort(inDocumentOrder), rules: result.rules, mode: "edited comment", context: result.context, facts: result.facts };
  }

  /** Undefined when the edit cannot be placed in one function: then the document is linted from scratch. */
  private lintEdited(document: PythonDocument, text: string, options: LintOptions, previous: PreviousLint, textChange: TextChange, facts: TextFacts | undefined): Outcome | undefined {
    let change = textChange;
    const oldTree = (previous.tree ??= parsePython(previous.text));
    let edited = editedFunction(oldTree, document.tree, change);
    if (!edited) {
      // Typed after a function's last line, the new line's break matches the old one's: the same change, put earlier, is the function's.
      change = slidEarlier(change, previous.text, text);
      edited = editedFunction(oldTree, document.tree, change);
    }
    if (!edited) return undefined;
    const oldText = previous.text.slice(edited.oldRange.start, edited.oldRange.end);
    const newText = text.slice(edited.newRange.start, edited.newRange.end);
    if (NON_LOCAL_EFFECT.test(oldText) || NON_LOCAL_EFFECT.test(newText)) return undefined;
    const delta = change.newEnd - change.oldEnd;
    let headers: OffsetRange[] = [];
    let oldRegions: OffsetRange[] = [];
    // Typing on in one function: its surroundings are those the last lint listed.
    let around = previous.around?.start === edited.oldRange.start ? previous.around.statements : undefined;
    const statementsAround = () => (around ??= bindingStatementsAround(edited.node));
    const chooseRegions = (context: RuleContext): OffsetRange[] | undefined => {
      const named = functionsNamedIn(context, edited, [oldText, newText], statementsAround);
      if (!named) return undefined;
      headers = enclosingHeaders(edited.node);
      // The same places before the edit: a named function lies before the change or after it, or
      // holds all of it (one around the edited function), whose old end is past the old function's.
      const beforeEdit = (offset: number) => (offset >= change.newEnd ? offset - delta : offset);
      oldRegions = mergedRanges([edited.oldRange, ...named.map((range) => ({ start: range.start, end: range.end >= change.newEnd ? Math.max(beforeEdit(range.end), edited.oldRange.end) : range.end }))]);
      // Disjoint, so that no store use is examined twice (a named function can hold the edited one).
      return mergedRanges([edited.newRange, ...named]);
    };
    const definitions = previous.definitions && { places: previous.definitions, edit: { oldRange: edited.oldRange, newRange: edited.newRange, delta } };
    // Nothing in one function's body binds a name of the module scope (`global` is linted from scratch).
    const moduleBindings = carriedInto(document, movedBindings(previous.moduleBindings, edited.oldRange, delta)?.());
    const result = check(document, options, { chooseRegions, definitions, facts, moduleBoundWhole: previous.moduleBoundWhole, moduleBindings });
    const regions = result.regions;
    // No regions: no rule with a scope ran (nothing to re-check), or they examined the whole file
    // (what depends on the edit was not known). Either way the findings are complete.
    if (!regions) return { diagnostics: result.diagnostics, rules: result.rules, mode: result.rules.some((rule) => rule.scope) ? "from scratch" : "edited function", context: result.context, facts: result.facts };
    const scopes = new Map(result.rules.map((rule) => [rule.code, rule.scope]));
    // Where each kind of scoped rule's findings were recomputed, in the new text and in the old.
    const replacedNew = { "store use": regions, expression: regions, function: [...regions, ...headers] };
    const replacedOld = { "store use": oldRegions, expression: oldRegions, function: [...oldRegions, ...headers] };
    // What the edit touched before it: the function, and the change when it runs past the function's end (a comment after it).
    const touched = { start: Math.min(edited.oldRange.start, change.start), end: Math.max(edited.oldRange.end, change.oldEnd) };
    const move = new FindingMove(document, touched, delta, document.lineCount - previous.lineCount);
    const kept = movedFindings(previous.diagnostics, move, (diagnostic) => {
      const scope = scopes.get(diagnostic.code);
      return scope !== undefined && !replacedOld[scope].some((range) => contains(range, diagnostic));
    });
    if (!kept) return undefined;
    const fresh = result.diagnostics.filter((d) => {
      const scope = scopes.get(d.code);
      return !scope || replacedNew[scope].some((range) => contains(range, d));
    });
    return { diagnostics: [...kept, ...fresh].sort(inDocumentOrder), rules: result.rules, mode: "edited function", around: around && { start: edited.newRange.start, statements: around }, context: result.context, facts: result.facts };
  }
}

/** The module bindings of a model that bound its module scope whole in a tree without errors, worked out when first asked for. */
function moduleBindingsOf(model: SemanticModel): ModuleBindings | undefined {
  if (!model.moduleBoundWhole || treeHasErrors(model.tree)) return undefined;
  return once(() => model.moduleBindingPlaces());
}

/** `last` after an edit that replaced `edited` of the last text and moved what followed by `delta`. */
function movedBindings(last: ModuleBindings | undefined, edited: OffsetRange, delta: number): ModuleBindings | undefined {
  if (!last) return undefined;
  return once(() => {
    const places = last();
    return places && placesAfterEdit(places, edited, delta);
  });
}

/** Bindings to carry into a lint of `document`: none into a tree with errors, which may read the statements around an edit otherwise. */
function carriedInto(document: PythonDocument, places: readonly BindingPlace[] | undefined): readonly BindingPlace[] | undefined {
  return places && !treeHasErrors(document.tree) ? places : undefined;
}

function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** The inputs beyond the text a lint reads: the baseline, the pin, the workspace's classes (by their version). */
interface LintInputs {
  baselineText: string | undefined;
  airflowPin: string | undefined;
  workspace: "none" | number | undefined;
}

function inputsOf(options: LintOptions): LintInputs {
  const workspace = options.workspace;
  return { baselineText: options.baselineText, airflowPin: options.airflowPin && JSON.stringify(options.airflowPin), workspace: workspace ? workspace.version : "none" };
}

/** Whether a lint with `now` reads what the last one read with `before`: never when a workspace does not say its version. */
function sameInputs(before: LintInputs, now: LintInputs): boolean {
  return before.workspace !== undefined && before.workspace === now.workspace && before.baselineText === now.baselineText && before.airflowPin === now.airflowPin;
}

/** Comments that silence findings: editing one can change any finding of its line, or of the file. */
const SUPPRESSION = /noqa|airflow-state-lint/i;

/** A line holding only a comment (and the white space before it). */
interface CommentLine {
  /** The comment, from its `#` to the end of the line. */
  start: number;
  end: number;
  text: string;
}

/** The comment line that holds all of `[start, end)` (its line break excluded), if the line is one. */
function commentLineHolding(text: string, start: number, end: number): CommentLine | undefined {
  // Back to the line's start one character at a time: `lastIndexOf("\r")` searched the whole text
  // before the edit, on every keystroke, in a file without a carriage return.
  let lineStart = start;
  while (lineStart > 0 && text.charCodeAt(lineStart - 1) !== 10 && text.charCodeAt(lineStart - 1) !== 13) lineStart--;
  let lineEnd = lineStart;
  while (lineEnd < text.length && text.charCodeAt(lineEnd) !== 10 && text.charCodeAt(lineEnd) !== 13) lineEnd++;
  if (end > lineEnd) return undefined;
  let hash = lineStart;
  while (text.charCodeAt(hash) === 32 || text.charCodeAt(hash) === 9 || text.charCodeAt(hash) === 12) hash++;
  if (text.charCodeAt(hash) !== 35 /* # */) return undefined;
  return { start: hash, end: lineEnd, text: text.slice(hash, lineEnd) };
}

/**
 * Whether the comment of the new text is a comment node where the old one was: of the same parent
 * (the same node, moved by the edit), between the same siblings. The indentation of a comment line
 * decides which block tree-sitter puts it in (and so where a block ends), which no code can see but
 * the ranges of the nodes around it can.
 */
function sameCommentPlace(oldTree: Tree, oldComment: CommentLine, newTree: Tree, newComment: CommentLine, delta: number): boolean {
  const before = oldTree.rootNode.descendantForIndex(oldComment.start, oldComment.end);
  const after = newTree.rootNode.descendantForIndex(newComment.start, newComment.end);
  if (before.type !== "comment" || after.type !== "comment" || before.startIndex !== oldComment.start || after.startIndex !== newComment.start) return false;
  if (before.endIndex !== oldComment.end || after.endIndex !== newComment.end) return false;
  const sameNode = (a: SyntaxNode | null, b: SyntaxNode | null, shifted: boolean) =>
    a === null ? b === null : b !== null && a.type === b.type && a.startIndex + (shifted ? delta : 0) === b.startIndex && a.endIndex + (shifted || a.endIndex > oldComment.start ? delta : 0) === b.endIndex;
  return sameNode(before.parent, after.parent, false) && sameNode(before.previousSibling, after.previousSibling, false) && sameNode(before.nextSibling, after.nextSibling, true);
}

/** The options that decide which findings a lint gives, as text; the inputs only rules without a scope read are left out. */
function settingsOf(options: LintOptions): string {
  // Findings with their fixes' edits are not kept for a lint without, nor the other way round.
  return JSON.stringify([options.severities ?? null, options.select ?? null, options.ignore ?? null, options.fixEdits !== false]);
}

/** Characters compared at once by string equality, which runs natively, before the last stretch is compared one character at a time. */
const COMPARED_BLOCK = 1024;

/** The one stretch where two texts differ: the longest common start and end, which never overlap. */
export function changeBetween(oldText: string, newText: string): TextChange {
  const shorter = Math.min(oldText.length, newText.length);
  const oldLength = oldText.length;
  const newLength = newText.length;
  // Block by block first: one character at a time, the 400 KB of a 10,000-line DAG took longer than the rest of the lint's own work.
  let start = 0;
  while (start + COMPARED_BLOCK <= shorter && oldText.slice(start, start + COMPARED_BLOCK) === newText.slice(start, start + COMPARED_BLOCK)) start += COMPARED_BLOCK;
  while (start < shorter && oldText.charCodeAt(start) === newText.charCodeAt(start)) start++;
  let suffix = 0;
  while (suffix + COMPARED_BLOCK <= shorter - start && oldText.slice(oldLength - suffix - COMPARED_BLOCK, oldLength - suffix) === newText.slice(newLength - suffix - COMPARED_BLOCK, newLength - suffix)) suffix += COMPARED_BLOCK;
  while (suffix < shorter - start && oldText.charCodeAt(oldLength - 1 - suffix) === newText.charCodeAt(newLength - 1 - suffix)) suffix++;
  return { start, oldEnd: oldLength - suffix, newEnd: newLength - suffix };
}

/** How far back an ambiguous change is moved: more than any indentation and line break. */
const MAX_SLIDE = 256;

/**
 * The same change, moved back as far as it stays the same change: `changeBetween` puts it as late
 * as the texts allow, so `last()\n` + `    x = 1\n` reads as `last()\n    x = 1` + `\n`.
 */
function slidEarlier(change: TextChange, oldText: string, newText: string): TextChange {
  let { start, oldEnd, newEnd } = change;
  for (let moved = 0; moved < MAX_SLIDE && start > 0; moved++) {
    const before = oldText.charCodeAt(start - 1);
    if (oldEnd > start && oldText.charCodeAt(oldEnd - 1) !== before) break;
    if (newEnd > start && newText.charCodeAt(newEnd - 1) !== before) break;
    start--;
    oldEnd--;
    newEnd--;
  }
  return { start, oldEnd, newEnd };
}

/**
 * The innermost function whose body holds the whole change, when it is the same function before
 * and after it: same start, same header, and its end moved by exactly the change. Otherwise the
 * edit changed how the code around it parses (an unclosed bracket, a new dedent), and there is no
 * one function to re-check.
 */
function editedFunction(oldTree: Tree, newTree: Tree, change: TextChange): EditedFunction | undefined {
  const after = innermostFunctionBodyHolding(newTree, change.start, change.newEnd);
  const before = innermostFunctionBodyHolding(oldTree, change.start, change.oldEnd);
  if (!after || !before) return undefined;
  const delta = change.newEnd - change.oldEnd;
  const oldRange = definitionRange(before.fn);
  const newRange = definitionRange(after.fn);
  // The function may end elsewhere (its last line commented out is a comment after it), but what
  // follows it must be the same statement, moved by the change: nothing left it or joined it.
  const oldNext = nextStatementStart(before.fn);
  const newNext = nextStatementStart(after.fn);
  const sameFunction =
    oldRange.start === newRange.start &&
    before.headerEnd === after.headerEnd &&
    depth(before.fn) === depth(after.fn) &&
    (oldNext === undefined ? newNext === undefined : newNext === oldNext + delta);
  return sameFunction ? { oldRange, newRange, node: after.fn } : undefined;
}

/** Where the statement after a function's definition starts, comments passed over; undefined at the end of its block. */
function nextStatementStart(fn: SyntaxNode): number | undefined {
  let next = definitionStatement(fn).nextNamedSibling;
  while (next?.type === "comment") next = next.nextNamedSibling;
  return next?.startIndex;
}

/**
 * The innermost function whose body holds the text between `start` and `end`: from the end of its
 * header's `:` up to the statement after the function. The body is counted from the colon, not
 * from its first statement, so that a comment typed before the first statement is in it, and up to
 * the next statement, so that its last line commented out (now a comment after it) is too.
 */
function innermostFunctionBodyHolding(tree: Tree, start: number, end: number): { fn: SyntaxNode; headerEnd: number } | undefined {
  // From the character before the change: text typed right after a function's last statement is the function's.
  const spanning = tree.rootNode.descendantForIndex(Math.max(0, start - 1), Math.max(start, end));
  // Only comments (or nothing) between a function's last statement and the change: that function,
  // which lies inside whatever function holds the comment.
  if (spanning.type === "comment" || spanning.type === "block" || spanning.type === "module") {
    const container = spanning.type === "comment" ? spanning.parent : spanning;
    const previous = container && lastStatementBefore(container, start);
    const fn = previous?.type === "decorated_definition" ? previous.childForFieldName("definition") : previous;
    const held = fn?.type === "function_definition" ? holding(fn, start, end) : undefined;
    if (held) return held;
  }
  for (let node: SyntaxNode | null = spanning; node; node = node.parent) {
    const held = node.type === "function_definition" ? holding(node, start, end) : undefined;
    if (held) return held;
  }
  return undefined;
}

function holding(fn: SyntaxNode, start: number, end: number): { fn: SyntaxNode; headerEnd: number } | undefined {
  const body = fn.childForFieldName("body");
  const parameters = fn.childForFieldName("parameters");
  const colon = body && fn.children.find((child) => child.type === ":" && child.endIndex <= body.startIndex && child.endIndex > (parameters?.endIndex ?? fn.startIndex));
  if (!colon || colon.endIndex > start) return undefined;
  const extentEnd = nextStatementStart(fn) ?? definitionStatement(fn).parent?.endIndex ?? fn.endIndex;
  return end <= Math.max(fn.endIndex, extentEnd) ? { fn, headerEnd: colon.endIndex } : undefined;
}

/** The last statement of a block or module that ends at or before `offset`, comments passed over. */
function lastStatementBefore(container: SyntaxNode, offset: number): SyntaxNode | undefined {
  // Found by bisection: a block can hold thousands of statements (every task of a large `@dag`
  // function), and listing them all costs more than the rest of a lint after a keystroke.
  let low = 0;
  let high = container.namedChildCount;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (container.namedChild(middle)!.startIndex < offset) low = middle + 1;
    else high = middle;
  }
  // Children do not overlap, so only the last of those that start before `offset` can still be running.
  for (let index = low - 1; index >= 0; index--) {
    const child = container.namedChild(index)!;
    if (child.type !== "comment" && child.endIndex <= offset) return child;
  }
  return undefined;
}

/** The function's definition with its decorators. */
function definitionRange(fn: SyntaxNode): OffsetRange {
  const definition = definitionStatement(fn);
  return { start: definition.startIndex, end: definition.endIndex };
}

function depth(node: SyntaxNode): number {
  let levels = 0;
  for (let parent = node.parent; parent; parent = parent.parent) levels++;
  return levels;
}

/** The headers (decorators to the body) of the functions around `fn`: where a `function` rule reports on them. */
function enclosingHeaders(fn: SyntaxNode): OffsetRange[] {
  const headers: OffsetRange[] = [];
  for (let node = fn.parent; node; node = node.parent) {
    if (node.type !== "function_definition") continue;
    const body = node.childForFieldName("body");
    if (body) headers.push({ start: definitionRange(node).start, end: body.startIndex });
  }
  return headers;
}

/**
 * The definitions of the functions outside the edited one that its text names, before or after the
 * edit: their findings can depend on it (`t.expand(...)` maps `t`, `PythonOperator(python_callable=t)`
 * runs it). Undefined when a name it uses may be bound around it to a function of the file under
 * another name (`run = t.partial(...)` in the DAG's body): then what depends on the edit is not known.
 */
function functionsNamedIn(context: RuleContext, edited: EditedFunction, texts: string[], statementsAround: () => string[]): OffsetRange[] | undefined {
  const inside = (range: OffsetRange) => range.start >= edited.newRange.start && range.end <= edited.newRange.end;
  const functionsByName = new Map<string, FunctionInfo[]>();
  for (const fn of context.model.functions) {
    if (inside(fn.range)) continue;
    const list = functionsByName.get(fn.name);
    if (list) list.push(fn);
    else functionsByName.set(fn.name, [fn]);
  }
  const names = new Set(texts.flatMap((text) => text.match(IDENTIFIER) ?? []));
  for (const statement of statementsAround()) {
    const words = statement.match(IDENTIFIER) ?? [];
    if (words.some((word) => functionsByName.has(word)) && words.some((word) => names.has(word) && !functionsByName.has(word))) return undefined;
  }
  const regions: OffsetRange[] = [];
  for (const name of names) for (const fn of functionsByName.get(name) ?? []) regions.push(definitionRange(fn.node));
  return regions;
}

/**
 * The statements that can bind a name the edited function sees from outside: those of the module
 * and of the functions around it, outside any nested function or class, however deep in `if`,
 * `with` or `try` they sit, as text; of a `for` or `with`, its header (`for x in ...:`, `with ... as x:`).
 */
function bindingStatementsAround(fn: SyntaxNode): string[] {
  const statements: string[] = [];
  for (let node = fn.parent; node; node = node.parent) {
    const container = node.type === "module" ? node : node.type === "function_definition" ? node.childForFieldName("body") : null;
    for (const statement of container ? sameScopeStatements(container) : []) {
      if (statement.type === "for_statement" || statement.type === "with_statement") statements.push(headerOf(statement));
      else if (statement.type === "expression_statement" && bindsAName(statement)) statements.push(statement.text);
    }
  }
  return statements;
}

/** An assignment (`x = ...`, `x += ...`, `x: T = ...`), or a statement with a `:=`; not a call such as `extract() >> load()`. */
function bindsAName(statement: SyntaxNode): boolean {
  const first = statement.namedChildren[0];
  return first?.type === "assignment" || first?.type === "augmented_assignment" || statement.text.includes(":=");
}

/** A compound statement's text up to its body: the part that binds (`for x in y:`, `with a as b:`). */
function headerOf(statement: SyntaxNode): string {
  const body = statement.childForFieldName("body");
  return body ? statement.text.slice(0, body.startIndex - statement.startIndex) : statement.text;
}

/** The ranges in order, those that overlap or touch made one. */
function mergedRanges(ranges: readonly OffsetRange[]): OffsetRange[] {
  const merged: OffsetRange[] = [];
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

function contains(range: OffsetRange, diagnostic: FoundDiagnostic): boolean {
  return diagnostic.startOffset >= range.start && diagnostic.endOffset <= range.end;
}

/**
 * Findings kept from before an edit, in the edited text: unchanged before what the edit touched,
 * moved by `delta` after it. A finding on a line after the touched text's last line keeps its
 * columns, and its lines move by as many lines as the edit added, so its position is not worked
 * out again (a 20,000-line DAG keeps thousands of findings on every keystroke).
 */
class FindingMove {
  /** The lines, before the edit, of the touched text's start and end. */
  private readonly firstTouchedLine: number;
  private readonly lastTouchedLine: number;

  constructor(
    private readonly document: PythonDocument,
    private readonly touched: OffsetRange,
    private readonly delta: number,
    private readonly addedLines: number,
  ) {
    this.firstTouchedLine = document.positionAt(touched.start).line;
    this.lastTouchedLine = document.positionAt(touched.end + delta).line - addedLines;
  }

  /** The finding in the edited text; undefined when it or one of its fixes reaches into what the edit touched. */
  beyond(diagnostic: FoundDiagnostic): FoundDiagnostic | undefined {
    const { start, end } = this.touched;
    if (diagnostic.startOffset < end && diagnostic.endOffset > start) return undefined;
    // Right where text was inserted into nothing touched, a finding could be before it or after it.
    if (start === end && (diagnostic.startOffset === start || diagnostic.endOffset === start)) return undefined;
    const related = diagnostic.related && this.related(diagnostic.related);
    if (related === null) return undefined;
    let allBefore = diagnostic.endOffset <= start;
    for (const fix of offeredFixes(diagnostic)) {
      for (const edit of editsOf(fix)) {
        // An insertion right where the touched text starts stays before it.
        if (edit.start < end && Math.max(edit.end, edit.start + 1) > start && !(edit.start === edit.end && edit.start === start)) return undefined;
        if (edit.end > start) allBefore = false;
      }
    }
    if (allBefore && related === diagnostic.related) return diagnostic;
    // Written out rather than spread: the same shape as `report` makes, at a fraction of a spread's cost.
    const moved: FoundDiagnostic = {
      code: diagnostic.code,
      name: diagnostic.name,
      severity: diagnostic.severity,
      message: diagnostic.message,
      range: this.range(diagnostic),
      startOffset: this.offset(diagnostic.startOffset),
      endOffset: this.offset(diagnostic.endOffset),
      fix: diagnostic.fix && this.fix(diagnostic.fix),
    };
    if (diagnostic.alternatives) moved.alternatives = diagnostic.alternatives.map((fix) => this.fix(fix));
    if (related) moved.related = related;
    return moved;
  }

  /**
   * The other places of a finding, in the edited text: those on lines before the touched text's
   * first line as they were, those on lines after its last line moved by the lines the edit added;
   * null when one lies on a touched line (its column may have moved), which the edit is then
   * linted otherwise for.
   */
  private related(related: RelatedLocations): RelatedLocations | null {
    let moved = false;
    const ranges: Range[] = [];
    for (const range of related.ranges) {
      if (range.end.line < this.firstTouchedLine) ranges.push(range);
      else if (range.start.line > this.lastTouchedLine) {
        moved ||= this.addedLines !== 0;
        ranges.push(this.linesMoved(range));
      } else return null;
    }
    return moved ? { message: related.message, ranges } : related;
  }

  private offset(offset: number): number {
    const { start, end } = this.touched;
    return offset > end || (offset === end && start < end) ? offset + this.delta : offset;
  }

  private range(diagnostic: FoundDiagnostic): Range {
    const { start } = diagnostic.range;
    if (start.line > this.lastTouchedLine && diagnostic.startOffset >= this.touched.end) return this.linesMoved(diagnostic.range);
    return { start: this.document.positionAt(this.offset(diagnostic.startOffset)), end: this.document.positionAt(this.offset(diagnostic.endOffset)) };
  }

  /** A range on lines after the touched text, moved down by the lines the edit added (up when it removed some). */
  private linesMoved(range: Range): Range {
    if (this.addedLines === 0) return range;
    return { start: { line: range.start.line + this.addedLines, character: range.start.character }, end: { line: range.end.line + this.addedLines, character: range.end.character } };
  }

  private fix<F extends FixSummary>(fix: F): F {
    const edits = editsOf(fix);
    // A fix wholly before the edit (an import added at the top), or given without its edits, is kept as it is.
    if (edits.every((edit) => edit.end < this.touched.start)) return fix;
    return { ...fix, edits: edits.map((edit) => ({ ...edit, start: this.editStart(edit), end: this.offset(edit.end) })) };
  }

  /**
   * Where an edit starts after the edit of the text. Only text inserted where nothing was touched
   * (typed in a comment) leaves an edit's offset right at it: an insertion there stays before it,
   * as the end of an edit does, and an edit of what follows moves with what it edits.
   */
  private editStart(edit: TextEdit): number {
    const { start, end } = this.touched;
    if (start === end && edit.start === start) return edit.end > edit.start ? edit.start + this.delta : edit.start;
    return this.offset(edit.start);
  }
}

/** The findings `kept` accepts, moved; undefined when one of them cannot be. */
function movedFindings(diagnostics: readonly FoundDiagnostic[], move: FindingMove, kept: (diagnostic: FoundDiagnostic) => boolean): FoundDiagnostic[] | undefined {
  const moved: FoundDiagnostic[] = [];
  for (const diagnostic of diagnostics) {
    if (!kept(diagnostic)) continue;
    const inEditedText = move.beyond(diagnostic);
    if (!inEditedText) return undefined;
    moved.push(inEditedText);
  }
  return moved;
}

const NO_FIXES: readonly FixSummary[] = [];
const NO_EDITS: readonly TextEdit[] = [];

function offeredFixes(diagnostic: FoundDiagnostic): readonly FixSummary[] {
  if (diagnostic.alternatives) return diagnostic.fix ? [diagnostic.fix, ...diagnostic.alternatives] : diagnostic.alternatives;
  return diagnostic.fix ? [diagnostic.fix] : NO_FIXES;
}

/** The fix's edits; none when the lint gave its summary alone. */
function editsOf(fix: FixSummary): readonly TextEdit[] {
  return (fix as Partial<Fix>).edits ?? NO_EDITS;
}
