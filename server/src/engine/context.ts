/**
 * The per-file analysis context, as ruff's `Checker`: made once per lint (or review, hover, outline)
 * from a file's text and the inputs a front end found for it. Analyses (the semantic model, the
 * dependency graph, the resumable operators, ...) are built the first time something asks for them
 * and kept for the rest of this context's life, so every rule that asks shares one build, and a file
 * whose rules ask for nothing costs no analysis at all. Nothing outlives the context: there are no
 * module-level caches, and a new lint starts from a new context.
 */
import type { Tree } from "./syntax/parser";
import type { AirflowPin } from "./project/pin";

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
   * Changes whenever what `resolveClass` answers may change (a module indexed, changed or
   * forgotten, the folders searched); absent when unknown. A lint after an edit that changed no code
   * keeps the findings of rules that read the workspace only while this stays the same.
   */
  readonly version?: number;
  /**
   * The class a qualified name from `fromPath`'s imports stands for: absolute (`include.operators.SparkOp`),
   * relative (`.operators.SparkOp`), or a sibling module of the importing file's folder, which Airflow
   * puts on `sys.path` (`operators.SparkOp`).
   */
  resolveClass(qualifiedName: string, fromPath: string | undefined): ExternalClass | undefined;
}

/** A file and what is known about it beyond its text. */
export interface FileInputs {
  readonly text: string;
  /** Filesystem path of the file, when it has one. */
  readonly path?: string;
  /** The file's text at the baseline revision (for AS301); undefined without git or for untracked files. */
  readonly baselineText?: string;
  /** Classes defined in the workspace's other modules; undefined when no index is available. */
  readonly workspace?: WorkspaceClasses;
  /** The Airflow version the file's project pins (AS501, AS502); undefined when none is known. */
  readonly airflowPin?: AirflowPin;
}

/** How to build one analysis of a file. A definition is a constant; what it builds lives in a context. */
export interface Analysis<T> {
  readonly name: string;
  build(context: AnalysisContext): T;
}

export function analysis<T>(name: string, build: (context: AnalysisContext) => T): Analysis<T> {
  return { name, build };
}

export class AnalysisContext implements FileInputs {
  readonly text: string;
  readonly path?: string;
  readonly baselineText?: string;
  readonly workspace?: WorkspaceClasses;
  readonly airflowPin?: AirflowPin;
  private syntaxTree: Tree | undefined;
  private readonly built = new Map<Analysis<unknown>, unknown>();
  private readonly building = new Set<Analysis<unknown>>();

  /** `tree`: the file's syntax tree, or how to get it; it is asked for only when an analysis needs it. */
  constructor(
    inputs: FileInputs,
    private readonly treeOrParse: Tree | (() => Tree),
  ) {
    this.text = inputs.text;
    this.path = inputs.path;
    this.baselineText = inputs.baselineText;
    this.workspace = inputs.workspace;
    this.airflowPin = inputs.airflowPin;
  }

  get tree(): Tree {
    return (this.syntaxTree ??= typeof this.treeOrParse === "function" ? this.treeOrParse() : this.treeOrParse);
  }

  /** The analysis of this file, built on first use. */
  get<T>(definition: Analysis<T>): T {
    if (this.built.has(definition)) return this.built.get(definition) as T;
    if (this.building.has(definition)) throw new Error(`the ${definition.name} analysis depends on itself`);
    this.building.add(definition);
    try {
      const value = definition.build(this);
      this.built.set(definition, value);
      return value;
    } finally {
      this.building.delete(definition);
    }
  }

  /** The analysis when something asked for it already; never builds it. */
  peek<T>(definition: Analysis<T>): T | undefined {
    return this.built.get(definition) as T | undefined;
  }

  /** Records an analysis built elsewhere (a semantic model made directly from a tree), so it is not built twice. */
  provide<T>(definition: Analysis<T>, value: T): void {
    this.built.set(definition, value);
  }
}
