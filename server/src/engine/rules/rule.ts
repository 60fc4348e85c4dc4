/**
 * What a rule is. Each rule lives in its own file under `rules/`, with a doc comment
 * (What it does / Why is this bad / Example / Use instead / Fix safety) right above its export;
 * `docs/rules/` is generated from those comments.
 */
export type { ExternalClass, WorkspaceClasses } from "../context";
import { SyntaxNode } from "../syntax/parser";
import type { AnalysisContext } from "../context";
import type { GateInputs } from "./textGates";
import { SemanticModel } from "../airflow/model";
import { Fix, OffsetRange, Severity } from "../types";

export interface Rule {
  /** `AS` and three digits. */
  code: string;
  /** kebab-case, e.g. `non-json-value`. */
  name: string;
  /** One line for tables and SARIF. */
  summary: string;
  defaultSeverity: Severity;
  /** The review section its findings go under, and the guidance's grouping of the rules. */
  category: RuleCategory;
  /** Whether its findings come with a fix, and how safe it is (what its doc's "Fix safety" says). */
  fix: FixAvailability;
  /** The inputs beyond the file's own text that the rule reads; front ends fetch only what some enabled rule needs. */
  inputs?: RuleInputs;
  /**
   * A cheap test of the file's text and inputs that holds wherever the rule can report anything
   * (see rules/textGates.ts). Where it fails the rule does not run; a file that fails it for every
   * enabled rule is not parsed. Absent: the rule always runs. Words are asked of `file.facts`
   * (`facts.includes("set")`), not searched in `file.text`: a lint after an edit works the facts
   * out from the last text's instead of scanning the whole text again.
   */
  mayReport?(file: GateInputs): boolean;
  /**
   * What each finding is about, when that is one part of the file, so that a lint after an edit
   * recomputes only the findings of the functions the edit touched and keeps the others
   * (`engine/incremental.ts`). The rule then examines only what lies in `context.regions`:
   * - `"store use"`: the rule examines the uses of a state store that lie in `regions` (the store
   *   calls of `model.storeCallsWithin(regions)`, the indexed asset stores there) and reports each
   *   finding inside its use. A use's findings may depend on anything in the file but the bodies of
   *   functions that neither enclose the use nor name the use's function.
   * - `"expression"`: the same for other expressions than store uses: the rule examines the
   *   expressions (calls, subscripts) that lie in `regions` and reports each finding inside its
   *   expression, whose findings may depend on anything in the file but the bodies of functions
   *   that neither enclose the expression nor name the expression's function.
   * - `"function"`: the rule examines the functions of `model.functionsOverlapping(regions)` and
   *   reports each finding in the function's header (decorators, name, parameters). A function's
   *   findings may depend on anything in the file but the bodies of functions that neither enclose
   *   it, nor lie in it, nor name it.
   * Absent: every lint recomputes the rule's findings over the whole file.
   */
  scope?: "store use" | "expression" | "function";
  check(context: RuleContext): void;
}

/** The guidance's groups of rules, in the order the review presents them. */
export type RuleCategory = "syntax" | "values" | "scope" | "crash" | "state" | "submit" | "version";

/** As ruff's `FixAvailability`, with the safety of the fix. */
export type FixAvailability = "safe" | "unsafe" | "safe or unsafe" | "none";

export interface RuleInputs {
  /**
   * The rule compares the file with its committed version (`baselineText`). Given the file's text,
   * says whether that version could matter: a cheap test, so that git is asked only for such files.
   */
  baseline?: (text: string) => boolean;
  /** The rule follows imports into the workspace's other modules (`workspace`). */
  workspace?: boolean;
  /** The rule reads the Airflow version the project pins (`airflowPin`). */
  airflowPin?: boolean;
}

export interface Report {
  /** The node to underline, or explicit UTF-16 offsets. */
  node?: SyntaxNode;
  start?: number;
  end?: number;
  message: string;
  /** The preferred fix or rewrite. */
  fix?: Fix;
  /** Other rewrites of the same finding, each its own code action; never applied by `--fix` / fix-all. */
  alternatives?: Fix[];
  /**
   * This finding's severity when it differs from the rule's `defaultSeverity` (AS105 reports a key
   * with a dot as a warning and a number as an error). A severity the user sets for the rule
   * (`airflowStateStore.rules`, `--rule-severity`) wins over it for every report of the rule.
   */
  severity?: Severity;
  /** Other places of the same finding, shown with it (its other calls) instead of as findings of their own. */
  related?: { message: string; nodes: readonly SyntaxNode[] };
}

/**
 * What a rule's check is given: the file's analysis context (its inputs, and `get(analysis)` for
 * what the rule needs), the file's semantic model, and where to report.
 */
export interface RuleContext extends AnalysisContext {
  readonly model: SemanticModel;
  /**
   * For a rule with a `scope`: the parts of the file whose findings this lint recomputes (function
   * definitions an edit touched). Undefined: the whole file. Rules without a `scope` never read it.
   */
  readonly regions?: readonly OffsetRange[];
  report(report: Report): void;
}
