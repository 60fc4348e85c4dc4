/**
 * Every rule's fixtures with their lines ending in `\r\n`, in a lone `\r` (classic Mac, valid Python)
 * and in all three mixed, against the same fixtures with `\n`: the same findings at the same
 * positions, the same `# noqa` silence, the same review, and each fix applied in that form parses,
 * removes what it removes in the `\n` form and writes the form's own line breaks. "Suppress on this
 * line" silences each finding in every form.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { allRules, applyEdits, Diagnostic, fixAll, lint, LintOptionsWithEdits, PythonDocument, reviewMarkdown } from "../../server/src/engine";
import { AirflowPin } from "../../server/src/engine/project";
import { suppressionEdit } from "../../server/src/lsp/suppression";
import { fromRoot } from "../support/paths";

const fixtures = fromRoot("test", "rules", "fixtures");

function read(name: string): string | undefined {
  const file = `${fixtures}/${name}`;
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

interface Form {
  name: string;
  /** The LF text in this form. */
  convert(text: string): string;
  /** The one line break the form writes, or undefined for the mixed form, where fixes may write any. */
  lineBreak?: string;
}

// In this order a lone `\r` is never followed by `\n` of an empty line, which would make one `\r\n`.
const MIXED = ["\n", "\r", "\r\n"];
const FORMS: Form[] = [
  { name: "CRLF", convert: (text) => text.replace(/\n/g, "\r\n"), lineBreak: "\r\n" },
  { name: "CR", convert: (text) => text.replace(/\n/g, "\r"), lineBreak: "\r" },
  { name: "mixed", convert: (text) => text.split("\n").reduce((joined, line, i) => (i === 0 ? line : joined + MIXED[i % MIXED.length] + line), "") },
];

/** Any line breaks as `\n`. */
const withLf = (text: string) => text.replace(/\r\n?/g, "\n");

/** What a finding shows, with its position as the protocol counts lines (the same in every form). */
function shown(d: Diagnostic): string {
  return `${d.code}@${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${withLf(d.message)}`;
}

function lintText(text: string, options: LintOptionsWithEdits): Diagnostic[] {
  const errors: string[] = [];
  const diagnostics = lint(new PythonDocument("file:///fixture.py", text), { ...options, onRuleError: (rule, error) => errors.push(`${rule.code}: ${String(error)}`) });
  assert.deepEqual(errors, []);
  return diagnostics;
}

function parsesCleanly(text: string): boolean {
  return !new PythonDocument("file:///fixed.py", text).tree.rootNode.hasError;
}

/** The line breaks in `text` other than `lineBreak`. */
function otherLineBreaks(text: string, lineBreak: string): string[] {
  return [...text.matchAll(/\r\n|\r|\n/g)].map((m) => m[0]).filter((b) => b !== lineBreak);
}

for (const rule of allRules) {
  const fire = read(`${rule.code}.py`)!;
  const silent = read(`${rule.code}.silent.py`)!;
  const pinText = read(`${rule.code}.pin.json`);
  const baselineLf = read(`${rule.code}.baseline.py`);
  const airflowPin = pinText === undefined ? undefined : (JSON.parse(pinText) as AirflowPin);
  const options: LintOptionsWithEdits = { baselineText: baselineLf, airflowPin, select: [rule.code] };
  const lfFindings = lintText(fire, options);

  describe(`${rule.code} with CRLF, CR and mixed line endings`, () => {
    for (const form of FORMS) {
      const text = form.convert(fire);
      const formOptions = { ...options, baselineText: baselineLf === undefined ? undefined : form.convert(baselineLf) };

      test(`${form.name}: the same findings at the same positions, and the silent fixture stays silent`, () => {
        assert.ok(lfFindings.length > 0);
        assert.deepEqual(lintText(text, formOptions).map(shown), lfFindings.map(shown));
        assert.deepEqual(lintText(form.convert(silent), { ...formOptions, select: undefined }).map(shown), []);
      });

      test(`${form.name}: each fix applied parses, removes what it removes with LF, and keeps the file's line breaks`, () => {
        const findings = lintText(text, formOptions);
        findings.forEach((finding, index) => {
          const lf = lfFindings[index];
          for (const [i, fix] of [finding.fix, ...(finding.alternatives ?? [])].entries()) {
            if (!fix) continue;
            const lfFix = [lf.fix, ...(lf.alternatives ?? [])][i]!;
            const fixed = applyEdits(text, fix.edits);
            const lfFixed = applyEdits(fire, lfFix.edits);
            assert.ok(parsesCleanly(fixed), `"${fix.title}" leaves a syntax error in the ${form.name} form`);
            assert.equal(withLf(fixed), lfFixed, `"${fix.title}" edits the ${form.name} form differently`);
            if (form.lineBreak) assert.deepEqual(otherLineBreaks(fixed, form.lineBreak), [], `"${fix.title}" writes other line breaks into a ${form.name} file`);
            assert.deepEqual(lintText(fixed, formOptions).map(shown), lintText(lfFixed, options).map(shown));
          }
        });
        const all = fixAll("file:///fixture.py", text, formOptions, true);
        assert.equal(withLf(all.text), fixAll("file:///fixture.py", fire, options, true).text);
        if (form.lineBreak) assert.deepEqual(otherLineBreaks(all.text, form.lineBreak), []);
      });

      test(`${form.name}: "Suppress on this line" silences each finding`, () => {
        const document = new PythonDocument("file:///fixture.py", text);
        for (const finding of lintText(text, formOptions)) {
          const edit = suppressionEdit(document, finding.range.start.line, finding.code);
          if (!edit) continue; // The line ends inside a string or continues with a backslash.
          const suppressed = applyEdits(text, [{ start: document.offsetAt(edit.range.start), end: document.offsetAt(edit.range.end), newText: edit.newText }]);
          const after = lintText(suppressed, formOptions);
          assert.ok(!after.some((d) => d.code === finding.code && d.range.start.line === finding.range.start.line), `${shown(finding)} is still reported after its suppression`);
        }
      });

      test(`${form.name}: the same review`, () => {
        const review = (source: string, baselineText: string | undefined) =>
          reviewMarkdown(new PythonDocument("file:///dags/fixture.py", source), { ...options, baselineText, select: undefined });
        assert.equal(review(text, formOptions.baselineText), review(fire, baselineLf));
      });
    }
  });
}
