/**
 * Keeps the invariants of docs/architecture.md by reading every module's imports:
 * - the engine imports nothing from VS Code, the language server libraries, the client, the language
 *   server or the CLI (one documented exception: the engine's text document uses
 *   vscode-languageserver-textdocument for offsets and incremental edits);
 * - the engine's layers import only downward: types → syntax → analysis context → python → project
 *   and workspace → airflow → fixes → rules → linter → features → index;
 * - the client takes from the server side only protocol modules and types.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { fromRoot } from "./support/paths";

const ROOT = fromRoot();
const ENGINE = "server/src/engine/";

/** The engine's layers, lowest first: a module may import from its own layer and the ones before it. */
const LAYERS: readonly { name: string; holds: (file: string) => boolean }[] = [
  { name: "types", holds: (f) => f === "types.ts" },
  { name: "syntax", holds: (f) => f.startsWith("syntax/") },
  { name: "analysis context", holds: (f) => f === "context.ts" },
  { name: "python", holds: (f) => f.startsWith("python/") },
  { name: "project and workspace", holds: (f) => f.startsWith("project/") || f.startsWith("workspace/") },
  { name: "airflow", holds: (f) => f.startsWith("airflow/") },
  { name: "fixes", holds: (f) => f.startsWith("fixes/") },
  { name: "rules", holds: (f) => f.startsWith("rules/") },
  { name: "linter", holds: (f) => f === "linter.ts" || f === "incremental.ts" },
  { name: "features", holds: (f) => f.startsWith("features/") },
  { name: "index", holds: (f) => f === "index.ts" },
];

/**
 * Imports that go against the layers on purpose, each with its reason. Only type imports qualify:
 * they carry no code at run time.
 */
const TYPE_IMPORTS_UPWARD: ReadonlyMap<string, string> = new Map([
  ["context.ts -> project/pin.ts", "the context holds a file's inputs, and the Airflow pin found for it is one; its type lives with the pin readers"],
]);

interface Import {
  specifier: string;
  typeOnly: boolean;
}

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith(".ts") ? [relative] : [];
  });
}

/** Every `import ... from "x"`, `export ... from "x"` and `require("x")` of a module. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const found: Import[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+["']([^"']+)["']/gm)) found.push({ specifier: match[3], typeOnly: match[2] !== undefined });
  for (const match of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) found.push({ specifier: match[1], typeOnly: false });
  for (const match of text.matchAll(/\b(?:require|import)\(\s*["']([^"']+)["']\s*\)/g)) found.push({ specifier: match[1], typeOnly: false });
  for (const match of text.matchAll(/^\s*import\s+\w+\s*=\s*require\(\s*["']([^"']+)["']\s*\)/gm)) found.push({ specifier: match[1], typeOnly: false });
  return found;
}

/** The repository path a relative specifier names, as a `.ts` file; undefined for packages. */
function resolved(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  if (fs.existsSync(path.join(ROOT, target + ".ts"))) return target + ".ts";
  if (fs.existsSync(path.join(ROOT, target, "index.ts"))) return path.posix.join(target, "index.ts");
  return target;
}

function layerOf(engineFile: string): number {
  const index = LAYERS.findIndex((layer) => layer.holds(engineFile));
  assert.notEqual(index, -1, `${ENGINE}${engineFile} is in no layer of docs/architecture.md: place it in a layer folder (and list a new folder in test/architecture.test.ts)`);
  return index;
}

describe("architecture", () => {
  const engineFiles = sourceFiles("server/src/engine");

  test("the engine imports nothing from VS Code, the language server libraries, the client, the language server or the CLI", () => {
    const violations: string[] = [];
    for (const file of engineFiles) {
      for (const { specifier } of importsOf(file)) {
        const target = resolved(file, specifier);
        const isEditorPackage = /^(vscode|vscode-languageserver|vscode-languageclient|vscode-jsonrpc|vscode-languageserver-protocol)(\/|$)/.test(specifier);
        const documented = file === `${ENGINE}syntax/document.ts` && specifier === "vscode-languageserver-textdocument";
        const outside = target !== undefined && !target.startsWith(ENGINE);
        if ((isEditorPackage && !documented) || outside) violations.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  test("the engine's layers import only downward", () => {
    const violations: string[] = [];
    for (const file of engineFiles) {
      const own = file.slice(ENGINE.length);
      for (const { specifier, typeOnly } of importsOf(file)) {
        const target = resolved(file, specifier);
        if (!target?.startsWith(ENGINE)) continue;
        const imported = target.slice(ENGINE.length);
        if (layerOf(imported) <= layerOf(own)) continue;
        const edge = `${own} -> ${imported}`;
        if (typeOnly && TYPE_IMPORTS_UPWARD.has(edge)) continue;
        violations.push(`${edge} (${LAYERS[layerOf(own)].name} imports ${LAYERS[layerOf(imported)].name})`);
      }
    }
    assert.deepEqual(violations, []);
  });

  test("every documented upward type import still exists", () => {
    for (const edge of TYPE_IMPORTS_UPWARD.keys()) {
      const [from, to] = edge.split(" -> ");
      const imports = importsOf(ENGINE + from).filter((i) => resolved(ENGINE + from, i.specifier) === ENGINE + to);
      assert.ok(imports.length > 0 && imports.every((i) => i.typeOnly), `${edge}: no longer imported, or not as a type only`);
    }
  });

  test("the client takes from the server side only protocol modules and types", () => {
    const violations: string[] = [];
    for (const file of sourceFiles("client/src")) {
      for (const { specifier, typeOnly } of importsOf(file)) {
        const target = resolved(file, specifier);
        if (!target?.startsWith("server/")) continue;
        const protocol = /^server\/src\/lsp\/\w+Protocol\.ts$/.test(target);
        if (!protocol && !typeOnly) violations.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  test("the protocol modules the client shares import nothing but types", () => {
    for (const file of sourceFiles("server/src/lsp").filter((f) => /Protocol\.ts$/.test(f))) {
      for (const { specifier, typeOnly } of importsOf(file)) assert.ok(typeOnly || !specifier.startsWith("."), `${file} imports ${specifier} for more than its types`);
    }
  });

  test("the import reader sees the forms the code uses", () => {
    const imports = importsOf(`${ENGINE}syntax/parser.ts`).map((i) => i.specifier);
    assert.ok(imports.includes("tree-sitter") && imports.includes("tree-sitter-python"), imports.join(", "));
    assert.ok(importsOf(`${ENGINE}index.ts`).length > 5, "re-exports count as imports");
  });
});
