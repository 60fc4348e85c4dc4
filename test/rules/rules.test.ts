/**
 * Every rule against its fixtures in ./fixtures:
 * - `ASxxx.py` must fire exactly on the lines marked `# expect: ASxxx` (and nowhere else); it is valid
 *   Python, except for the rules about files that do not parse (AS001), whose fire fixture is not;
 * - `ASxxx.silent.py` holds correct forms and must produce no diagnostic at all;
 * - `ASxxx.ranges` records the exact range of every finding in `ASxxx.py` (a snapshot, reviewed by hand);
 * - `ASxxx.fixed.py` is the fire fixture after applying every fix of the rule; each fix is also
 *   applied alone and the result re-parsed and re-checked: it must remove exactly the diagnostics
 *   that carry that same fix (the same edits) — its own, and any other that the same rewrite resolves
 *   together. Each alternative rewrite a diagnostic
 *   offers beside its fix (AS405's one durable task) is applied alone and checked the same way.
 * - `ASxxx.baseline.py`, when present, is the committed text of both fixtures for rules that compare
 *   with it (AS301): it is passed as `baselineText` to every check, and the silent fixture must also
 *   stay silent without it.
 * - `ASxxx.pin.json`, when present, is the Airflow version the fixtures' project pins (an `AirflowPin`,
 *   for AS501/AS502): it is passed as `airflowPin` to every check, and the silent fixture must also
 *   stay silent without it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { allRules, applyEdits, Diagnostic, Fix, fixAll, lint, LintOptionsWithEdits, PythonDocument, TextEdit } from "../../server/src/engine";
import { AirflowPin } from "../../server/src/engine/project";
import { fromRoot } from "../support/paths";

const fixtures = fromRoot("test", "rules", "fixtures");

function read(name: string): string | undefined {
  const file = `${fixtures}/${name}`;
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

function expectedMarks(text: string, code: string): string[] {
  const marks: string[] = [];
  text.split("\n").forEach((line, index) => {
    const match = /# expect: ([A-Z0-9, ]+)/.exec(line);
    if (match && match[1].split(/[ ,]+/).includes(code)) marks.push(`${code}@${index + 1}`);
  });
  return marks;
}

function found(text: string, code: string, context: LintOptionsWithEdits): string[] {
  return lint(new PythonDocument("file:///fixture.py", text), { ...context, select: [code] }).map((d) => `${d.code}@${d.range.start.line + 1}`);
}

function sameEdits(a: readonly TextEdit[], b: readonly TextEdit[]): boolean {
  return a.length === b.length && a.every((edit, i) => edit.start === b[i].start && edit.end === b[i].end && edit.newText === b[i].newText);
}

/** The fix and the alternative rewrites a diagnostic offers. */
function offered(diagnostic: Diagnostic): Fix[] {
  return [...(diagnostic.fix ? [diagnostic.fix] : []), ...(diagnostic.alternatives ?? [])];
}

/** Rules whose fire fixture is a file that does not parse. */
const ABOUT_INVALID_SYNTAX = new Set(["AS001"]);

function parsesCleanly(text: string): boolean {
  return !new PythonDocument("file:///fixed.py", text).tree.rootNode.hasError;
}

for (const rule of allRules) {
  describe(`${rule.code} ${rule.name}`, () => {
    const fire = read(`${rule.code}.py`);
    const silent = read(`${rule.code}.silent.py`);
    const baselineText = read(`${rule.code}.baseline.py`);
    const pinText = read(`${rule.code}.pin.json`);
    const airflowPin = pinText === undefined ? undefined : (JSON.parse(pinText) as AirflowPin);
    /** What the project around the fixtures provides: its committed text and its Airflow pin. */
    const context: LintOptionsWithEdits = { baselineText, airflowPin };

    test("has fixtures that fire and fixtures that stay silent", () => {
      assert.ok(fire, `missing fixtures/${rule.code}.py`);
      assert.ok(silent, `missing fixtures/${rule.code}.silent.py`);
      assert.ok(parsesCleanly(silent!), "the silent fixture must be valid Python");
      if (ABOUT_INVALID_SYNTAX.has(rule.code)) assert.ok(!parsesCleanly(fire!), "the fire fixture must not parse");
      else assert.ok(parsesCleanly(fire!), "the fire fixture must be valid Python");
      assert.ok(expectedMarks(fire!, rule.code).length > 0, "the fire fixture marks no expected diagnostic");
    });

    test("fires exactly on the marked lines", () => {
      assert.deepEqual(found(fire!, rule.code, context), expectedMarks(fire!, rule.code));
    });

    test("stays silent on correct forms (every rule)", () => {
      for (const baseline of baselineText === undefined ? [undefined] : [baselineText, undefined]) {
        for (const pin of airflowPin === undefined ? [undefined] : [airflowPin, undefined]) {
          const diagnostics = lint(new PythonDocument("file:///silent.py", silent!), { baselineText: baseline, airflowPin: pin }).map((d) => `${d.code}@${d.range.start.line + 1}: ${d.message}`);
          assert.deepEqual(diagnostics, []);
        }
      }
    });

    const diagnostics = fire ? lint(new PythonDocument("file:///fixture.py", fire), { ...context, select: [rule.code] }) : [];

    test("underlines exactly what ASxxx.ranges records", () => {
      // One line per finding: 1-based start and end, the code, and the first line of the underlined text.
      const actual = diagnostics
        .map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.line + 1}:${d.range.end.character + 1} ${d.code} ${fire!.slice(d.startOffset, d.endOffset).split("\n")[0].slice(0, 80)}`)
        .join("\n") + "\n";
      // UPDATE_RANGES=1 rewrites the snapshots; review the diff before committing it.
      if (process.env.UPDATE_RANGES) fs.writeFileSync(`${fixtures}/${rule.code}.ranges`, actual);
      assert.equal(actual, read(`${rule.code}.ranges`), `fixtures/${rule.code}.ranges differs (UPDATE_RANGES=1 npm test rewrites it)`);
    });

    const withFix = diagnostics.filter((d) => d.fix);
    const withAlternatives = diagnostics.filter((d) => d.alternatives);

    /** Applies one fix (or alternative rewrite) alone and checks what it leaves. */
    const checkAlone = (fix: Fix, kind: string) => {
      const others = lint(new PythonDocument("file:///fixture.py", fire!), context).filter((d) => d.code !== rule.code).length;
      const fixed = applyEdits(fire!, fix.edits);
      assert.ok(parsesCleanly(fixed), `${kind} "${fix.title}" leaves a syntax error:\n${fixed}`);
      const after = lint(new PythonDocument("file:///fixture.py", fixed), context);
      // One rewrite may be offered on several reports (every call of one key): it resolves them all.
      const resolved = diagnostics.filter((d) => offered(d).some((f) => sameEdits(f.edits, fix.edits))).length;
      assert.equal(after.filter((d) => d.code === rule.code).length, diagnostics.length - resolved, `${kind} "${fix.title}" did not remove exactly the ${resolved} diagnostic(s) carrying it`);
      assert.equal(after.filter((d) => d.code !== rule.code).length, others, `${kind} "${fix.title}" changed other rules' findings`);
    };

    if (withAlternatives.length > 0) {
      test("each alternative rewrite alone parses, removes the diagnostics carrying it and leaves the others", () => {
        for (const diagnostic of withAlternatives) {
          assert.ok(diagnostic.alternatives!.length > 0, "an empty alternatives list is left out");
          for (const alternative of diagnostic.alternatives!) {
            assert.ok(!alternative.safe, `alternative "${alternative.title}" is marked safe, but fix-all never applies alternatives`);
            assert.ok(!diagnostic.fix || !sameEdits(alternative.edits, diagnostic.fix.edits), `alternative "${alternative.title}" repeats the fix`);
            checkAlone(alternative, "alternative");
          }
        }
      });
    }

    if (withFix.length === 0) return;

    test("each fix alone parses, removes the diagnostics carrying it and leaves the others", () => {
      for (const diagnostic of withFix) checkAlone(diagnostic.fix!, "fix");
    });

    test("applying every fix gives the .fixed.py snapshot", () => {
      const expected = read(`${rule.code}.fixed.py`);
      assert.ok(expected !== undefined, `missing fixtures/${rule.code}.fixed.py`);
      const result = fixAll("file:///fixture.py", fire!, { ...context, select: [rule.code] }, true);
      assert.equal(result.text, expected);
      assert.ok(parsesCleanly(result.text));
      const remaining = result.diagnostics.filter((d) => d.fix);
      assert.deepEqual(remaining.map((d) => `${d.code}@${d.range.start.line + 1}`), [], "fixable diagnostics remain after fixing");
    });
  });
}
