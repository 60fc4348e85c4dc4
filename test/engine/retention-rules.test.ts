/**
 * AS103 and AS104 beyond their fixtures: the fix in each import style a file may use (a fixture holds
 * only one), the unit read from names and values, and the forms that must stay silent.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyEdits, Diagnostic, lint, PythonDocument } from "../../server/src/engine";

function findings(text: string, code: string): Diagnostic[] {
  return lint(new PythonDocument("file:///dag.py", text), { select: [code] });
}

/** The text after applying the fix of the only `code` diagnostic (AS103's fixes are unsafe guesses, AS104's are safe). */
function fixed(text: string, code = "AS103"): string {
  const [diagnostic, ...others] = findings(text, code);
  assert.ok(diagnostic, `${code} did not fire on:\n${text}`);
  assert.equal(others.length, 0);
  assert.ok(diagnostic.fix, `no fix for: ${diagnostic.message}`);
  assert.equal(diagnostic.fix.safe, code === "AS104");
  const result = applyEdits(text, diagnostic.fix.edits);
  assert.ok(!new PythonDocument("file:///fixed.py", result).tree.rootNode.hasError, result);
  assert.deepEqual(findings(result, code), [], "the fix leaves the diagnostic");
  return result;
}

const task = (imports: string, body: string) => `${imports}\nfrom airflow.sdk import task\n\n\n@task\ndef load(task_state_store=None):\n${body}\n`;

describe("AS103 fix in each import style", () => {
  const set = '    task_state_store.set("cursor", 1, retention=7)';
  const wrapped = (reference: string) => `    task_state_store.set("cursor", 1, retention=${reference}(days=7))`;

  test("`import datetime` → `datetime.timedelta`, no import added", () => {
    assert.equal(fixed(task("import datetime", set)), task("import datetime", wrapped("datetime.timedelta")));
  });

  test("`import datetime as dt` → `dt.timedelta`", () => {
    assert.equal(fixed(task("import datetime as dt", set)), task("import datetime as dt", wrapped("dt.timedelta")));
  });

  test("`from datetime import timedelta as td` → `td`", () => {
    assert.equal(fixed(task("from datetime import timedelta as td", set)), task("from datetime import timedelta as td", wrapped("td")));
  });

  test("a multi-line parenthesised import gains a line", () => {
    const before = "from datetime import (\n    datetime,\n    timezone,\n)";
    const after = "from datetime import (\n    datetime,\n    timezone,\n    timedelta,\n)";
    assert.equal(fixed(task(before, set)), task(after, wrapped("timedelta")));
  });

  test("no datetime import: `from datetime import timedelta` after the last import", () => {
    const text = task("import logging", set);
    assert.equal(fixed(text), "import logging\nfrom airflow.sdk import task\nfrom datetime import timedelta\n\n\n@task\ndef load(task_state_store=None):\n" + wrapped("timedelta") + "\n");
  });

  test("`timedelta` bound to something else: the module is imported and named", () => {
    const text = "from airflow.sdk import task\n\ntimedelta = 7\n\n\n@task\ndef load(task_state_store=None):\n" + set + "\n";
    assert.equal(fixed(text), "from airflow.sdk import task\nimport datetime\n\ntimedelta = 7\n\n\n@task\ndef load(task_state_store=None):\n" + wrapped("datetime.timedelta") + "\n");
  });
});

describe("AS103 units", () => {
  const replacement = (constant: string, value: string) => {
    const text = task(`from datetime import timedelta\n${constant}`, `    task_state_store.set("cursor", 1, retention=${value})`);
    const line = fixed(text).split("\n").find((l) => l.includes("task_state_store.set"))!;
    return /retention=(.*)\)$/.exec(line)![1];
  };

  test("a name that states its unit is followed", () => {
    assert.equal(replacement("RETENTION_MINUTES = 90", "RETENTION_MINUTES"), "timedelta(minutes=RETENTION_MINUTES)");
    assert.equal(replacement("retentionHours = 6", "retentionHours"), "timedelta(hours=retentionHours)");
    assert.equal(replacement("KEEP_WEEKS = 2", "KEEP_WEEKS"), "timedelta(weeks=KEEP_WEEKS)");
    assert.equal(replacement("TTL_MS = 5000", "TTL_MS"), "timedelta(milliseconds=TTL_MS)");
  });

  test("whole multiples of an hour in seconds are read as seconds, other numbers as days", () => {
    assert.equal(replacement("SECONDS_PER_DAY = 86400", "SECONDS_PER_DAY"), "timedelta(seconds=SECONDS_PER_DAY)");
    assert.equal(replacement("", "7 * 24 * 3600"), "timedelta(seconds=7 * 24 * 3600)");
    assert.equal(replacement("MIN_RETENTION = 3", "MIN_RETENTION"), "timedelta(days=MIN_RETENTION)");
    assert.equal(replacement("", "0x10"), "timedelta(days=0x10)");
    assert.equal(replacement("", '"030"'), "timedelta(days=30)");
  });

  test("no fix when the unit or the intent is unknown", () => {
    for (const value of ["-7", "7 * 24", '"1.5"', '"7d"', 'f"{7}"']) {
      const [diagnostic] = findings(task("", `    task_state_store.set("cursor", 1, retention=${value})`), "AS103");
      assert.ok(diagnostic, `${value} should fire`);
      assert.equal(diagnostic.fix, undefined, `${value} should have no fix`);
    }
  });

  test("0 becomes NEVER_EXPIRE, imported from airflow.sdk", () => {
    const text = task("", '    task_state_store.set("cursor", 1, retention=0)');
    assert.equal(fixed(text), task("", '    task_state_store.set("cursor", 1, retention=NEVER_EXPIRE)').replace("import task", "import task, NEVER_EXPIRE"));
  });
});

describe("AS103 and AS104 precision", () => {
  test("the range is the whole `retention=` argument", () => {
    const text = task("", '    task_state_store.set("cursor", 1, retention=7)');
    const [diagnostic] = findings(text, "AS103");
    assert.equal(text.slice(diagnostic.startOffset, diagnostic.endOffset), "retention=7");
  });

  test("silent: timedelta however written, NEVER_EXPIRE, None, calls, unknown and reassigned names, parameters", () => {
    const silent = [
      "timedelta(days=7)",
      "datetime.timedelta(days=1)",
      "pendulum.duration(hours=1)",
      "NEVER_EXPIRE",
      "None",
      "compute_retention()",
      "settings.RETENTION_DAYS",
      "UNKNOWN",
      "REASSIGNED",
      "days",
      "7 if fast else None",
    ];
    for (const value of silent) {
      const text = `from airflow.sdk import task\n\nREASSIGNED = 7\nREASSIGNED = 8\n\n\n@task\ndef load(days=7, task_state_store=None):\n    task_state_store.set("k", 1, retention=${value})\n`;
      assert.deepEqual(findings(text, "AS103"), [], value);
    }
  });

  test("a function-local constant fires; the same name local to another function does not leak", () => {
    const text =
      'from airflow.sdk import task\n\n\n@task\ndef a(task_state_store=None):\n    keep = 3\n    task_state_store.set("k", 1, retention=keep)\n\n\n' +
      '@task\ndef b(keep=None, task_state_store=None):\n    task_state_store.set("k", 1, retention=keep)\n';
    assert.deepEqual(
      findings(text, "AS103").map((d) => d.range.start.line + 1),
      [7],
    );
  });

  test("the asset store's retention is AS104's, not AS103's; the task store's is AS103's, not AS104's", () => {
    const text =
      'from airflow.sdk import Asset, task\n\nORDERS = Asset(name="orders")\n\n\n@task(outlets=[ORDERS])\n' +
      'def load(asset_state_store=None, task_state_store=None):\n    asset_state_store[ORDERS].set("w", "x", retention=7)\n    task_state_store.set("k", 1, retention=7)\n';
    assert.deepEqual(findings(text, "AS103").map((d) => d.range.start.line + 1), [9]);
    assert.deepEqual(findings(text, "AS104").map((d) => d.range.start.line + 1), [8]);
  });

  test("AS104 on an unindexed asset store, with an exact range and a safe removal", () => {
    const text = 'from airflow.sdk import task\n\n\n@task\ndef load(asset_state_store=None):\n    asset_state_store.set("w", "x", retention=None)\n';
    const [diagnostic] = findings(text, "AS104");
    assert.equal(text.slice(diagnostic.startOffset, diagnostic.endOffset), "retention=None");
    assert.equal(fixed(text, "AS104"), 'from airflow.sdk import task\n\n\n@task\ndef load(asset_state_store=None):\n    asset_state_store.set("w", "x")\n');
  });
});
