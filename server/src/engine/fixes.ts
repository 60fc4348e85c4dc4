/** Building and applying text edits. */
import { SyntaxNode } from "./parser";
import { SemanticModel } from "./semantic/model";
import { TextEdit } from "./types";

export function replaceNode(node: SyntaxNode, newText: string): TextEdit {
  return { start: node.startIndex, end: node.endIndex, newText };
}

export function insertAt(offset: number, newText: string): TextEdit {
  return { start: offset, end: offset, newText };
}

/** Applies edits that do not overlap; later edits first so earlier offsets stay valid. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  for (const edit of sorted) result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
  return result;
}

export function editsOverlap(a: readonly TextEdit[], b: readonly TextEdit[]): boolean {
  // Two edits at the same offset conflict too: their order would be arbitrary.
  return a.some((x) => b.some((y) => (x.start < y.end && y.start < x.end) || x.start === y.start));
}

/** Removes a keyword argument together with the comma that separates it from its neighbours. */
export function removeArgument(argument: SyntaxNode): TextEdit {
  const previous = argument.previousSibling;
  const next = argument.nextSibling;
  if (previous?.type === ",") return { start: previous.startIndex, end: argument.endIndex, newText: "" };
  if (next?.type === ",") {
    const after = next.nextSibling;
    return { start: argument.startIndex, end: after && after.type !== ")" ? after.startIndex : next.endIndex, newText: "" };
  }
  return { start: argument.startIndex, end: argument.endIndex, newText: "" };
}

export interface ImportedName {
  /** How code in the file should spell the name (`timedelta` or `datetime.timedelta`). */
  reference: string;
  /** The edit that adds the import, when one is needed. */
  edits: TextEdit[];
}

/**
 * Makes `module.name` available in the file's own import style: reuse an existing import of it,
 * extend an existing `from module import ...`, use `alias.name` after `import module as alias`,
 * or add `from module import name` after the last top-level import.
 */
export function ensureImported(model: SemanticModel, module: string, name: string): ImportedName {
  const wanted = `${module}.${name}`;
  const imports = [...model.module.bindings.values()].flat().filter((b) => b.kind === "import");
  const direct = imports.find((b) => b.qualifiedName === wanted && model.module.unique(b.name));
  if (direct) return { reference: direct.name, edits: [] };
  const moduleImport = imports.find((b) => b.qualifiedName === module && model.module.unique(b.name));
  const fromImport = model.root.namedChildren.find(
    (n) => n.type === "import_from_statement" && n.childForFieldName("module_name")?.text === module && !n.namedChildren.some((c) => c.type === "wildcard_import"),
  );
  if (fromImport && !model.module.lookup(name)) {
    const names = fromImport.childrenForFieldName("name");
    const last = names[names.length - 1];
    return { reference: name, edits: [insertAt(last.endIndex, `, ${name}`)] };
  }
  if (moduleImport) return { reference: `${moduleImport.name}.${name}`, edits: [] };
  if (model.module.lookup(name)) {
    // The plain name is taken by something else: import the module under its own name.
    return { reference: `${module}.${name}`, edits: [importStatementEdit(model, `import ${module}`)] };
  }
  return { reference: name, edits: [importStatementEdit(model, `from ${module} import ${name}`)] };
}

function importStatementEdit(model: SemanticModel, statement: string): TextEdit {
  const topLevelImports = model.root.namedChildren.filter((n) => n.type === "import_statement" || n.type === "import_from_statement" || n.type === "future_import_statement");
  const last = topLevelImports[topLevelImports.length - 1];
  if (last) return insertAt(last.endIndex, `\n${statement}`);
  // No imports: after a module docstring when there is one, else at the top.
  const first = model.root.namedChildren[0];
  if (first?.type === "expression_statement" && first.namedChildren[0]?.type === "string") return insertAt(first.endIndex, `\n${statement}`);
  return insertAt(0, `${statement}\n`);
}
