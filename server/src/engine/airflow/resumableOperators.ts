/**
 * What the ResumableJobMixin rules (AS302–AS309) ask about a file: which classes are
 * `ResumableJobMixin` operators, through classes of this file and of the workspace's other modules;
 * which calls create such an operator (including Airflow's provider operators built on the mixin);
 * and which DAG `default_args` apply to a call. Computed once per model and shared by the rules.
 */
import { callsOfNames, SyntaxNode, withStatements } from "../syntax/parser";
import { analysis, AnalysisContext, ExternalClass, WorkspaceClasses } from "../context";
import { CallInfo, ClassInfo, DagInfo, SemanticModel, semanticModel } from "./model";
import { definitionStatement, plainString } from "../syntax/nodes";

/** One of the six methods the mixin declares abstract, with the signature `execute_resumable` calls it with. */
export interface MixinMethod {
  name: string;
  /** Parameters after `self`, in the order the mixin passes them positionally. */
  parameters: readonly string[];
  /** Return annotation of the documented signature, if it has one. */
  returns?: string;
}

/** In the order Airflow's documentation lists them. */
export const ABSTRACT_METHODS: readonly MixinMethod[] = [
  { name: "submit_job", parameters: ["context"] },
  { name: "get_job_status", parameters: ["external_id", "context"], returns: "str" },
  { name: "is_job_active", parameters: ["status"], returns: "bool" },
  { name: "is_job_succeeded", parameters: ["status"], returns: "bool" },
  { name: "poll_until_complete", parameters: ["external_id", "context"], returns: "None" },
  { name: "get_job_result", parameters: ["external_id", "context"] },
];

/** `ResumableJobMixin.external_id_key` in Airflow. */
export const DEFAULT_EXTERNAL_ID_KEY = "remote_job_id";
export const EXTERNAL_ID_KEY = "external_id_key";

/** Airflow's `airflow.sdk.ResumableJobMixin` under any import path, or a star-imported bare name. */
export function isResumableJobMixin(qualifiedName: string): boolean {
  return qualifiedName === "ResumableJobMixin" || qualifiedName.endsWith(".ResumableJobMixin");
}

/** Airflow's `BaseOperator` under any of its import paths, or a star-imported bare name. */
export function isAirflowBaseOperator(qualifiedName: string): boolean {
  return /^(airflow\.([A-Za-z_]\w*\.)*)?BaseOperator$/.test(qualifiedName);
}

/** An operator of Airflow's providers whose synchronous path runs on the mixin: it implements the six methods and sets its own key. */
export interface ProviderOperator {
  /** The class name. */
  name: string;
  /** The module of the provider that defines it. */
  module: string;
  /** The `external_id_key` it sets, where it was read in the provider's source. */
  externalIdKey?: string;
}

/**
 * The provider operators built on `ResumableJobMixin`, read in the providers' source: the one list
 * that AS302–AS309, AS405–AS407, AS502, the review and hover read. Adding an operator is one line;
 * docs/provider-operators.md shows the same table (test/engine/resumable.test.ts compares them).
 */
export const PROVIDER_OPERATORS: readonly ProviderOperator[] = [
  { name: "SparkSubmitOperator", module: "airflow.providers.apache.spark.operators.spark_submit", externalIdKey: "spark_job_id" },
  { name: "DatabricksSubmitRunOperator", module: "airflow.providers.databricks.operators.databricks" },
  { name: "DatabricksRunNowOperator", module: "airflow.providers.databricks.operators.databricks" },
  { name: "SnowflakeSqlApiOperator", module: "airflow.providers.snowflake.operators.snowflake" },
  { name: "SnowparkContainerJobOperator", module: "airflow.providers.snowflake.operators.snowpark_containers", externalIdKey: "snowpark_container_job_name" },
  { name: "RedshiftDataOperator", module: "airflow.providers.amazon.aws.operators.redshift_data", externalIdKey: "redshift_statement_id" },
  { name: "AthenaOperator", module: "airflow.providers.amazon.aws.operators.athena", externalIdKey: "athena_query_execution_id" },
  { name: "GlueJobOperator", module: "airflow.providers.amazon.aws.operators.glue" },
  { name: "BigQueryInsertJobOperator", module: "airflow.providers.google.cloud.operators.bigquery" },
  { name: "CloudDataFusionStartPipelineOperator", module: "airflow.providers.google.cloud.operators.datafusion", externalIdKey: "datafusion_pipeline_run_id" },
  { name: "AzureDataFactoryRunPipelineOperator", module: "airflow.providers.microsoft.azure.operators.data_factory", externalIdKey: "azure_data_factory_run_id" },
  { name: "AirbyteTriggerSyncOperator", module: "airflow.providers.airbyte.operators.airbyte", externalIdKey: "airbyte_job_id" },
  { name: "AnthropicBatchOperator", module: "airflow.providers.anthropic.operators.batch", externalIdKey: "anthropic_batch_id" },
  { name: "OpenAITriggerBatchOperator", module: "airflow.providers.openai.operators.openai", externalIdKey: "openai_batch_id" },
];

/** The provider operators' class names, for text tests. */
export const MIXIN_PROVIDER_OPERATORS: readonly string[] = PROVIDER_OPERATORS.map((operator) => operator.name);

const PROVIDER_OPERATORS_BY_NAME: ReadonlyMap<string, ProviderOperator> = new Map(PROVIDER_OPERATORS.map((operator) => [operator.name, operator]));

/**
 * The provider operator `qualifiedName` names, when it is one built on the mixin: matched by class
 * name under `airflow.providers.`, so that a provider's re-export of the class counts too.
 */
export function providerOperatorInfo(qualifiedName: string): ProviderOperator | undefined {
  if (!qualifiedName.startsWith("airflow.providers.")) return undefined;
  return PROVIDER_OPERATORS_BY_NAME.get(qualifiedName.slice(qualifiedName.lastIndexOf(".") + 1));
}

/** The operator's class name when `qualifiedName` is one of the provider operators built on the mixin. */
export function providerOperator(qualifiedName: string): string | undefined {
  return providerOperatorInfo(qualifiedName)?.name;
}

/** Bases known to define nothing the rules look for (no mixin method, no `external_id_key`). */
const EMPTY_BASES = new Set(["object", "abc.ABC"]);

/** A class some class derives from. */
export type Ancestor =
  | { kind: "local"; cls: ClassInfo }
  | { kind: "external"; cls: ExternalClass }
  | { kind: "mixin"; name: string }
  /** A provider operator built on the mixin: it implements the six methods and sets its own key. */
  | { kind: "provider"; name: string }
  /** Airflow's `BaseOperator`, `object`, `abc.ABC`: known, and defining none of the mixin's names. */
  | { kind: "empty"; name: string; operator: boolean }
  /** A base that cannot be resolved, or a class of a module outside the workspace. */
  | { kind: "unknown"; name?: string };

export interface Ancestry {
  /** Every class the class derives from, each once, in the order its bases are written (depth first). */
  ancestors: Ancestor[];
  /** `ResumableJobMixin` (or a provider operator built on it) is among the ancestors. */
  resumable: boolean;
  /** Airflow's `BaseOperator` (or a provider operator) is among the ancestors. */
  operator: boolean;
  /** Every ancestor is known: nothing could define a method or an attribute the rules cannot see. */
  complete: boolean;
}

/** A call that creates a `ResumableJobMixin` operator: `SparkBatch(...)`, or `SparkBatch.partial(...)` of a mapped task. */
export interface OperatorCall {
  call: CallInfo;
  /** The class's name as written in the file's imports or definitions (`include.operators.SparkBatch`). */
  className: string;
  /** The class itself when it is defined in this file. */
  local?: ClassInfo;
  /** The class when it is defined in another module of the workspace. */
  external?: ExternalClass;
}

/** A DAG and the part of the file its `default_args` apply to. */
export interface DagScope {
  dag: DagInfo;
  /** UTF-16 offsets of the `with` block's body or the `@dag` function's body. */
  bodyStart: number;
  bodyEnd: number;
}

/**
 * Whether the parser read the whole class: no error inside it, it is not itself part of code the
 * parser could not read, and no such code follows it (where the rest of an indented body can end up).
 */
function parsedCompletely(cls: ClassInfo): boolean {
  if (cls.node.hasError) return false;
  const definition = definitionStatement(cls.node);
  if (definition.nextSibling?.type === "ERROR") return false;
  for (let ancestor = definition.parent; ancestor; ancestor = ancestor.parent) if (ancestor.type === "ERROR") return false;
  return true;
}

/** Where a base class's name is resolved: this file's imports and definitions, or a workspace class's module. */
type BaseOrigin = { kind: "local" } | { kind: "external"; cls: ExternalClass };
const LOCAL: BaseOrigin = { kind: "local" };

/** How far chains of base classes across modules are followed. */
const MAX_DEPTH = 16;

export class ResumableOperators {
  private readonly ancestries = new Map<number, Ancestry>();
  private readonly externalAncestries = new Map<string, Ancestry>();
  private resumableList?: ClassInfo[];
  private dagScopeList?: DagScope[];
  private instantiatedNames?: Set<string>;
  private baseNameSet?: Set<string>;
  /** What each base name of this file's classes stands for: a chain of classes asks for each name once per class below it. */
  private readonly localBases = new Map<string, Ancestor>();
  private readonly ancestorKeys = new Map<Ancestor, string>();
  private readonly externalOrigins = new Map<ExternalClass, BaseOrigin>();
  /** The walk (`collect`) that last visited each ancestor, by its key. */
  private readonly visitedInWalk = new Map<string, number>();
  private readonly mixinDistances = new Map<ClassInfo, number>();
  private walks = 0;

  constructor(
    readonly model: SemanticModel,
    private readonly workspace: WorkspaceClasses | undefined,
    private readonly path: string | undefined,
  ) {}

  /** The analysis of a file, shared by every rule that lints it. */
  static of(context: AnalysisContext): ResumableOperators {
    return context.get(resumableOperators);
  }

  // ---- classes ----

  /** The classes of this file that are `ResumableJobMixin` operators (or mixins), directly or through their bases. */
  get classes(): ClassInfo[] {
    if (!this.resumableList) this.resumableList = this.model.classes.filter((cls) => this.mixinDistance(cls) <= MAX_DEPTH && this.ancestry(cls).resumable);
    return this.resumableList;
  }

  /**
   * A lower bound of how deep a walk of the class's bases (`collect`) meets `ResumableJobMixin` or a
   * provider operator (0: among its own bases), Infinity when it cannot: past MAX_DEPTH, the class
   * is no mixin operator, and its ancestry need not be walked. Kept per class, so that a chain of
   * 20,000 classes costs a step per class instead of a walk 16 deep for each. Where the answer is not
   * followed (a workspace class, a cycle, past MAX_DEPTH) it is taken as 0, which only keeps a class
   * in the walk.
   */
  private mixinDistance(cls: ClassInfo, depth = 0): number {
    const known = this.mixinDistances.get(cls);
    if (known !== undefined) return known;
    if (depth > MAX_DEPTH) return 0;
    this.mixinDistances.set(cls, 0);
    let distance = Number.POSITIVE_INFINITY;
    for (const name of cls.baseNames) {
      const base = this.resolveBase(name, LOCAL);
      if (base.kind === "mixin" || base.kind === "provider" || base.kind === "external") distance = 0;
      else if (base.kind === "local") distance = Math.min(distance, 1 + this.mixinDistance(base.cls, depth + 1));
      if (distance === 0) break;
    }
    this.mixinDistances.set(cls, distance);
    return distance;
  }

  ancestry(cls: ClassInfo): Ancestry {
    let result = this.ancestries.get(cls.range.start);
    if (!result) {
      result = this.collect(cls.baseNames, LOCAL, localKey(cls));
      this.ancestries.set(cls.range.start, result);
    }
    return result;
  }

  /** The ancestry of a class of another module, as seen through the workspace. */
  externalAncestry(cls: ExternalClass): Ancestry {
    const key = externalKey(cls);
    let result = this.externalAncestries.get(key);
    if (!result) {
      result = this.collect(cls.baseNames, this.externalOrigin(cls), key);
      this.externalAncestries.set(key, result);
    }
    return result;
  }

  /** The ancestry of a base class named as this file's imports and definitions name it; undefined when it is not a class of the file or the workspace. */
  ancestryOfBase(qualifiedName: string): Ancestry | undefined {
    const base = this.resolveBase(qualifiedName, { kind: "local" });
    if (base.kind === "local") return this.ancestry(base.cls);
    if (base.kind === "external") return this.externalAncestry(base.cls);
    return undefined;
  }

  /**
   * The class `cls` or one of its ancestors defines `name` (a method or a class attribute): "yes",
   * "no", or "unknown" when an ancestor cannot be seen or the body of the class or of a base in this
   * file does not parse (what the parser could not read may define it).
   */
  defines(cls: ClassInfo, name: string, kind: "method" | "attribute"): "yes" | "no" | "unknown" {
    if (cls.scope.own(name) !== undefined || cls.methods.has(name)) return "yes";
    const { ancestors, complete } = this.ancestry(cls);
    for (const ancestor of ancestors) {
      if (ancestor.kind === "local" && (ancestor.cls.scope.own(name) !== undefined || ancestor.cls.methods.has(name))) return "yes";
      if (ancestor.kind === "external" && (kind === "method" ? ancestor.cls.methods.has(name) : ancestor.cls.stringAttributes.has(name) || ancestor.cls.methods.has(name))) return "yes";
      // Provider operators implement the mixin's methods and set their own key.
      if (ancestor.kind === "provider") return "yes";
    }
    const parsed = parsedCompletely(cls) && ancestors.every((ancestor) => ancestor.kind !== "local" || parsedCompletely(ancestor.cls));
    return complete && parsed ? "no" : "unknown";
  }

  /**
   * Whether the class looks meant to be instantiated as a task, not to be a base of other operators:
   * it is instantiated in this file, or it derives from `BaseOperator`, no class of this file derives
   * from it, and neither its name (`Base...`, `Abstract...`, `...Base`, `...Mixin`) nor `@abstractmethod`
   * marks it as abstract.
   */
  isConcrete(cls: ClassInfo): boolean {
    if (this.instantiated().has(cls.name)) return true;
    if (!this.ancestry(cls).operator) return false;
    if (/^(Base|Abstract)|(Base|Mixin)$/.test(cls.name)) return false;
    if (this.baseNames().has(cls.name)) return false;
    return ![...cls.methods.values()].some((method) => decoratorNames(method.node).some((name) => name === "abstractmethod" || name.endsWith(".abstractmethod")));
  }

  // ---- calls ----

  /**
   * The calls creating a mixin operator that pass `keyword=`. They are found from the keyword's
   * occurrences in the text, which are few, rather than by visiting every call of the file.
   */
  operatorCallsWith(keyword: string): OperatorCall[] {
    const result: OperatorCall[] = [];
    const pattern = new RegExp(`\\b${keyword}\\s*=(?!=)`, "g");
    for (const match of this.model.text.matchAll(pattern)) {
      const name = this.model.root.descendantForIndex(match.index!);
      const argument = name.parent;
      if (name.type !== "identifier" || argument?.type !== "keyword_argument" || argument.childForFieldName("name")?.id !== name.id) continue;
      const call = argument.parent?.parent;
      if (call?.type !== "call") continue;
      const operator = this.operatorCall(this.model.callInfo(call));
      if (operator) result.push(operator);
    }
    return result;
  }

  /** The calls creating a mixin operator inside a DAG's body, not inside a DAG nested in it. */
  operatorCallsIn(dag: DagScope): OperatorCall[] {
    const result: OperatorCall[] = [];
    for (const call of this.model.calls) {
      if (call.node.startIndex < dag.bodyStart || call.node.endIndex > dag.bodyEnd || this.dagOf(call.node) !== dag) continue;
      const operator = this.operatorCall(call);
      if (operator) result.push(operator);
    }
    return result;
  }

  /** The operator a call creates, when it is a `ResumableJobMixin` operator: a class of this file or the workspace, or a provider operator. */
  operatorCall(call: CallInfo): OperatorCall | undefined {
    // Resolving a callee looks its names up; the name as written rules out most calls first.
    if (!this.mayNameOperatorClass(call.node.childForFieldName("function"))) return undefined;
    const callee = call.callee;
    if (!callee) return undefined;
    // `Operator.partial(...)` of a mapped task takes the operator's arguments.
    const className = callee.replace(/\.partial$/, "");
    if (providerOperator(className)) return { call, className };
    const local = this.moduleClass(className);
    if (local) return this.ancestry(local).resumable ? { call, className, local } : undefined;
    if (this.model.classesNamed(className).length > 0) return undefined;
    // Operator classes are CapWords; `datetime.datetime(...)` and `print(...)` are not worth a look-up.
    if (!/^[A-Z]/.test(className.slice(className.lastIndexOf(".") + 1))) return undefined;
    const external = this.resolveInWorkspace(className, this.path);
    if (external && this.externalAncestry(external).resumable) return { call, className, external };
    return undefined;
  }

  /**
   * Whether a callee as written (`SparkOperator`, `ops.SparkOperator`, `SparkOperator.partial`) can
   * name an operator class: a provider's or the workspace's (CapWords, as operator classes are), or
   * a class of this file.
   */
  private mayNameOperatorClass(callee: SyntaxNode | null): boolean {
    let node = callee;
    if (node?.type === "attribute" && node.childForFieldName("attribute")?.text === "partial") node = node.childForFieldName("object");
    const name = node?.type === "attribute" ? node.childForFieldName("attribute")?.text : node?.type === "identifier" ? node.text : undefined;
    return name !== undefined && (/^[A-Z]/.test(name) || this.model.classesNamed(name).length > 0);
  }

  // ---- DAGs ----

  /** The DAGs of the file with the ranges their `default_args` apply to. */
  get dagScopes(): DagScope[] {
    if (!this.dagScopeList) this.dagScopeList = this.findDagScopes();
    return this.dagScopeList;
  }

  /** The innermost DAG whose `with` block or `@dag` function contains `node`. */
  dagOf(node: SyntaxNode): DagScope | undefined {
    let found: DagScope | undefined;
    for (const scope of this.dagScopes) {
      if (node.startIndex >= scope.bodyStart && node.endIndex <= scope.bodyEnd && (!found || scope.bodyStart >= found.bodyStart)) found = scope;
    }
    return found;
  }

  /** The `default_args` dictionary that applies to a call, if any. */
  defaultArgsOf(node: SyntaxNode): SyntaxNode | undefined {
    return this.dagOf(node)?.dag.defaultArgs;
  }

  // ---- internals ----

  /** A class defined once at module level of this file under `name`. */
  private moduleClass(name: string): ClassInfo | undefined {
    const matches = this.model.classesNamed(name);
    return matches.length === 1 && this.model.module.unique(name)?.kind === "class" ? matches[0] : undefined;
  }

  /** The ancestry of the class `ownKey` names, whose bases are `bases`, written where `from` says. */
  private collect(bases: readonly (string | undefined)[], from: BaseOrigin, ownKey: string): Ancestry {
    const result: Ancestry = { ancestors: [], resumable: false, operator: false, complete: true };
    // The classes visited in this walk are those stamped with its number: a chain of 20,000 classes
    // walks 20,000 times, and one map serves them all.
    const walk = ++this.walks;
    const visited = this.visitedInWalk;
    visited.set(ownKey, walk);
    const visit = (names: readonly (string | undefined)[], from: BaseOrigin, depth: number) => {
      for (const name of names) {
        if (depth > MAX_DEPTH) {
          result.complete = false;
          return;
        }
        const ancestor = this.resolveBase(name, from);
        switch (ancestor.kind) {
          case "mixin":
            result.resumable = true;
            break;
          case "provider":
            result.resumable = true;
            result.operator = true;
            break;
          case "empty":
            if (ancestor.operator) result.operator = true;
            break;
          case "unknown":
            result.complete = false;
            break;
        }
        const key = this.keyOf(ancestor);
        if (visited.get(key) === walk) {
          // A cycle (`class A(B)` / `class B(A)`) cannot run; a diamond is fine and already visited.
          continue;
        }
        visited.set(key, walk);
        result.ancestors.push(ancestor);
        if (ancestor.kind === "local") visit(ancestor.cls.baseNames, LOCAL, depth + 1);
        if (ancestor.kind === "external") visit(ancestor.cls.baseNames, this.externalOrigin(ancestor.cls), depth + 1);
      }
    };
    visit(bases, from, 0);
    return result;
  }

  /** What tells an ancestor from the others: a class of this file by its place, one of the workspace by its module and name. */
  private keyOf(ancestor: Ancestor): string {
    let key = this.ancestorKeys.get(ancestor);
    if (key === undefined) {
      key = ancestor.kind === "local" ? localKey(ancestor.cls) : ancestor.kind === "external" ? externalKey(ancestor.cls) : `${ancestor.kind}:${ancestor.name}`;
      this.ancestorKeys.set(ancestor, key);
    }
    return key;
  }

  /** Where the bases of a workspace class are resolved from: one object per class, so that its resolved bases can be looked up. */
  private externalOrigin(cls: ExternalClass): BaseOrigin {
    let origin = this.externalOrigins.get(cls);
    if (!origin) this.externalOrigins.set(cls, (origin = { kind: "external", cls }));
    return origin;
  }

  private resolveBase(name: string | undefined, from: { kind: "local" } | { kind: "external"; cls: ExternalClass }): Ancestor {
    if (!name) return { kind: "unknown" };
    if (from.kind !== "local") return this.resolveBaseOnce(name, from);
    let base = this.localBases.get(name);
    if (!base) this.localBases.set(name, (base = this.resolveBaseOnce(name, from)));
    return base;
  }

  private resolveBaseOnce(name: string, from: { kind: "local" } | { kind: "external"; cls: ExternalClass }): Ancestor {
    if (isResumableJobMixin(name)) return { kind: "mixin", name };
    const provider = providerOperator(name);
    if (provider) return { kind: "provider", name: provider };
    if (isAirflowBaseOperator(name)) return { kind: "empty", name, operator: true };
    if (EMPTY_BASES.has(name)) return { kind: "empty", name, operator: false };
    if (from.kind === "local") {
      const local = this.moduleClass(name);
      if (local) return { kind: "local", cls: local };
      if (this.model.classesNamed(name).length > 0) return { kind: "unknown", name };
      const external = this.resolveInWorkspace(name, this.path);
      return external ? { kind: "external", cls: external } : { kind: "unknown", name };
    }
    const external = this.resolveInWorkspace(name, from.cls.path) ?? this.sameModuleClass(name, from.cls);
    return external ? { kind: "external", cls: external } : { kind: "unknown", name };
  }

  /** A class of the workspace; Airflow's own packages are not part of it. */
  private resolveInWorkspace(qualifiedName: string, fromPath: string | undefined): ExternalClass | undefined {
    if (!this.workspace || qualifiedName === "airflow" || qualifiedName.startsWith("airflow.")) return undefined;
    return this.workspace.resolveClass(qualifiedName, fromPath);
  }

  /** A base written as a bare name in another module (`class SparkBatch(BatchBase)`) is a class of that module. */
  private sameModuleClass(name: string, of: ExternalClass): ExternalClass | undefined {
    const dot = of.qualifiedName.lastIndexOf(".");
    if (name.includes(".") || dot < 0) return undefined;
    return this.resolveInWorkspace(`${of.qualifiedName.slice(0, dot)}.${name}`, of.path);
  }

  /** The names the classes of this file give their bases. */
  private baseNames(): Set<string> {
    return (this.baseNameSet ??= new Set(this.model.classes.flatMap((c) => c.baseNames.filter((name): name is string => name !== undefined))));
  }

  /** Names of the classes of this file that some call instantiates (directly or with `.partial`). */
  private instantiated(): Set<string> {
    if (!this.instantiatedNames) {
      this.instantiatedNames = new Set();
      const names = new Set(this.model.classes.map((c) => c.name));
      // Only `C(...)` and `C.partial(...)` of a class `C` of this file can instantiate it: the calls
      // so written are found from the text, not by listing every call of the file.
      for (const node of names.size === 0 ? [] : callsOfNames(this.model.tree, this.model.text, names, "partial")) {
        const call = this.model.callInfo(node);
        const callee = call.callee?.replace(/\.partial$/, "");
        if (callee && names.has(callee)) this.instantiatedNames.add(callee);
      }
    }
    return this.instantiatedNames;
  }

  private findDagScopes(): DagScope[] {
    const scopes: DagScope[] = [];
    const dags = this.model.dags;
    if (dags.length === 0) return scopes;
    // Each `with` statement's clause, read once (in document order) rather than once per DAG.
    const withClauses = withStatements(this.model.tree, this.model.text).flatMap((statement) => {
      const clause = statement.namedChildren.find((c) => c.type === "with_clause");
      return clause ? [{ statement, start: clause.startIndex, end: clause.endIndex }] : [];
    });
    for (const dag of dags) {
      if (dag.node.type === "function_definition") {
        const body = dag.node.childForFieldName("body");
        if (body) scopes.push({ dag, bodyStart: body.startIndex, bodyEnd: body.endIndex });
        continue;
      }
      const call = dag.call?.node;
      if (!call) continue;
      const start = call.startIndex;
      const end = call.endIndex;
      const statement = withClauses.find((w) => start >= w.start && end <= w.end)?.statement;
      const body = statement?.childForFieldName("body");
      if (body) scopes.push({ dag, bodyStart: body.startIndex, bodyEnd: body.endIndex });
    }
    return scopes;
  }
}

const resumableOperators = analysis("resumable operators", (context) => new ResumableOperators(context.get(semanticModel), context.workspace, context.path));

function localKey(cls: ClassInfo): string {
  return `local:${cls.range.start}`;
}

function externalKey(cls: ExternalClass): string {
  return `external:${cls.path}:${cls.qualifiedName}`;
}

/** The dotted names of a function's decorators (`abstractmethod`, `abc.abstractmethod`, `staticmethod`). */
export function decoratorNames(fn: SyntaxNode): string[] {
  const decorated = fn.parent;
  if (decorated?.type !== "decorated_definition") return [];
  const names: string[] = [];
  for (const decorator of decorated.namedChildren) {
    if (decorator.type !== "decorator") continue;
    const expression = decorator.namedChildren[0];
    const target = expression?.type === "call" ? expression.childForFieldName("function") : expression;
    if (target) names.push(target.text);
  }
  return names;
}

/** The `"key": value` pair of a dictionary display whose key is the string `key` (the last one, as Python keeps). */
export function dictionaryEntry(dictionary: SyntaxNode | undefined, key: string): { pair: SyntaxNode; value: SyntaxNode } | undefined {
  if (dictionary?.type !== "dictionary") return undefined;
  let found: { pair: SyntaxNode; value: SyntaxNode } | undefined;
  for (const pair of dictionary.namedChildren) {
    if (pair.type === "dictionary_splat") found = undefined; // `**other` may set the key after or instead
    if (pair.type !== "pair" || plainString(pair.childForFieldName("key")) !== key) continue;
    const value = pair.childForFieldName("value");
    if (value) found = { pair, value };
  }
  return found;
}

/** `SparkBatchOperator` → `spark_batch`: the class name in snake case, without a trailing `Operator`. */
export function snakeCaseClassName(name: string): string {
  const stem = /^\w+Operator$/.test(name) && name !== "Operator" ? name.slice(0, -"Operator".length) : name;
  // An underscore before each capital that ends a lower-case word or starts one after an acronym
  // (`HTTPBatch` → `http_batch`); look-arounds of one character, so no run of capitals is tried twice.
  return stem
    .replace(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/g, "_")
    .replace(/^_+/, "")
    .toLowerCase();
}

