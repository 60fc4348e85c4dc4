/**
 * A lint without fixes' edits (`fixEdits: false`, as the language server lints) gives the findings
 * of a lint with them, each fix a summary, and `fixesOf` then makes for each finding the fix and
 * alternatives, edits included, that the lint with edits gave it: checked on every fixture (with
 * its baseline and pin) and example.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import { Diagnostic, Fix, fixesOf, FixSummary, IncrementalLinter, lint, LintOptions, PythonDocument } from "../../server/src/engine";
import type { AirflowPin } from "../../server/src/engine/project";
import { fromRoot } from "../support/paths";

const FIXTURES = fromRoot("test", "rules", "fixtures");
const EXAMPLES = fromRoot("examples", "dags");

interface Source {
  name: string;
  text: string;
  options: LintOptions;
}

function sources(): Source[] {
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
  const fixtures = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".py") && !f.endsWith(".baseline.py") && !f.endsWith(".fixed.py"))
    .map((f) => {
      const code = f.slice(0, 5);
      const pin = read(path.join(FIXTURES, `${code}.pin.json`));
      const options: LintOptions = { baselineText: read(path.join(FIXTURES, `${code}.baseline.py`)), airflowPin: pin === undefined ? undefined : (JSON.parse(pin) as AirflowPin) };
      return { name: f, text: read(path.join(FIXTURES, f))!, options };
    });
  const examples = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".py")).map((f) => ({ name: `examples/${f}`, text: read(path.join(EXAMPLES, f))!, options: {} }));
  return [...fixtures, ...examples];
}

function summary(fix: Fix): FixSummary {
  return { title: fix.title, safe: fix.safe, kind: fix.kind };
}

/** What the findings say apart from their fixes' edits. */
function described(diagnostics: readonly Diagnostic<FixSummary>[]): unknown[] {
  return diagnostics.map((d) => ({ ...d, fix: d.fix && summary(d.fix as Fix), alternatives: d.alternatives?.map((fix) => summary(fix as Fix)) }));
}

describe("fixes made when asked for", () => {
  let withFixes = 0;
  for (const source of sources()) {
    test(source.name, () => {
      const document = new PythonDocument("file:///fixture.py", source.text);
      const withEdits = lint(document, { ...source.options, fixEdits: true });
      const withoutEdits = lint(document, { ...source.options, fixEdits: false });
      for (const finding of withoutEdits) {
        for (const fix of [finding.fix, ...(finding.alternatives ?? [])]) if (fix) assert.equal("edits" in fix, false, `${finding.code}: "${fix.title}" came with its edits`);
      }
      assert.deepEqual(described(withoutEdits), described(withEdits));

      const made = fixesOf(document, { ...source.options, fixEdits: false }, withoutEdits);
      assert.equal(made.length, withoutEdits.length);
      withEdits.forEach((finding, i) => {
        const expected = finding.fix || finding.alternatives ? { fix: finding.fix, alternatives: finding.alternatives } : undefined;
        assert.deepEqual(made[i], expected, `${finding.code} at line ${finding.range.start.line + 1}`);
        if (expected) withFixes++;
      });
      // Asked about one finding at a time, as a code action under the cursor does.
      withoutEdits.forEach((finding, i) => assert.deepEqual(fixesOf(document, source.options, [finding])[0], made[i], `${finding.code} at line ${finding.range.start.line + 1}, alone`));
      // With the model the lint built, as the language server asks (its rules run again on the same model).
      const linter = new IncrementalLinter();
      const linted = linter.lint(document, { ...source.options, fixEdits: false });
      assert.deepEqual(fixesOf(document, source.options, linted, linter.lastModel), made, "with the lint's model");
      linted.forEach((finding, i) => assert.deepEqual(fixesOf(document, source.options, [finding], linter.lastModel)[0], made[i], `${finding.code} at line ${finding.range.start.line + 1}, alone, with the lint's model`));
    });
  }

  test("the fixtures hold findings with fixes", () => assert.ok(withFixes > 50, `only ${withFixes} findings with fixes were compared`));

  test("a finding the document no longer holds gets no fixes", () => {
    const text = 'from datetime import datetime\nfrom airflow.sdk import task\n\n\n@task\ndef t(task_state_store=None):\n    task_state_store.set("k", datetime.now())\n';
    const [finding] = lint(new PythonDocument("file:///a.py", text), { fixEdits: false });
    assert.equal(finding?.code, "AS101");
    assert.ok(finding.fix);
    const edited = new PythonDocument("file:///a.py", text.replace("datetime.now()", '"now"'));
    assert.deepEqual(fixesOf(edited, {}, [finding]), [undefined]);
  });
});
