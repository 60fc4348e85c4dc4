/**
 * AS401–AS404 beyond their fixtures: which rule a key goes to (never two), the precision cases that
 * must stay silent, the details of the rewrites, and the example DAGs before and after.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { applyEdits, Diagnostic, fixAll, lint, PythonDocument } from "../../server/src/engine";
import { SemanticModel } from "../../server/src/engine/airflow/model";
import { keyIdentity } from "../../server/src/engine/airflow/variablesAndXcom";
import { fromRoot } from "../support/paths";

const RULES = ["AS401", "AS402", "AS403", "AS404"];

function diagnostics(lines: string[], select: string[] = RULES): Diagnostic[] {
  return lint(new PythonDocument("file:///dag.py", lines.join("\n") + "\n"), { select });
}

/** `AS401@12` for each diagnostic, 1-based lines, followed by the lines of its related locations: `AS401@12+14+15`. */
function found(lines: string[], select: string[] = RULES): string[] {
  return diagnostics(lines, select).map((d) => [`${d.code}@${d.range.start.line + 1}`, ...(d.related?.ranges ?? []).map((r) => r.start.line + 1)].join("+"));
}

/** The text after applying the fix of the first diagnostic of `code`. */
function fixed(lines: string[], code: string): string {
  const text = lines.join("\n") + "\n";
  const diagnostic = lint(new PythonDocument("file:///dag.py", text), { select: [code] })[0];
  assert.ok(diagnostic?.fix, `no ${code} fix offered`);
  const result = applyEdits(text, diagnostic.fix.edits);
  assert.ok(!new PythonDocument("file:///fixed.py", result).tree.rootNode.hasError, `the fix leaves a syntax error:\n${result}`);
  return result;
}

function model(lines: string[]): SemanticModel {
  const document = new PythonDocument("file:///dag.py", lines.join("\n") + "\n");
  return new SemanticModel(document.tree, document.getText());
}

const HEADER = ["from airflow.sdk import DAG, Asset, Variable, task", ""];

describe("Variable key identity", () => {
  const m = model([
    ...HEADER,
    'KEY = "cursor"',
    "def f(table, computed):",
    '    Variable.get("cursor")',
    "    Variable.get(KEY)",
    '    Variable.get(f"done_{table}")',
    '    Variable.get(f"done_{table}")',
    "    Variable.get(computed + 'x')",
    "    Variable.get(f\"done_{table.upper()}\")",
  ]);
  const keys = m.calls.filter((c) => c.callee === "airflow.sdk.Variable.get").map((c) => keyIdentity(m, c.args.positional[0]));

  test("a literal and a name bound once to it are the same key", () => {
    assert.equal(keys[0], "literal:cursor");
    assert.equal(keys[1], keys[0]);
  });

  test("two f-strings over the same names are the same key; computed keys have no identity", () => {
    assert.ok(keys[2]?.startsWith("fstring:"));
    assert.equal(keys[3], keys[2]);
    assert.equal(keys[4], undefined);
    assert.equal(keys[5], undefined);
  });
});

describe("which rule a Variable key goes to", () => {
  test("a key read and written by one task: AS401", () => {
    assert.deepEqual(found([...HEADER, "@task", "def t():", '    n = Variable.get("counter", default=0)', '    Variable.set("counter", n)']), ["AS401@5+6"]);
  });

  test("a watermark-like key goes to AS402 instead, never both", () => {
    for (const key of ["watermark", "orders_last_processed_at", "processed_at_utc", "HIGH_WATER_MARK", "last_run_id", "last_success", "crm_last_sync"]) {
      assert.deepEqual(found([...HEADER, "@task", "def t():", `    n = Variable.get("${key}")`, `    Variable.set("${key}", n)`]), ["AS402@5+6"], key);
    }
  });

  test("any key of a task with exactly one outlet goes to AS402; with two outlets it stays AS401", () => {
    const task = (outlets: string) => [
      ...HEADER,
      'A = Asset(name="a", uri="s3://a")',
      'B = Asset(name="b", uri="s3://b")',
      `@task(outlets=[${outlets}])`,
      "def t():",
      '    n = Variable.get("offset")',
      '    Variable.set("offset", n)',
    ];
    assert.deepEqual(found(task("A")), ["AS402@7+8"]);
    assert.deepEqual(found(task("A, A")), ["AS402@7+8"]);
    assert.deepEqual(found(task("A, B")), ["AS401@7+8"]);
  });

  test("a job id kept for reconnecting goes to AS404 alone", () => {
    const lines = [
      ...HEADER,
      "@task(retries=2)",
      "def t():",
      '    job_id = Variable.get("last_run_job_id", default=None)',
      "    if job_id:",
      "        wait(job_id)",
      "    else:",
      "        job_id = submit()",
      '        Variable.set("last_run_job_id", job_id)',
    ];
    assert.deepEqual(found(lines), ["AS404@5+10"]);
  });

  test("the same if/else over a key that is not about a job is AS401, not AS404", () => {
    const lines = [
      ...HEADER,
      "@task",
      "def t():",
      '    cursor = Variable.get("cursor", default=None)',
      "    if cursor:",
      "        load_since(cursor)",
      "    else:",
      "        cursor = full_load()",
      '    Variable.set("cursor", cursor)',
    ];
    assert.deepEqual(found(lines), ["AS401@5+10"]);
  });
});

describe("Variables that stay silent", () => {
  const silent = (name: string, lines: string[]) => test(name, () => assert.deepEqual(found(lines, ["AS"]), []));

  silent("configuration only read", [...HEADER, "@task", "def t():", '    print(Variable.get("endpoint"), Variable.get("limits", deserialize_json=True))']);
  silent("written by one task and read by another", [
    ...HEADER,
    "@task",
    "def a():",
    '    n = Variable.get("shared", default=0)',
    '    Variable.set("shared", n)',
    "@task",
    "def b():",
    '    print(Variable.get("shared"))',
  ]);
  silent("read and written at the top level of the DAG file", [...HEADER, 'n = Variable.get("parsed", default=0)', 'Variable.set("parsed", n)']);
  silent("read and written by a function no operator runs", [...HEADER, "def helper():", '    n = Variable.get("scratch", default=0)', '    Variable.set("scratch", n)']);
  silent("a Variable class that is not Airflow's", ["from airflow.sdk import task", "from settings import Variable", "@task", "def t():", '    n = Variable.get("x")', '    Variable.set("x", n)']);
  silent("a key a template of another task reads", [
    ...HEADER,
    "from airflow.providers.standard.operators.bash import BashOperator",
    "@task",
    "def t():",
    '    n = Variable.get("token", default="")',
    '    Variable.set("token", n + "x")',
    'BashOperator(task_id="b", bash_command="echo {{ var.value.token }}")',
  ]);

  test("without that template the same task is reported", () => {
    assert.deepEqual(found([...HEADER, "@task", "def t():", '    n = Variable.get("token", default="")', '    Variable.set("token", n + "x")'], ["AS"]), ["AS401@5+6"]);
  });
});

describe("the task store rewrite (AS401)", () => {
  test("Variables held text: a value not certainly a string is stored as str(...), a string as is, JSON natively", () => {
    const result = fixed(
      [
        ...HEADER,
        "@task",
        "def t(size):",
        '    a = Variable.get("a", default=0)',
        '    Variable.set("a", int(a) + size)',
        '    Variable.set("a", f"{size}")',
        '    Variable.set("a", "{}".format(size))',
      ],
      "AS401",
    );
    assert.match(result, /def t\(size, task_state_store=None\):/);
    assert.match(result, /task_state_store\.set\("a", str\(int\(a\) \+ size\)\)/);
    assert.match(result, /task_state_store\.set\("a", f"\{size\}"\)/);
    assert.match(result, /task_state_store\.set\("a", "\{\}"\.format\(size\)\)/);
    const json = fixed([...HEADER, "@task", "def t():", '    d = Variable.get("d", default={}, deserialize_json=True)', '    Variable.set("d", d, serialize_json=True)'], "AS401");
    assert.match(json, /task_state_store\.get\("d", default=\{\}\)/);
    assert.match(json, /task_state_store\.set\("d", d\)/);
  });

  test("the parameter goes after keyword-only parameters and *args; an existing store parameter is reused", () => {
    const body = ['    n = Variable.get("n", default=0)', '    Variable.set("n", n)'];
    assert.match(fixed([...HEADER, "@task", "def t(a, *, b=1):", ...body], "AS401"), /def t\(a, \*, b=1, task_state_store=None\):/);
    assert.match(fixed([...HEADER, "@task", "def t(*args):", ...body], "AS401"), /def t\(\*args, task_state_store=None\):/);
    const reused = fixed([...HEADER, "@task", "def t(tss=None, task_state_store=None):", ...body], "AS401");
    assert.match(reused, /def t\(tss=None, task_state_store=None\):/);
    assert.match(reused, /n = task_state_store\.get\("n", default=0\)/);
  });

  test("a store bound from the context is reused; a name taken by something else blocks the rewrite", () => {
    const bound = fixed([...HEADER, "@task", "def t(**kwargs):", '    store = kwargs["task_state_store"]', '    n = Variable.get("n", default=0)', '    Variable.set("n", n)'], "AS401");
    assert.match(bound, /n = store\.get\("n", default=0\)/);
    assert.doesNotMatch(bound, /task_state_store = /);
    const taken = diagnostics([...HEADER, "@task", "def t():", "    task_state_store = {}", '    n = Variable.get("n", default=0)', '    Variable.set("n", n)']);
    assert.equal(taken.length, 1);
    assert.equal(taken[0].fix, undefined);
  });

  test("one report per task and key, on its first call, with the others as related locations and one rewrite of them all", () => {
    const reports = diagnostics([...HEADER, "@task", "def t():", '    n = Variable.get("n", default=0)', '    Variable.set("n", n)', '    Variable.delete("n")']);
    assert.equal(reports.length, 1);
    const [report] = reports;
    assert.equal(report.range.start.line + 1, 5);
    assert.deepEqual(report.related, {
      message: "Another `Variable` call of `\"n\"` in this task",
      ranges: [
        { start: { line: 5, character: 4 }, end: { line: 5, character: 24 } },
        { start: { line: 6, character: 4 }, end: { line: 6, character: 24 } },
      ],
    });
    assert.ok(report.fix?.kind === "refactor.rewrite" && !report.fix.safe);
    assert.equal(report.fix.edits.length, 4);
  });

  test("a key only ever set to a literal constant is configuration; one computed write among them makes it state", () => {
    const constants = ['"prod"', "3", "-1.5", "True", "None", '["a", 1]', '{"k": (1, 2)}', "CONSTANT", 'f"plain"'];
    for (const value of constants) {
      const lines = [...HEADER, 'CONSTANT = "x"', "@task", "def t():", '    print(Variable.get("k"))', `    Variable.set("k", ${value})`];
      assert.deepEqual(found(lines, ["AS"]), [], value);
    }
    for (const value of ['f"{run}"', "[run]", '{"k": run}', "run + 1", "compute()"]) {
      const lines = [...HEADER, "@task", "def t(run):", '    print(Variable.get("k"))', `    Variable.set("k", ${value})`, '    Variable.set("k", "reset")'];
      assert.deepEqual(found(lines, ["AS"]), ["AS401@5+6+7"], value);
    }
  });

  test("line endings of a CRLF file are kept", () => {
    const text = ["from airflow.sdk import Variable, task", "@task", "def t(**context):", '    n = Variable.get("n", default=0)', '    Variable.set("n", n)', ""].join("\r\n");
    const diagnostic = lint(new PythonDocument("file:///dag.py", text), { select: ["AS401"] })[0];
    const result = applyEdits(text, diagnostic.fix!.edits);
    assert.match(result, /\r\n {4}task_state_store = context\["task_state_store"\]\r\n {4}n = task_state_store/);
    assert.doesNotMatch(result.replace(/\r\n/g, ""), /\n/);
  });
});

describe("the asset store rewrite (AS402)", () => {
  test("a task without lineage gets the file's only asset as an outlet", () => {
    const result = fixed([...HEADER, 'ORDERS = Asset(name="orders", uri="s3://orders")', "@task", "def t():", '    w = Variable.get("watermark", default="")', '    Variable.set("watermark", w)'], "AS402");
    assert.match(result, /@task\(outlets=\[ORDERS\]\)\ndef t\(asset_state_store=None\):/);
    assert.match(result, /w = asset_state_store\[ORDERS\]\.get\("watermark", default=""\)/);
  });

  test("not when a DAG of the file is scheduled on that asset (the task would trigger its own DAG)", () => {
    const reports = diagnostics([
      ...HEADER,
      'ORDERS = Asset(name="orders", uri="s3://orders")',
      "with DAG(dag_id='d', schedule=[ORDERS]):",
      "    @task",
      "    def t():",
      '        w = Variable.get("watermark", default="")',
      '        Variable.set("watermark", w)',
    ]);
    assert.deepEqual(reports.map((d) => d.code), ["AS402"]);
    assert.equal(reports[0].fix, undefined);
  });

  test("the single inlet of a task without outlets", () => {
    const result = fixed([...HEADER, 'A = Asset(name="a", uri="s3://a")', "@task(inlets=[A])", "def t():", '    w = Variable.get("last_sync", default="")', '    Variable.set("last_sync", w)'], "AS402");
    assert.match(result, /asset_state_store\[A\]\.set\("last_sync", str\(w\)\)/);
    assert.match(result, /@task\(inlets=\[A\]\)/);
  });
});

describe("the XCom rewrite (AS403)", () => {
  const trip = (pull: string) => [
    "from airflow.sdk import task",
    "@task(task_id='submit', retries=2)",
    "def run(ti=None):",
    `    job_id = ${pull}`,
    "    if job_id is None:",
    "        job_id = start()",
    "        ti.xcom_push(key='job_id', value=job_id)",
    "    wait(job_id)",
  ];

  test("pulls from the task itself are reported; from another task, another DAG or earlier runs they are not", () => {
    for (const pull of ["ti.xcom_pull(key='job_id')", "ti.xcom_pull(key='job_id', task_ids=None)", "ti.xcom_pull(key='job_id', task_ids='submit')", "ti.xcom_pull(None, None, 'job_id')"]) {
      assert.deepEqual(found(trip(pull)), ["AS403@4+7"], pull);
    }
    for (const pull of ["ti.xcom_pull(key='job_id', task_ids='other')", "ti.xcom_pull(key='job_id', dag_id='other')", "ti.xcom_pull(key='job_id', include_prior_dates=True)"]) {
      assert.deepEqual(found(trip(pull)), [], pull);
    }
  });

  test("keys that are not job ids, and a push without a pull, stay silent", () => {
    assert.deepEqual(found(trip("ti.xcom_pull(key='job_id')").map((l) => l.replace(/'job_id'/g, "'jobs'"))), []);
    assert.deepEqual(found(["from airflow.sdk import task", "@task", "def run(ti=None):", "    ti.xcom_push(key='job_id', value=start())"]), []);
  });

  test("the rewrite replaces pull and push with the task store", () => {
    const result = fixed(trip("ti.xcom_pull(key='job_id')"), "AS403");
    assert.match(result, /def run\(ti=None, task_state_store=None\):/);
    assert.match(result, /job_id = task_state_store\.get\('job_id'\)/);
    assert.match(result, /task_state_store\.set\('job_id', job_id\)/);
    assert.doesNotMatch(result, /xcom_/);
  });
});

describe("the generated ResumableJobMixin operator (AS404)", () => {
  const nested = [
    "from airflow.decorators import dag, task",
    "from airflow.models import Variable",
    "",
    "",
    "@dag(schedule=None)",
    "def nightly():",
    "    @task(retries=2)",
    "    def run_batch(table, **kwargs):",
    '        hook = BatchHook(conn_id="batch")',
    "        batch_id = Variable.get('batch_id', default_var=None)",
    "        if batch_id:",
    "            hook.wait(batch_id, kwargs['ti'].try_number)",
    "        else:",
    "            batch_id = hook.submit(table)",
    "            Variable.set('batch_id', batch_id)",
    "",
    "    run_batch('orders')",
    "",
    "",
    "nightly()",
  ];

  test("goes before the DAG, imports what it needs in one line, and turns the task's names into the class's", () => {
    const result = fixed(nested, "AS404");
    assert.match(result, /^from airflow\.models import Variable\nfrom airflow\.sdk import ResumableJobMixin, BaseOperator\n/m);
    assert.match(result, /\n\n\nclass RunBatchOperator\(ResumableJobMixin, BaseOperator\):\n/);
    assert.ok(result.indexOf("class RunBatchOperator") < result.indexOf("@dag(schedule=None)"));
    assert.match(result, /external_id_key = "batch_id"/);
    assert.match(result, /def __init__\(self, \*, table, \*\*kwargs\):\n {8}super\(\)\.__init__\(\*\*kwargs\)\n {8}self\.table = table/);
    // The local hook is assigned again where the copied calls need it.
    assert.match(result, /def submit_job\(self, context\):\n {8}hook = BatchHook\(conn_id="batch"\)\n {8}return hook\.submit\(self\.table\)/);
    assert.match(result, /def poll_until_complete\(self, external_id, context\) -> None:\n {8}hook = BatchHook\(conn_id="batch"\)\n {8}hook\.wait\(external_id, context\['ti'\]\.try_number\)/);
  });

  test("the generated class satisfies every ResumableJobMixin rule, and the reports go once it exists", () => {
    const result = fixed(nested, "AS404");
    const after = lint(new PythonDocument("file:///fixed.py", result), {});
    assert.deepEqual(after.map((d) => `${d.code}@${d.range.start.line + 1}`), []);
  });

  test("the hand-written code is left in place", () => {
    const result = fixed(nested, "AS404");
    assert.match(result, /Variable\.get\('batch_id', default_var=None\)/);
    assert.match(result, /Variable\.set\('batch_id', batch_id\)/);
  });

  test("a status comparison of the condition fills get_job_status and is_job_active", () => {
    const result = fixed(
      [
        "from airflow.sdk import BaseOperator, Variable",
        "class Op(BaseOperator):",
        "    def execute(self, context):",
        '        job_id = Variable.get("op_job_id", default=None)',
        '        if job_id and self.hook.get_state(job_id) == "RUNNING":',
        "            self.hook.wait(job_id)",
        "        else:",
        "            job_id = self.hook.submit()",
        '            Variable.set("op_job_id", job_id)',
      ],
      "AS404",
    );
    assert.match(result, /^from airflow\.sdk import BaseOperator, Variable, ResumableJobMixin$/m);
    assert.match(result, /class ResumableOp\(ResumableJobMixin, Op\):/);
    assert.match(result, /def get_job_status\(self, external_id, context\) -> str:\n {8}return self\.hook\.get_state\(external_id\)/);
    assert.match(result, /def is_job_active\(self, status\) -> bool:\n {8}return status == "RUNNING"/);
    assert.match(result, /def is_job_succeeded\(self, status\) -> bool:\n {8}# TODO: .*\n {8}raise NotImplementedError/);
  });

  test("a comparison with a module constant is kept; with a local of the task it is left to a TODO", () => {
    const operator = (setup: string, compared: string) => [
      "from airflow.sdk import BaseOperator, Variable",
      'ACTIVE = ("PENDING", "RUNNING")',
      "class Op(BaseOperator):",
      "    def execute(self, context):",
      `        ${setup}`,
      '        job_id = Variable.get("op_job_id", default=None)',
      `        if job_id and self.hook.status(job_id) in ${compared}:`,
      "            self.hook.wait(job_id)",
      "        else:",
      "            job_id = self.hook.submit()",
      '            Variable.set("op_job_id", job_id)',
    ];
    assert.match(fixed(operator("pass", "ACTIVE"), "AS404"), /def is_job_active\(self, status\) -> bool:\n {8}return status in ACTIVE\n/);
    assert.match(fixed(operator('active = ("RUNNING",)', "active"), "AS404"), /def is_job_active\(self, status\) -> bool:\n {8}# TODO/);
  });
});

describe("line endings", () => {
  test("every rewrite of the fixtures keeps a CRLF file CRLF (new parameters on lines of their own, generated classes)", () => {
    for (const code of RULES) {
      const fixture = (suffix: string) => fs.readFileSync(fromRoot("test", "rules", "fixtures", `${code}${suffix}`), "utf8").replace(/\n/g, "\r\n");
      const result = fixAll("file:///dag.py", fixture(".py"), { select: [code] }, true);
      assert.equal(result.text, fixture(".fixed.py"), code);
    }
  });
});

describe("example DAGs", () => {
  const read = (name: string) => fs.readFileSync(fromRoot("examples", "dags", name), "utf8");

  test("variables_before.py shows each of AS401–AS404", () => {
    const codes = new Set(lint(new PythonDocument("file:///variables_before.py", read("variables_before.py")), {}).map((d) => d.code));
    assert.deepEqual([...codes].sort(), RULES);
  });

  test("variables_after.py is silent under every rule", () => {
    assert.deepEqual(lint(new PythonDocument("file:///variables_after.py", read("variables_after.py")), {}).map((d) => `${d.code}: ${d.message}`), []);
  });
});
