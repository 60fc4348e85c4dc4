/**
 * The injection grammars in syntaxes/, through the TextMate grammar test cases in test/grammar/*.py
 * (run by vscode-tmgrammar-test over VS Code's Python grammar, see runGrammarTests.ts).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { fromRoot } from "../support/paths";
import { runGrammarTests } from "./runGrammarTests";

describe("syntax highlighting of state store names and noqa codes", () => {
  test("the injection grammars are registered for Python in package.json", () => {
    const manifest = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8"));
    const grammars = (manifest.contributes?.grammars ?? []) as { scopeName: string; path: string; injectTo?: string[] }[];
    for (const scopeName of ["airflow-state-store.injection", "airflow-state-store.noqa.injection"]) {
      const entry = grammars.find((g) => g.scopeName === scopeName);
      assert.ok(entry, `${scopeName} is not in contributes.grammars`);
      assert.deepEqual(entry.injectTo, ["source.python"]);
      const grammar = JSON.parse(fs.readFileSync(fromRoot(entry.path), "utf8"));
      assert.equal(grammar.scopeName, scopeName, `${entry.path} declares another scopeName`);
    }
  });

  test("the grammar test cases in test/grammar pass (vscode-tmgrammar-test)", () => {
    const run = runGrammarTests();
    assert.equal(run.status, 0, `vscode-tmgrammar-test failed against ${run.baseGrammars.join(", ")}:\n${run.output}`);
    // The tool reports each case file it ran: make sure none was silently left out.
    const cases = fs.readdirSync(fromRoot("test", "grammar")).filter((f) => f.endsWith(".py"));
    assert.ok(cases.length > 0);
    for (const file of cases) assert.match(run.output, new RegExp(`test/grammar/${file.replace(".", "\\.")} run successfu`), run.output);
  });
});
