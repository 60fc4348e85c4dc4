/**
 * What a rule is. Each rule lives in its own file under `rules/`, with a doc comment
 * (What it does / Why is this bad / Example / Use instead / Fix safety) right above its export;
 * `docs/rules/` is generated from those comments.
 */
import { SyntaxNode } from "./parser";
import { AirflowPin } from "./project/pin";
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
  /** The review section its findings go under, and the guidance's grouping of the rules. */
  category: RuleCategory;
  /** Whether its findings come with a fix, and how safe it is (what its doc's "Fix safety" says). */
  fix: FixAvailability;
  /** The inputs beyond the file's own text that the rule reads; front ends fetch only what some enabled rule needs. */
  inputs?: RuleInputs;
  check(context: RuleContext): void;
}

/** The guidance's groups of rules, in the order the review presents them. */
export type RuleCategory = "values" | "scope" | "crash" | "state" | "submit" | "version";

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
}

export interface RuleContext {
  readonly model: SemanticModel;
  readonly text: string;
  /** Filesystem path of the file, when it has one. */
  readonly path?: string;
  /** The file's text at the baseline revision (for AS301); undefined without git or for untracked files. */
  readonly baselineText?: string;
  /** Classes defined in the workspace's other modules; undefined when no index is available. */
  readonly workspace?: WorkspaceClasses;
  /** The Airflow version the file's project pins (AS501, AS502); undefined when none is known. */
  readonly airflowPin?: AirflowPin;
  report(report: Report): void;
}

/** What rules may know of a class defined in another module of the workspace. */
export interface ExternalClass {
  /** `include.operators.SparkOperator` */
  qualifiedName: string;
  /** The file that defines it. */
  path: string;
  /** Qualified names of its bases as written in its own module, resolved through that module's imports. */
  baseNames: (string | undefined)[];
  /** Class-level attributes assigned a plain string literal (`external_id_key = "spark_id"`). */
  stringAttributes: ReadonlyMap<string, string>;
  /** Names of the methods the class body defines. */
  methods: ReadonlySet<string>;
}

export interface WorkspaceClasses {
  /**
   * The class a qualified name from `fromPath`'s imports stands for: absolute (`include.operators.SparkOp`),
   * relative (`.operators.SparkOp`), or a sibling module of the importing file's folder, which Airflow
   * puts on `sys.path` (`operators.SparkOp`).
   */
  resolveClass(qualifiedName: string, fromPath: string | undefined): ExternalClass | undefined;
}
