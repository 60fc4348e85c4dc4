/**
 * AS105, AS106 and AS206 beyond their fixtures: how a key's literal text is read (escapes, f-string
 * braces, the 512-character boundary), which contexts AS106 knows, and AS206's fix in each import
 * style a DAG file may use, and its silence outside DAG files.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyEdits, Diagnostic, lint, PythonDocument } from "../../server/src/engine";

function findings(text: string, code: string): Diagnostic[] {
  return lint(new PythonDocument("file:///dag.py", text), { select: [code] });
}

const taskWith = (...body: string[]) => ["from airflow.sdk import task", "", "", "@task", "def load(task_state_store=None):", ...body.map((l) => `    ${l}`), ""].join("\n");

describe("AS105 reads the key's run-time text", () => {
  const severityOf = (key: string) => findings(taskWith(`task_state_store.get(${key})`), "AS105").map((d) => d.severity);

  test("escape sequences are decoded before looking for `.` and `/`", () => {
    assert.deepEqual(severityOf('"page\\x2ecount"'), ["warning"]);
    assert.deepEqual(severityOf('"page\\u002fcount"'), ["warning"]);
    // A raw string keeps its backslashes: `\x2e` is four characters, none of them a dot.
    assert.deepEqual(severityOf('r"page\\x2ecount"'), []);
  });

  test("only an f-string's literal parts count, not what its interpolations format", () => {
    assert.deepEqual(severityOf('f"ratio_{value:.2f}"'), []);
    assert.deepEqual(severityOf('f"{table}.offset"'), ["warning"]);
    assert.deepEqual(severityOf('f"{{page}}"'), []);
  });

  test("512 characters fit the key column, 513 do not, counted after decoding", () => {
    assert.deepEqual(severityOf(`"${"k".repeat(512)}"`), []);
    assert.deepEqual(severityOf(`"${"k".repeat(513)}"`), ["error"]);
    // `\n` is written with two characters but is one.
    assert.deepEqual(severityOf(`"${"k".repeat(511)}\\n"`), []);
    // Adjacent literals are one key.
    assert.deepEqual(severityOf(`"${"k".repeat(300)}" "${"k".repeat(213)}"`), ["error"]);
  });

  test("a name bound twice, a parameter or a call is not judged", () => {
    const text = taskWith("key = 1", 'key = "a.b"', "task_state_store.get(key)", "task_state_store.get(str(2))");
    assert.deepEqual(findings(text, "AS105"), []);
  });

  test("`clear()` takes no key and `set`'s value is not a key", () => {
    assert.deepEqual(findings(taskWith("task_state_store.clear()", 'task_state_store.set("page", 1.5)'), "AS105"), []);
  });
});

describe("AS106 knows what holds the context", () => {
  const reads = (text: string) => findings(text, "AS106").map((d) => d.range.start.line + 1);

  test("the `**` parameter of a plain function is not a context: nothing passes it one", () => {
    const text = ["import airflow", "", "", "def helper(**options):", '    return options["task_state"]', ""].join("\n");
    assert.deepEqual(reads(text), []);
  });

  test("a sensor's `poke` and the mixin's methods receive the context", () => {
    const text = [
      "from airflow.sdk import BaseSensorOperator",
      "",
      "",
      "class WaitForPage(BaseSensorOperator):",
      "    def poke(self, context):",
      '        return context["task_state"].get("page") is not None',
      "",
      "    def submit_job(self, context):",
      '        return context.get("task_store")',
      "",
      "    def render(self, context):",
      '        return context["task_state"]',
      "",
    ].join("\n");
    assert.deepEqual(reads(text), [6, 9]);
  });

  test("the fix of a subscript keeps the quotes and is safe; the `.get` fix is not", () => {
    const text = ["from airflow.sdk import task", "", "", "@task", "def load(**context):", "    a = context['task_state']", '    b = context.get("asset_store")', ""].join("\n");
    const [subscript, get] = findings(text, "AS106");
    assert.equal(subscript.fix?.safe, true);
    assert.equal(get.fix?.safe, false);
    assert.equal(applyEdits(text, subscript.fix!.edits).split("\n")[5], "    a = context['task_state_store']");
    assert.equal(applyEdits(text, get.fix!.edits).split("\n")[6], '    b = context.get("asset_state_store")');
  });
});

describe("AS206 fix in each import style", () => {
  const dagFile = (imports: string, expression: string) => `${imports}\nfrom airflow.sdk import task\n\n\n@task\ndef stamp(task_state_store=None):\n    task_state_store.set("at", ${expression}.isoformat())\n`;

  function fixed(text: string): string {
    const [diagnostic, ...others] = findings(text, "AS206");
    assert.ok(diagnostic?.fix, `AS206 did not fire with a fix on:\n${text}`);
    assert.equal(others.length, 0);
    const result = applyEdits(text, diagnostic.fix.edits);
    assert.ok(!new PythonDocument("file:///fixed.py", result).tree.rootNode.hasError, result);
    assert.deepEqual(findings(result, "AS206"), []);
    return result;
  }

  test("`import datetime` → `datetime.datetime.now(tz=datetime.timezone.utc)`, no import added", () => {
    const before = dagFile("import datetime", "datetime.datetime.utcnow()");
    assert.equal(fixed(before), dagFile("import datetime", "datetime.datetime.now(tz=datetime.timezone.utc)"));
  });

  test("`import datetime as dt` → `dt.timezone`", () => {
    assert.equal(fixed(dagFile("import datetime as dt", "dt.datetime.utcnow()")), dagFile("import datetime as dt", "dt.datetime.now(tz=dt.timezone.utc)"));
  });

  test("`from datetime import datetime as DateTime` gains `timezone` in the same statement", () => {
    const before = dagFile("from datetime import datetime as DateTime", "DateTime.utcnow()");
    assert.equal(fixed(before), dagFile("from datetime import datetime as DateTime, timezone", "DateTime.now(tz=timezone.utc)"));
  });

  test("an existing `timezone` import is reused", () => {
    const imports = "from datetime import datetime, timezone";
    assert.equal(fixed(dagFile(imports, "datetime.utcnow()")), dagFile(imports, "datetime.now(tz=timezone.utc)"));
  });

  test("the fix is unsafe, except before `.replace(tzinfo=...)`, where the value is the same", () => {
    const imports = "from datetime import datetime, timezone";
    assert.equal(findings(dagFile(imports, "datetime.utcnow()"), "AS206")[0].fix?.safe, false);
    assert.equal(findings(dagFile(imports, "datetime.utcnow().replace(tzinfo=timezone.utc)"), "AS206")[0].fix?.safe, true);
  });

  test("a file that does not import airflow is not a DAG file", () => {
    const text = "from datetime import datetime\n\n\ndef stamp(task_state_store):\n    return datetime.utcnow()\n";
    assert.deepEqual(findings(text, "AS206"), []);
  });

  test("`pendulum` and a local `utcnow` are not `datetime.utcnow`", () => {
    const text = "import pendulum\nfrom airflow.sdk import task\n\n\ndef utcnow():\n    return pendulum.now('UTC')\n\n\nutcnow()\npendulum.DateTime.utcnow()\n";
    assert.deepEqual(findings(text, "AS206"), []);
  });
});
