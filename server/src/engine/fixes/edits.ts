/** Building and applying text edits. */
import { SyntaxNode } from "../syntax/parser";
import { analysis } from "../context";
import { SemanticModel, semanticModel } from "../airflow/model";
import { Binding, Scope } from "../python/scope";
import { TextEdit } from "../types";
import { commentEnd } from "../syntax/nodes";

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

/** Tokens that may sit between arguments without being one: they never need a comma. */
const TRIVIA = new Set(["comment", "line_continuation"]);

/**
 * Removes an argument from its call (or a parameter from its function's parameter list) together
 * with the comma that separates it from its neighbours, leaving no dangling or doubled comma in any
 * layout:
 * - on lines of its own (`    retention=x,  # note`), those whole lines go, with the comment that
 *   ends them; the remaining arguments keep their trailing comma, if they had one;
 * - inline, the comma before it goes (`f(a, x)` → `f(a)`), or the comma after it when it comes first
 *   (`f(x, a)` → `f(a)`); comments on neighbouring lines are kept.
 */
export function removeArgument(argument: SyntaxNode): TextEdit {
  const siblings = argument.parent?.children ?? [];
  const index = siblings.findIndex((s) => s.id === argument.id);
  const before = siblings.slice(0, index).reverse();
  const after = siblings.slice(index + 1);
  const previousToken = before[0];
  const previousComma = before.find((s) => !TRIVIA.has(s.type));
  const nextComma = after.find((s) => !TRIVIA.has(s.type));
  const commaBefore = previousComma?.type === "," ? previousComma : undefined;
  const commaAfter = nextComma?.type === "," ? nextComma : undefined;
  const lastOwnToken = commaAfter ?? argument;
  // The first token after the argument (and its comma and the comment ending that line).
  const rest = after.slice(commaAfter ? after.indexOf(commaAfter) + 1 : 0);
  const endComment = rest[0]?.type === "comment" && rest[0].startPosition.row === lastOwnToken.endPosition.row ? rest[0] : undefined;
  const following = endComment ? rest[1] : rest[0];

  const startsLine = !previousToken || previousToken.endPosition.row < argument.startPosition.row;
  const endsLine = !following || following.startPosition.row > lastOwnToken.endPosition.row;
  if (startsLine && endsLine && following) {
    return { start: lineStart(argument), end: lineStart(following), newText: "" };
  }
  // Inline. Only white space or a line continuation lies between the comma before and the argument
  // unless a comment ends the previous line; that comment is kept by leaving the comma alone.
  const commentBetween = commaBefore && before.slice(0, before.indexOf(commaBefore)).some((s) => s.type === "comment");
  if (commaBefore && !commentBetween) return { start: commaBefore.startIndex, end: argument.endIndex, newText: "" };
  if (commaAfter) {
    // `f(x, a)` → `f(a)`; when the next argument is on another line, only up to the comma.
    const next = rest[0];
    const end = next && next.startPosition.row === commaAfter.endPosition.row && next.type !== ")" ? next.startIndex : commaAfter.endIndex;
    return { start: argument.startIndex, end, newText: "" };
  }
  // The only argument, or the last one after a commented line: the comma before stays as a trailing comma.
  return { start: argument.startIndex, end: argument.endIndex, newText: "" };
}

/** Offset of the start of the line `node` starts on (tree-sitter columns are UTF-16 offsets here). */
function lineStart(node: SyntaxNode): number {
  return node.startIndex - node.startPosition.column;
}

export interface ImportedName {
  /** How code in the file should spell the name (`timedelta`, `datetime.timedelta`, `dt.timedelta`). */
  reference: string;
  /** The edits that add the import, when one is needed. */
  edits: TextEdit[];
}

const IMPORT_STATEMENTS = ["import_statement", "import_from_statement", "future_import_statement"];

/**
 * Makes `module.name` available in the file's own import style:
 * - reuse an import of it or of its module that is visible at `at` (`timedelta`, `dt.timedelta`);
 * - extend an existing top-level `from module import ...` (single-line, parenthesised or multi-line
 *   with a trailing comma);
 * - else add `from module import name` after the last top-level import (after a module docstring or
 *   shebang/encoding lines when there is none).
 * When `name` is already bound to something else, the module is imported (`import datetime`,
 * referenced as `datetime.timedelta`), or, when that name is taken too, `name` is imported under an
 * alias (`datetime_timedelta`). `at` is where the reference will be written: the reference must
 * mean the same there (not shadowed by a local); without it the module scope is assumed.
 */
export function ensureImported(model: SemanticModel, module: string, name: string, at?: SyntaxNode): ImportedName {
  const scope = at ? model.scopeOf(at) : model.module;
  const imports = visibleImports(model, scope, at, [`${module}.${name}`, module]);
  const direct = imports.find((b) => b.qualifiedName === `${module}.${name}`);
  if (direct) return { reference: direct.name, edits: [] };
  const moduleImport = imports.find((b) => b.qualifiedName === module);
  if (moduleImport) return { reference: `${moduleImport.name}.${name}`, edits: [] };

  // A new module-level name must neither shadow a name of the file nor be shadowed where it is used.
  const isFree = (candidate: string) => !scope.lookup(candidate) && !model.module.own(candidate);
  const fromStatements = topLevelFromImports(model).get(module) ?? [];
  const fromImport = fromStatements.find((n) => !n.namedChildren.some((c) => c.type === "wildcard_import"));
  if (isFree(name)) {
    // `from module import *` already provides it.
    if (fromStatements.some((n) => n.namedChildren.some((c) => c.type === "wildcard_import"))) return { reference: name, edits: [] };
    if (fromImport) return { reference: name, edits: [extendFromImport(model, fromImport, name)] };
    return { reference: name, edits: [newImportStatement(model, `from ${module} import ${name}`)] };
  }
  if (isFree(module.split(".")[0])) return { reference: `${module}.${name}`, edits: [newImportStatement(model, `import ${module}`)] };
  let alias = `${module.split(".").pop()}_${name}`;
  for (let n = 2; !isFree(alias); n++) alias = `${module.split(".").pop()}_${name}${n}`;
  const imported = `${name} as ${alias}`;
  return { reference: alias, edits: [fromImport ? extendFromImport(model, fromImport, imported) : newImportStatement(model, `from ${module} import ${imported}`)] };
}

/**
 * Imports of one of `qualifiedNames` whose name means the import wherever `at` is: bound once in
 * the scope chain and not shadowed. A function-local import counts only when it comes before `at`
 * (else `UnboundLocalError`). Only the imports of those names have their visibility worked out.
 */
function visibleImports(model: SemanticModel, scope: Scope, at: SyntaxNode | undefined, qualifiedNames: readonly string[]): Binding[] {
  // The scopes whose names `scope` sees, innermost first: class bodies do not enclose methods.
  const seen = new Map<Scope, number>();
  for (let current: Scope | undefined = scope, depth = 0; current; current = current.parent, depth++) {
    if (current === scope || current.kind !== "class") seen.set(current, depth);
  }
  return model
    .importBindings()
    .filter((binding) => {
      if (!qualifiedNames.includes(binding.qualifiedName ?? "") || !seen.has(binding.scope) || binding.scope.own(binding.name)?.length !== 1 || scope.unique(binding.name) !== binding) return false;
      return !(at && binding.scope !== model.module && binding.target.startIndex > at.startIndex);
    })
    .sort((a, b) => seen.get(a.scope)! - seen.get(b.scope)! || a.target.startIndex - b.target.startIndex);
}

/** Adds `imported` (`timedelta` or `timedelta as alias`) to a `from module import ...` statement. */
function extendFromImport(model: SemanticModel, statement: SyntaxNode, imported: string): TextEdit {
  const names = statement.childrenForFieldName("name");
  const last = names[names.length - 1];
  const tokens = statement.children;
  const afterLast = tokens.slice(tokens.findIndex((t) => t.id === last.id) + 1);
  const nextToken = afterLast.find((t) => !TRIVIA.has(t.type));
  const trailingComma = nextToken?.type === "," ? nextToken : undefined;
  const closing = tokens[tokens.length - 1]?.type === ")" ? tokens[tokens.length - 1] : undefined;
  if (trailingComma && closing && closing.startPosition.row > trailingComma.endPosition.row) {
    // One name per line, `black` style: the new name gets a line of its own, indented like the last one.
    const comment = afterLast.find((t) => t.type === "comment" && t.startPosition.row === trailingComma.endPosition.row && t.startIndex > trailingComma.startIndex);
    const indentation = model.text.slice(lineStart(last), last.startIndex);
    const indent = /^[ \t]*$/.test(indentation) ? indentation : "    ";
    const eol = model.text.includes("\r\n") ? "\r\n" : "\n";
    return insertAt(comment ? commentEnd(comment) : trailingComma.endIndex, `${eol}${indent}${imported},`);
  }
  if (trailingComma) return insertAt(trailingComma.endIndex, ` ${imported},`);
  return insertAt(last.endIndex, `, ${imported}`);
}

// Fixes ask these per finding, and a large file has many findings and many top-level statements: each is found once per file.

/** The top-level `from module import ...` statements by module (white space removed), in document order. */
const topLevelFromImportsAnalysis = analysis("top-level from-imports", (context) => {
  const byModule = new Map<string, SyntaxNode[]>();
  for (const n of context.get(semanticModel).root.namedChildren) {
    if (n.type !== "import_from_statement") continue;
    const module = n.childForFieldName("module_name")?.text.replace(/\s+/g, "");
    if (module === undefined) continue;
    const list = byModule.get(module);
    if (list) list.push(n);
    else byModule.set(module, [n]);
  }
  return byModule;
});

/** The statement a new import goes after: the last top-level import, else a module docstring. */
const importAnchorAnalysis = analysis("import anchor", (context): SyntaxNode | undefined => {
  const statements = context.get(semanticModel).root.namedChildren;
  const imports = statements.filter((n) => IMPORT_STATEMENTS.includes(n.type));
  const docstring = statements.find((n) => n.type !== "comment");
  return imports[imports.length - 1] ?? (docstring?.type === "expression_statement" && ["string", "concatenated_string"].includes(docstring.namedChildren[0]?.type ?? "") ? docstring : undefined);
});

function topLevelFromImports(model: SemanticModel): Map<string, SyntaxNode[]> {
  return model.context.get(topLevelFromImportsAnalysis);
}

function importAnchor(model: SemanticModel): SyntaxNode | undefined {
  return model.context.get(importAnchorAnalysis);
}

/** Inserts a whole import statement on a line of its own, after the last top-level import. */
function newImportStatement(model: SemanticModel, statement: string): TextEdit {
  const text = model.text;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const anchor = importAnchor(model);
  if (anchor) {
    // After the anchor's line, so a comment ending that line (`# noqa`) stays where it is.
    const newline = text.indexOf("\n", anchor.endIndex);
    return newline < 0 ? insertAt(text.length, `${eol}${statement}${eol}`) : insertAt(newline + 1, `${statement}${eol}`);
  }
  // No imports and no docstring: at the top, below a shebang and an encoding declaration.
  let offset = 0;
  for (let line = 0; line < 2; line++) {
    const end = text.indexOf("\n", offset);
    const content = text.slice(offset, end < 0 ? text.length : end);
    if (!(line === 0 && content.startsWith("#!")) && !/^[ \t\f]*#.*coding[:=]/.test(content)) break;
    if (end < 0) return insertAt(text.length, `${eol}${statement}${eol}`);
    offset = end + 1;
  }
  return insertAt(offset, `${statement}${eol}`);
}

/**
 * The whole lines `node` takes, line break included, for an edit that removes them: undefined when
 * other code shares them. A trailing comment goes with the lines (`"with comment"`), or keeps them
 * (`"alone"`: nothing else may be on them).
 */
export function wholeLines(text: string, node: SyntaxNode, trailing: "with comment" | "alone" = "with comment"): { start: number; end: number } | undefined {
  const start = text.lastIndexOf("\n", node.startIndex - 1) + 1;
  const newline = text.indexOf("\n", node.endIndex);
  const end = newline === -1 ? text.length : newline + 1;
  if (text.slice(start, node.startIndex).trim() !== "") return undefined;
  const rest = text.slice(node.endIndex, end).trim();
  if (rest !== "" && (trailing === "alone" || !rest.startsWith("#"))) return undefined;
  return { start, end };
}
