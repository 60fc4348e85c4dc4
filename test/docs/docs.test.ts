/**
 * docs/rules/ is generated from the rule files (`npm run docs`): the committed pages must be exactly
 * what the generator writes now. The generator itself is tested on a temporary package with
 * made-up rules.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { allRules, lint, PythonDocument, Rule } from "../../server/src/engine";
import { fromRoot } from "../support/paths";
import { collectRuleDocs, docComment, expectedRuleDocs, fixAvailability, README_TABLE_BEGIN, README_TABLE_END, ruleDocsDrift, withReadmeRuleTable, writeRuleDocs } from "../../server/src/docs/generateDocs";

describe("docs/rules in this repository", () => {
  test("every rule has a doc comment with the five sections", () => {
    assert.deepEqual(collectRuleDocs().problems, []);
  });

  test("is up to date with the rule files", () => {
    const drift = ruleDocsDrift();
    const problems = [
      ...drift.missing.map((f) => `docs/rules/${f} is missing`),
      ...drift.stale.map((f) => `docs/rules/${f} is stale`),
      ...drift.extra.map((f) => `docs/rules/${f} belongs to no rule`),
    ];
    assert.deepEqual(problems, [], "docs/rules is out of date: run npm run docs");
  });

  test("the README's rules table is the registry's, one row per rule", () => {
    const readme = fs.readFileSync(fromRoot("README.md"), "utf8");
    assert.equal(withReadmeRuleTable(readme), readme, "README.md's rules table is stale: run `npm run docs`");
    const table = readme.slice(readme.indexOf(README_TABLE_BEGIN), readme.indexOf(README_TABLE_END));
    for (const rule of allRules) assert.ok(table.includes(`| [${rule.code}](docs/rules/${rule.code}.md) | \`${rule.name}\` |`), rule.code);
  });

  test("a rule's declared fix agrees with its Fix safety prose", () => {
    for (const doc of collectRuleDocs().docs) {
      assert.equal(doc.fixInProse, doc.rule.fix, `${doc.rule.code}: \`fix: "${doc.rule.fix}"\`, but its Fix safety section reads as "${doc.fixInProse}"`);
    }
  });

  test("says about each fix what the rule's fixtures show", () => {
    // The "Fix:" line comes from the rule's declared \`fix\`; the fixtures are the rule's behaviour. They must agree.
    const fixture = (name: string) => {
      const file = fromRoot("test", "rules", "fixtures", name);
      return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
    };
    for (const doc of collectRuleDocs().docs) {
      const fire = fixture(`${doc.rule.code}.py`);
      if (!fire) continue;
      const diagnostics = lint(new PythonDocument("file:///fixture.py", fire), { select: [doc.rule.code], baselineText: fixture(`${doc.rule.code}.baseline.py`) });
      const safe = diagnostics.filter((d) => d.fix?.safe).length;
      const unsafe = diagnostics.filter((d) => d.fix && !d.fix.safe).length;
      const shown = { none: safe + unsafe === 0, safe: safe > 0 && unsafe === 0, unsafe: unsafe > 0 && safe === 0, "safe or unsafe": safe > 0 && unsafe > 0 }[doc.rule.fix];
      assert.ok(shown, `${doc.rule.code}: its \`fix\` says "${doc.rule.fix}", but its fixture has ${safe} safe and ${unsafe} unsafe fixes`);
    }
  });

  test("has a page per rule and an index linking each", () => {
    const { files } = expectedRuleDocs();
    const index = files.get("README.md")!;
    for (const name of files.keys()) if (name !== "README.md") assert.ok(index.includes(`](${name})`), name);
  });
});

const created: string[] = [];
after(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
});

function fakeRule(code: string, overrides: Partial<Rule> = {}): Rule {
  return { code, name: `rule-${code.toLowerCase()}`, summary: `Summary of ${code}`, defaultSeverity: "warning", category: "values", fix: "safe", check() {}, ...overrides };
}

const DOC = `/**
 * ## What it does
 * Checks for things.
 *
 * ## Why is this bad?
 * They fail.
 *
 * ## Example
 * \`\`\`python
 * store.set("k", None)
 *     # indented
 * \`\`\`
 *
 * ## Use instead
 * \`\`\`python
 * store.delete("k")
 * \`\`\`
 *
 * ## Fix safety
 * The fix is safe: nothing else changes.
 */`;

/** A package root with the given rule files under server/src/engine/rules/. */
function fakePackage(ruleFiles: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rule-docs-"));
  created.push(root);
  const rules = path.join(root, "server", "src", "engine", "rules");
  fs.mkdirSync(rules, { recursive: true });
  fs.writeFileSync(path.join(rules, "index.ts"), "// registry\n");
  for (const [name, text] of Object.entries(ruleFiles)) fs.writeFileSync(path.join(rules, name), text);
  return root;
}

function ruleFile(code: string, doc = DOC): string {
  return `import { Rule } from "../rule";\n\n/** Not this comment. */\nconst helper = 1;\n\n${doc}\nexport const ${code}: Rule = {\n  code: "${code}",\n};\n`;
}

describe("the generator", () => {
  test("writes a page from the registry's metadata and the doc comment", () => {
    const root = fakePackage({ "AS900.ts": ruleFile("AS900") });
    const { files, problems } = expectedRuleDocs(root, [fakeRule("AS900", { summary: "`None` stored | refused" })]);
    assert.deepEqual(problems, []);
    assert.equal(
      files.get("AS900.md"),
      [
        "# AS900: rule-as900",
        "",
        "`None` stored | refused",
        "",
        "- Default severity: warning",
        "- Fix: available (safe)",
        "",
        "## What it does",
        "Checks for things.",
        "",
        "## Why is this bad?",
        "They fail.",
        "",
        "## Example",
        "```python",
        'store.set("k", None)',
        "    # indented",
        "```",
        "",
        "## Use instead",
        "```python",
        'store.delete("k")',
        "```",
        "",
        "## Fix safety",
        "The fix is safe: nothing else changes.",
        "",
        "<!-- Generated from server/src/engine/rules/AS900.ts by `npm run docs`. Edit the doc comment there, not this file. -->",
        "",
      ].join("\n"),
    );
    const index = files.get("README.md")!;
    assert.ok(index.includes("| Code | Name | Summary | Default severity | Fix |"));
    assert.ok(index.includes("| [AS900](AS900.md) | `rule-as900` | `None` stored \\| refused | warning | safe |"), index);
  });

  test("reports rules it cannot document instead of writing a page", () => {
    const root = fakePackage({
      "AS901.ts": "export const AS901: Rule = { code: 'AS901' };\n",
      "AS902.ts": ruleFile("AS902", DOC.replace(" * ## Use instead\n", "")),
      "AS903.ts": ruleFile("AS903"),
    });
    const { files, problems } = expectedRuleDocs(root, [fakeRule("AS901"), fakeRule("AS902"), fakeRule("AS904")]);
    assert.deepEqual([...files.keys()], ["README.md"]);
    assert.equal(problems.length, 4);
    assert.match(problems[0], /AS903\.ts is not registered/);
    assert.match(problems[1], /AS901\.ts has no doc comment directly above `export const AS901: Rule`/);
    assert.match(problems[2], /AS902\.ts: .*"## Use instead"/);
    assert.match(problems[3], /AS904 is registered but .*AS904\.ts does not exist/);
  });

  test("finds missing, stale and extra pages, and writing fixes all three", () => {
    const root = fakePackage({ "AS900.ts": ruleFile("AS900"), "AS901.ts": ruleFile("AS901") });
    const rules = [fakeRule("AS900"), fakeRule("AS901")];
    const pages = path.join(root, "docs", "rules");
    fs.mkdirSync(pages, { recursive: true });
    fs.writeFileSync(path.join(pages, "AS900.md"), "old\n");
    fs.writeFileSync(path.join(pages, "AS999.md"), "a removed rule\n");
    fs.writeFileSync(path.join(pages, "notes.md"), "not generated, kept\n");
    assert.deepEqual(ruleDocsDrift(root, rules), { missing: ["AS901.md", "README.md"], stale: ["AS900.md"], extra: ["AS999.md"] });
    const { touched } = writeRuleDocs(root, rules);
    assert.deepEqual(touched, ["wrote docs/rules/AS900.md", "wrote docs/rules/AS901.md", "wrote docs/rules/README.md", "removed docs/rules/AS999.md"]);
    assert.deepEqual(ruleDocsDrift(root, rules), { missing: [], stale: [], extra: [] });
    assert.deepEqual(fs.readdirSync(pages).sort(), ["AS900.md", "AS901.md", "README.md", "notes.md"]);
    assert.deepEqual(writeRuleDocs(root, rules).touched, [], "a second run changes nothing");
  });

  test("takes only the comment directly above the export", () => {
    const source = `/** File header. */\nimport x;\n/** Other. */\nconst y = 1;\n/**\n * Right one.\n *\n *     code\n */\nexport const AS900: Rule = {};\n`;
    assert.equal(docComment(source, "AS900"), "Right one.\n\n    code");
    assert.equal(docComment("/** Above something else. */\nconst z = 1;\nexport const AS900: Rule = {};\n", "AS900"), undefined);
  });

  test("reads the fix's safety only from what the Fix safety section states plainly", () => {
    const cases: [string, string | undefined][] = [
      ["The fix is safe: nothing else changes.", "safe"],
      ["The fix replaces the call. It is unsafe: the line no longer raises.", "unsafe"],
      ["This fix is not safe when the key is read elsewhere.", "unsafe"],
      ["`sorted()` is safe for sets of strings; the other fixes are unsafe.", "safe or unsafe"],
      ["There is no fix.", "none"],
      ["This rule has no fix: the intended value cannot be known.", "none"],
      // A limit of an existing fix, not the absence of one.
      ["No fix is offered for negative numbers. It is unsafe because the unit is a guess.", "unsafe"],
      ["The fix replaces the value with `value.isoformat()`.", undefined],
    ];
    for (const [prose, expected] of cases) assert.equal(fixAvailability(prose), expected, prose);
  });
});
