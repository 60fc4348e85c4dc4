/**
 * Each rule's `mayReport` text test must hold wherever the rule can report: the linter skips a rule
 * (and, when every rule is skipped, the parse) where it fails. Every Python file of the repository's
 * fixtures and examples, and a few spellings chosen to slip past a careless test, is linted with the
 * registry's rules and with copies that have no text test; the findings must be the same.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { allRules, Diagnostic, lint, LintOptionsWithEdits, PythonDocument, Rule, WorkspaceClasses } from "../../server/src/engine";
import { AirflowPin } from "../../server/src/engine/project";
import { mentionsStore, StoreName, TextFacts } from "../../server/src/engine/rules/textGates";
import { fromRoot } from "../support/paths";
import { Random } from "../bench/random";

const ungated: readonly Rule[] = allRules.map((rule) => ({ ...rule, mayReport: undefined }));

function pythonFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : pythonFiles(full);
    return entry.name.endsWith(".py") ? [full] : [];
  });
}

const below33: AirflowPin = JSON.parse(fs.readFileSync(fromRoot("test", "rules", "fixtures", "AS501.pin.json"), "utf8"));

/** A workspace that knows no class: enough to make the rules that follow imports consider them. */
const emptyWorkspace: WorkspaceClasses = { resolveClass: () => undefined };

function shown(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code}@${d.startOffset}-${d.endOffset}: ${d.message}`);
}

function assertSameFindings(name: string, text: string, options: LintOptionsWithEdits): void {
  const document = () => new PythonDocument("file:///gate.py", text);
  assert.deepEqual(shown(lint(document(), options)), shown(lint(document(), { ...options, rules: ungated })), name);
}

describe("rules' text tests", () => {
  const files = [...pythonFiles(fromRoot("test", "rules", "fixtures")), ...pythonFiles(fromRoot("examples"))];

  test("the fixtures and examples give the same findings with and without them", () => {
    assert.ok(files.length > 60, `only ${files.length} files`);
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      const baseline = file.replace(/(\.silent|\.fixed)?\.py$/, ".baseline.py");
      const baselineText = fs.existsSync(baseline) && baseline !== file ? fs.readFileSync(baseline, "utf8") : text.replace(/external_id_key = "[^"]*"/g, 'external_id_key = "renamed"');
      assertSameFindings(file, text, { path: file, baselineText, airflowPin: below33 });
      assertSameFindings(`${file} (with a workspace)`, text, { path: file, baselineText, airflowPin: below33, workspace: emptyWorkspace });
    }
  });

  test("a store key spelled as concatenated strings still counts as naming the store", () => {
    const text = [
      "from datetime import datetime",
      "from airflow.sdk import task",
      "",
      "@task",
      "def t(**context):",
      '    store = context["task_st" "ate_store"]',
      "    store.set('k', datetime.now())",
      "    store.set('n', None)",
      "",
    ].join("\n");
    const findings = lint(new PythonDocument("file:///concatenated.py", text));
    assert.ok(findings.some((d) => d.code === "AS101") && findings.some((d) => d.code === "AS102"), shown(findings).join("\n"));
    assertSameFindings("concatenated key", text, {});
  });

  test("a file no rule's test lets through is not parsed (AS001 off, as in the editor by default)", () => {
    const document = new PythonDocument("file:///plain.py", "from airflow.sdk import dag\n\n@dag()\ndef plain():\n    pass\n");
    const withoutSyntaxErrors: LintOptionsWithEdits = { severities: { AS001: "off" } };
    assert.deepEqual(lint(document, withoutSyntaxErrors), []);
    let parsed = false;
    Object.defineProperty(document, "tree", { get: () => ((parsed = true), undefined) });
    lint(document, withoutSyntaxErrors);
    assert.equal(parsed, false);
  });

  test("a file that does not parse gets AS001 though no other rule's test lets it through", () => {
    const text = "from airflow.sdk import dag\n\n@dag()\ndef broken(:\n    pass\n";
    const others: LintOptionsWithEdits = { severities: { AS001: "off" } };
    assert.deepEqual(lint(new PythonDocument("file:///broken.py", text), others), []);
    let parsed = false;
    const document = new PythonDocument("file:///broken.py", text);
    const tree = document.tree;
    Object.defineProperty(document, "tree", { get: () => ((parsed = true), tree) });
    assert.deepEqual(lint(document).map((d) => `${d.code}@${d.range.start.line + 1}`), ["AS001@4"]);
    assert.equal(parsed, true);
    assertSameFindings("broken", text, {});
  });

  test("a file's text facts give each rule's test the answer it would find alone, in whatever order they ask", () => {
    const texts = [
      'context["task_state_store"]',
      "def t(asset_state_store=None): ...",
      'context["task_st" "ate_store"]',
      "context['asset_' # split\n 'state_store']",
      'context["task"]  # no store at all',
    ];
    const askings: (readonly StoreName[] | undefined)[][] = [
      [undefined, ["task_state_store"], ["asset_state_store"]],
      [["asset_state_store"], ["task_state_store"], undefined],
      [["task_state_store", "asset_state_store"], ["asset_state_store", "task_state_store"]],
    ];
    for (const text of texts) {
      for (const asking of askings) {
        const facts = new TextFacts(text);
        for (const stores of asking) assert.equal(facts.mentionsStore(stores), mentionsStore(text, stores), `${text} asked ${String(stores)}`);
      }
    }
  });

  test("the facts of an edited text, worked out from the last text's, are those of the edited text", () => {
    // Short texts over a small alphabet, so that edits make, split, move and remove the words often.
    const words = ["set", "class", "task_state_store", "asset_state_store", "xcom_push"];
    const pieces = ["set", "s", "et", "class", "cla", "task_state_store", "task_st", "ate_store", '"', "'", " ", "\n", "#", "x", "asset_", "state_store", "xcom_", "push"];
    const random = new Random(7);
    const piecesText = (count: number) => Array.from({ length: count }, () => random.pick(pieces)).join("");
    let checked = 0;
    for (let run = 0; run < 300; run++) {
      let text = piecesText(random.int(0, 30));
      let facts = new TextFacts(text);
      // Some answers known before the edit, some not.
      for (const word of words) if (random.chance(0.5)) facts.includes(word);
      if (random.chance(0.5)) facts.mentionsStore();
      for (let step = 0; step < 6; step++) {
        const start = random.int(0, text.length);
        const oldEnd = random.int(start, Math.min(text.length, start + 8));
        const inserted = piecesText(random.int(0, 3));
        const edited = text.slice(0, start) + inserted + text.slice(oldEnd);
        facts.settle();
        const after = TextFacts.afterEdit(edited, facts, { start, oldEnd, newEnd: start + inserted.length });
        const fresh = new TextFacts(edited);
        for (const word of words) {
          assert.equal(after.includes(word), fresh.includes(word), `${JSON.stringify(text)} → ${JSON.stringify(edited)}: ${word}`);
          checked++;
        }
        for (const stores of [undefined, ["task_state_store"], ["asset_state_store"]] as (StoreName[] | undefined)[]) {
          assert.equal(after.mentionsStore(stores), mentionsStore(edited, stores), `${JSON.stringify(text)} → ${JSON.stringify(edited)}: ${String(stores)}`);
        }
        text = edited;
        facts = after;
      }
    }
    assert.ok(checked > 5000);
  });
});
