/**
 * What the workspace index keeps of a Python module: its top-level classes and the names its
 * imports bind, as plain strings. The syntax tree and the semantic model it was read from are
 * dropped, so a large workspace costs a few small maps per file.
 */
import { parsePython, sameScopeStatements, SyntaxNode } from "../syntax/parser";
import { PythonModel } from "../python/model";
import { plainString } from "../syntax/nodes";

export interface ClassSummary {
  name: string;
  /** Qualified names of the bases through the module's own imports (`airflow.sdk.ResumableJobMixin`, `.base.Base`, or `Base` for a class of the same module). */
  baseNames: (string | undefined)[];
  /** Class-level attributes bound once to a plain string, directly or through a module constant. */
  stringAttributes: ReadonlyMap<string, string>;
  methods: ReadonlySet<string>;
}

export interface ModuleSummary {
  /** Classes defined once at module level, by name. */
  classes: ReadonlyMap<string, ClassSummary>;
  /** Module-level names bound once by an import, to the qualified name they import (relative ones keep their dots). */
  imports: ReadonlyMap<string, string>;
  /** Modules imported with `from module import *` at module level. */
  starImports: readonly string[];
  /** Whether Airflow would parse the file looking for DAGs (see `looksLikeDagFile`). */
  isDagFile: boolean;
  /** Equal for two summaries exactly when they say the same; tells a real change from an edit inside a function. */
  fingerprint: string;
}

/**
 * Airflow's DAG discovery in safe mode (the default) only imports files whose text contains both
 * "airflow" and "dag", case-insensitively; those files' folders are where its DAG folder lies.
 */
export function looksLikeDagFile(text: string): boolean {
  return /airflow/i.test(text) && /dag/i.test(text);
}

/** A file without either keyword defines no class and re-exports nothing: no need to parse it. */
const MAY_DEFINE_OR_IMPORT = /\bclass\b|\bimport\b/;

export function summarizeText(text: string): ModuleSummary {
  if (!MAY_DEFINE_OR_IMPORT.test(text)) return emptySummary(looksLikeDagFile(text));
  return summarizeModel(new PythonModel(parsePython(text), text));
}

/** For a file whose model is already built (an open document). */
export function summarizeModel(model: PythonModel): ModuleSummary {
  const classes = new Map<string, ClassSummary>();
  for (const cls of model.classes) {
    if (cls.scope.parent !== model.module || model.module.unique(cls.name)?.kind !== "class") continue;
    const stringAttributes = new Map<string, string>();
    for (const name of namesAssignedIn(cls.node.childForFieldName("body"))) {
      const bindings = cls.scope.own(name);
      if (!bindings || bindings.length !== 1 || bindings[0].kind !== "assign" || !bindings[0].value) continue;
      const value = plainString(model.resolveValue(bindings[0].value));
      if (value !== undefined) stringAttributes.set(name, value);
    }
    classes.set(cls.name, { name: cls.name, baseNames: cls.baseNames, stringAttributes, methods: new Set(cls.methods.keys()) });
  }
  // Only the names that some import binds are looked up, not every name of the file (an open
  // document is summarised again a moment after each change).
  const imports = new Map<string, string>();
  for (const name of new Set(model.importBindings().filter((b) => b.scope === model.module).map((b) => b.name))) {
    const bindings = model.module.own(name);
    if (bindings?.length === 1 && bindings[0].kind === "import" && bindings[0].qualifiedName) imports.set(name, bindings[0].qualifiedName);
  }
  const starImports: string[] = [];
  for (const statement of model.root.namedChildren) {
    if (statement.type !== "import_from_statement" || !statement.namedChildren.some((c) => c.type === "wildcard_import")) continue;
    const module = statement.childForFieldName("module_name")?.text.replace(/\s+/g, "");
    if (module) starImports.push(module);
  }
  return withFingerprint({ classes, imports, starImports, isDagFile: looksLikeDagFile(model.text) });
}

/** The plain names assigned (`name = ...`, `name: T = ...`) in a class body itself, not in its methods or nested classes. */
function namesAssignedIn(body: SyntaxNode | null): string[] {
  const names: string[] = [];
  for (const statement of body ? sameScopeStatements(body) : []) {
    if (statement.type !== "expression_statement") continue;
    for (let assignment: SyntaxNode | null | undefined = statement.namedChildren[0]; assignment?.type === "assignment"; assignment = assignment.childForFieldName("right")) {
      const left = assignment.childForFieldName("left");
      if (left?.type === "identifier") names.push(left.text);
    }
  }
  return names;
}

function emptySummary(isDagFile: boolean): ModuleSummary {
  return withFingerprint({ classes: new Map(), imports: new Map(), starImports: [], isDagFile });
}

type Serialized = [[string, (string | null)[], [string, string][], string[]][], [string, string][], string[], boolean];

/**
 * Serialises the summary and builds it back from that text. Names read from the tree are slices of
 * the file's text, and V8 keeps the whole text alive for each slice; the rebuilt strings own their
 * characters, so nothing of the file stays in memory but the summary.
 */
function withFingerprint(summary: Omit<ModuleSummary, "fingerprint">): ModuleSummary {
  const serialized: Serialized = [
    [...summary.classes.values()].map((c) => [c.name, c.baseNames.map((b) => b ?? null), [...c.stringAttributes], [...c.methods]]),
    [...summary.imports],
    [...summary.starImports],
    summary.isDagFile,
  ];
  const fingerprint = JSON.stringify(serialized);
  const [classes, imports, starImports, isDagFile] = JSON.parse(fingerprint) as Serialized;
  return {
    classes: new Map(
      classes.map(([name, baseNames, stringAttributes, methods]) => [name, { name, baseNames: baseNames.map((b) => b ?? undefined), stringAttributes: new Map(stringAttributes), methods: new Set(methods) }]),
    ),
    imports: new Map(imports),
    starImports,
    isDagFile,
    fingerprint,
  };
}
