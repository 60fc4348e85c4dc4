/**
 * Plain data shapes shared by the engine and its front ends. They mirror LSP's shapes (0-based lines,
 * UTF-16 columns) so adapters can pass them through, but nothing here depends on LSP or VS Code.
 */

export interface Position {
  /** 0-based line. */
  line: number;
  /** 0-based UTF-16 code unit offset in the line (tree-sitter's column for JS strings). */
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export type Severity = "error" | "warning" | "info" | "hint";
export type SeveritySetting = Severity | "off";

/** Every severity a user can give a rule, least severe first. */
export const SEVERITY_SETTINGS: readonly SeveritySetting[] = ["off", "hint", "info", "warning", "error"];

/** The text between two UTF-16 offsets of the document, the end excluded. */
export interface OffsetRange {
  start: number;
  end: number;
}

/** The one stretch where a text was edited: `[start, oldEnd)` of the old text became `[start, newEnd)` of the new. */
export interface TextChange {
  readonly start: number;
  readonly oldEnd: number;
  readonly newEnd: number;
}

/** A replacement of the text between two UTF-16 offsets of the document. */
export interface TextEdit {
  start: number;
  end: number;
  newText: string;
}

export type FixKind = "quickfix" | "refactor.rewrite";

/** What a fix does and how safe it is, without its edits: how a lint made without edits (`LintOptions.fixEdits`) gives a finding's fixes. */
export interface FixSummary {
  /** Shown to the user, e.g. "Store `value.isoformat()`". */
  title: string;
  /** Safe fixes keep run-time behaviour apart from removing the error; only they run on `--fix` / fix-all. */
  safe: boolean;
  kind: FixKind;
}

export interface Fix extends FixSummary {
  edits: TextEdit[];
}

/** A finding. Its fixes come with their edits (`Fix`), or, from a lint made without them, as `FixSummary`s. */
export interface Diagnostic<F extends FixSummary = Fix> {
  code: string;
  /** The rule's kebab-case name, e.g. `non-json-value`. */
  name: string;
  severity: Severity;
  message: string;
  range: Range;
  /** UTF-16 offsets of the range, for fixes and suppression lookups. */
  startOffset: number;
  endOffset: number;
  /** The preferred fix or rewrite: the one `--fix` / fix-all may apply (when safe) and the CLI's JSON names. */
  fix?: F;
  /**
   * Other rewrites of the same finding, offered beside `fix` as code actions of their own (AS405: one
   * durable task beside one deferrable task). Never applied by `--fix` / fix-all; absent when there are none.
   */
  alternatives?: F[];
  /**
   * Other places of the same finding, reported once rather than once per place (AS401: every other
   * `Variable` call of the key in the task); absent when there are none.
   */
  related?: RelatedLocations;
}

/** A finding as any lint gives it: its fixes with their edits, or their summaries from a lint made without (`LintOptions.fixEdits`). */
export type FoundDiagnostic = Diagnostic<FixSummary>;

/** Places that belong to a finding, and what they are (LSP's `relatedInformation`, SARIF's `relatedLocations`). */
export interface RelatedLocations {
  /** Said of each place, e.g. "Another call of the Variable `cursor`". */
  message: string;
  /** In document order. */
  ranges: Range[];
}
