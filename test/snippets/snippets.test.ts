/**
 * Every snippet in snippets/python.code-snippets, expanded with the defaults of its tab stops and put
 * where it is meant to go in a DAG file (with the imports its description names), must give a file
 * the engine finds nothing in (every rule enabled), that parses, and in which every name is defined.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { allRules, lint, PythonDocument, SeveritySetting } from "../../server/src/engine";
import { fromRoot } from "../support/paths";
import { expandSnippet } from "./expand";

interface SnippetDefinition {
  prefix: string;
  description: string;
  body: string[];
}

const SNIPPETS_PATH = "./snippets/python.code-snippets";
const snippets: Record<string, SnippetDefinition> = JSON.parse(fs.readFileSync(fromRoot(SNIPPETS_PATH), "utf8"));
const byPrefix = new Map(Object.values(snippets).map((s) => [s.prefix, s]));

/** The DAG the snippets are placed in. */
const DAG_OPEN = 'with DAG(dag_id="snippet_check", schedule=None):';
const INDENT = "    ";

interface Placement {
  /** At module level, in the body of a `with DAG(...)` block, or among the keywords of the DAG call. */
  where: "module" | "dag-body" | "dag-call";
  /** Another snippet (with its imports) the user inserts first: the asset the snippet indexes with. */
  givenSnippet?: string;
  /** Module-level code the snippet expects the user to have written: their own functions. */
  givenCode?: string;
  /** Code using what the snippet defines, in the DAG body. */
  usage?: string;
}

/** How each snippet is meant to be used; a snippet missing here fails the test. */
const placements: Record<string, Placement> = {
  "af-resumable": { where: "module", usage: 'MyJobOperator(task_id="my_job", retries=3)' },
  "af-checkpoint": { where: "dag-body" },
  "af-resume-job": {
    where: "dag-body",
    givenCode: 'def submit_job():\n    return "job-42"\n\n\ndef wait_for_job(job_id):\n    return True',
  },
  "af-asset": { where: "module" },
  "af-asset-watermark": { where: "dag-body", givenSnippet: "af-asset" },
  "af-asset-consumer": { where: "dag-body", givenSnippet: "af-asset" },
  "af-mapped-asset": { where: "dag-body", givenSnippet: "af-asset" },
  "af-python-callable": { where: "dag-body" },
  "af-durable-off": { where: "dag-call" },
};

/** Every snippet the extension promises (README's table); more may be added, none may go missing. */
const REQUIRED_PREFIXES = Object.keys(placements);

function expand(prefix: string, indentation: string): string {
  const snippet = byPrefix.get(prefix);
  assert.ok(snippet, `no snippet with prefix ${prefix}`);
  return expandSnippet(snippet.body, { indentation, tabSize: 4 }).text;
}

/** `Imports: from a import b, c; from d import e` at the end of a description. */
function declaredImports(description: string): Map<string, Set<string>> {
  const imports = new Map<string, Set<string>>();
  const declared = /Imports: (.*)$/.exec(description)?.[1];
  for (const statement of declared ? declared.split(/;\s*/) : []) {
    const match = /^from ([\w.]+) import ([\w, ]+)$/.exec(statement.trim());
    assert.ok(match, `cannot read the import "${statement}" in: ${description}`);
    const names = imports.get(match[1]) ?? new Set<string>();
    for (const name of match[2].split(/,\s*/)) names.add(name);
    imports.set(match[1], names);
  }
  return imports;
}

function importLines(imports: Map<string, Set<string>>): string {
  return [...imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, names]) => `from ${module} import ${[...names].sort().join(", ")}`)
    .join("\n");
}

function mergeImports(into: Map<string, Set<string>>, from: Map<string, Set<string>>): void {
  for (const [module, names] of from) into.set(module, new Set([...(into.get(module) ?? []), ...names]));
}

/** The snippet inserted where it belongs in a small DAG file, as the editor would insert it. */
function dagFileWith(prefix: string): string {
  const placement = placements[prefix];
  const imports = new Map([["airflow.sdk", new Set(["DAG"])]]);
  for (const used of [placement.givenSnippet, prefix]) if (used) mergeImports(imports, declaredImports(byPrefix.get(used)!.description));
  const parts = [`"""DAG file holding the snippet ${prefix} expanded with its defaults."""`, importLines(imports)];
  if (placement.givenSnippet) parts.push(expand(placement.givenSnippet, ""));
  if (placement.givenCode) parts.push(placement.givenCode);
  if (placement.where === "module") parts.push(expand(prefix, ""));
  if (placement.where === "dag-call") {
    parts.push(`with DAG(\n${INDENT}dag_id="snippet_check",\n${INDENT}schedule=None,\n${INDENT}${expand(prefix, INDENT)}\n):\n${INDENT}pass`);
  } else {
    const body = [placement.where === "dag-body" ? expand(prefix, INDENT) : undefined, placement.usage].filter((x) => x !== undefined);
    parts.push(`${DAG_OPEN}\n${INDENT}${body.length > 0 ? body.join(`\n${INDENT}`) : "pass"}`);
  }
  return parts.join("\n\n\n") + "\n";
}

/** Every rule on, at its default severity or `hint` should one be off by default. */
const everyRule: Record<string, SeveritySetting> = Object.fromEntries(
  allRules.map((rule) => [rule.code, (rule.defaultSeverity as SeveritySetting) === "off" ? "hint" : rule.defaultSeverity]),
);

let pythonVerdicts: Record<string, string[]> | undefined;

/** Python's own verdict on each snippet's DAG file, in one interpreter run (see check_names.py). */
function pythonProblems(prefix: string): string[] {
  if (!pythonVerdicts) {
    // A snippet that does not expand fails its own tests; it must not take the others down.
    const files: Record<string, string> = {};
    for (const p of byPrefix.keys()) {
      try {
        files[p] = dagFileWith(p);
      } catch {
        continue;
      }
    }
    const result = spawnSync("python3", [fromRoot("test", "snippets", "check_names.py")], { input: JSON.stringify(files), encoding: "utf8", timeout: 60_000 });
    if (result.error) throw result.error;
    assert.equal(result.status, 0, result.stderr);
    pythonVerdicts = JSON.parse(result.stdout) as Record<string, string[]>;
  }
  return pythonVerdicts[prefix];
}

describe("snippets/python.code-snippets", () => {
  test("is registered for Python in package.json", () => {
    const manifest = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8"));
    assert.deepEqual(manifest.contributes?.snippets, [{ language: "python", path: SNIPPETS_PATH }]);
  });

  test("holds every promised snippet, each with an af- prefix, a description and a body", () => {
    for (const [name, snippet] of Object.entries(snippets)) {
      assert.deepEqual(Object.keys(snippet).sort(), ["body", "description", "prefix"], name);
      assert.match(snippet.prefix, /^af-[a-z-]+$/, name);
      assert.ok(snippet.description.length > 20, `${name}: describe what it inserts`);
      assert.ok(Array.isArray(snippet.body) && snippet.body.every((line) => typeof line === "string"), name);
      assert.ok(placements[snippet.prefix], `${snippet.prefix}: say in this test where it goes (placements)`);
    }
    assert.deepEqual([...byPrefix.keys()].sort(), Object.keys(snippets).map((n) => snippets[n].prefix).sort(), "prefixes must be unique");
    for (const prefix of REQUIRED_PREFIXES) assert.ok(byPrefix.has(prefix), `missing snippet ${prefix}`);
  });

  test("are all listed in the README's snippet table", () => {
    const readme = fs.readFileSync(fromRoot("README.md"), "utf8");
    const listed = [...readme.matchAll(/^\| `(af-[a-z-]+)` \|/gm)].map((m) => m[1]).sort();
    assert.deepEqual(listed, [...byPrefix.keys()].sort());
  });

  for (const snippet of Object.values(snippets)) {
    describe(snippet.prefix, () => {
      test("gives every tab stop a default (a mirror takes its placeholder's)", () => {
        const { tabStops } = expandSnippet(snippet.body);
        const withoutDefault = [...tabStops.values()].filter((stop) => stop.index !== 0 && !stop.hasDefault).map((stop) => `$${stop.index}`);
        assert.deepEqual(withoutDefault, []);
        // VS Code's maintainers define $0 as the final cursor position, not a placeholder.
        assert.equal(tabStops.get(0)?.hasDefault ?? false, false, "use ${N:text} for text to replace and a bare $0 for where the cursor ends");
      });

      test("expands into a DAG file the engine finds nothing in", () => {
        const text = dagFileWith(snippet.prefix);
        const diagnostics = lint(new PythonDocument("file:///dags/snippet_check.py", text), { severities: everyRule });
        assert.deepEqual(
          diagnostics.map((d) => `${d.code}@${d.range.start.line + 1}: ${d.message}`),
          [],
          `in:\n${text}`,
        );
      });

      test("expands into Python that parses and defines every name it uses", () => {
        const text = dagFileWith(snippet.prefix);
        assert.equal(new PythonDocument("file:///dags/snippet_check.py", text).tree.rootNode.hasError, false, `syntax error in:\n${text}`);
        assert.deepEqual(pythonProblems(snippet.prefix), [], `in:\n${text}`);
      });
    });
  }
});
