/**
 * A rule may give one report a severity of its own (AS105: a dotted key is a warning, a number an
 * error); a severity the user sets for the rule overrides it for every report of that rule.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lint, LintOptions, PythonDocument, ruleByCode } from "../../server/src/engine";

const DAG = [
  "from airflow.sdk import task",
  "",
  "",
  "@task",
  "def export(task_state_store=None):",
  '    task_state_store.set("export.page", 1)',
  '    task_state_store.set(42, "done")',
  "",
].join("\n");

/** `line: severity` of each AS105 finding. */
function severities(options: LintOptions = {}): string[] {
  return lint(new PythonDocument("file:///dag.py", DAG), { ...options, select: ["AS105"] }).map((d) => `${d.range.start.line + 1}: ${d.severity}`);
}

describe("per-report severity", () => {
  test("a report without its own severity takes the rule's default; one with it keeps it", () => {
    assert.equal(ruleByCode("AS105")?.defaultSeverity, "warning");
    assert.deepEqual(severities(), ["6: warning", "7: error"]);
  });

  test("the user's severity for the rule wins over every report's own", () => {
    assert.deepEqual(severities({ severities: { AS105: "info" } }), ["6: info", "7: info"]);
    assert.deepEqual(severities({ severities: { AS105: "error" } }), ["6: error", "7: error"]);
  });

  test("a setting for another rule leaves the reports' own severities alone", () => {
    assert.deepEqual(severities({ severities: { AS101: "hint" } }), ["6: warning", "7: error"]);
  });

  test("`off` silences every report of the rule, whatever their own severity", () => {
    assert.deepEqual(severities({ severities: { AS105: "off" } }), []);
  });
});
