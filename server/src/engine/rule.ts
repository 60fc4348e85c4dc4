/**
 * What a rule is. Each rule lives in its own file under `rules/`, with a doc comment
 * (What it does / Why is this bad / Example / Use instead / Fix safety) right above its export;
 * `docs/rules/` is generated from those comments.
 */
import { SyntaxNode } from "./parser";
import { SemanticModel } from "./semantic/model";
import { Fix, Severity } from "./types";

export interface Rule {
  /** `AS` and three digits. */
  code: string;
  /** kebab-case, e.g. `non-json-value`. */
  name: string;
  /** One line for tables and SARIF. */
  summary: string;
  defaultSeverity: Severity;
  check(context: RuleContext): void;
}

export interface Report {
  /** The node to underline, or explicit UTF-16 offsets. */
  node?: SyntaxNode;
  start?: number;
  end?: number;
  message: string;
  fix?: Fix;
}

export interface RuleContext {
  readonly model: SemanticModel;
  readonly text: string;
  /** Filesystem path of the file, when it has one. */
  readonly path?: string;
  /** The file's text at the baseline revision (for AS301); undefined without git or for untracked files. */
  readonly baselineText?: string;
  report(report: Report): void;
}
