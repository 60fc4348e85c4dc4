/**
 * The ResumableJobMixin rules (AS302–AS309) across modules, through a small fake workspace index:
 * which classes count as mixin operators when their bases live in other modules, which calls create
 * one, and what the rules do when a base cannot be seen. Also the helper's pieces that fixtures
 * cannot show: cycles and depth limits across modules, the DAG a call belongs to, and names.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { AnalysisContext, applyEdits, Diagnostic, ExternalClass, lint, PythonDocument, WorkspaceClasses } from "../../server/src/engine";
import { semanticModel } from "../../server/src/engine/airflow/model";
import { PROVIDER_OPERATORS, providerOperator, providerOperatorInfo, ResumableOperators, snakeCaseClassName } from "../../server/src/engine/airflow/resumableOperators";
import { fromRoot } from "../support/paths";
import { mayFallOffEnd } from "../../server/src/engine/python/controlFlow";

const MIXIN_METHODS = ["execute", "submit_job", "get_job_status", "is_job_active", "is_job_succeeded", "poll_until_complete", "get_job_result"];

function externalClass(qualifiedName: string, path: string, baseNames: (string | undefined)[], options: { methods?: string[]; strings?: Record<string, string> } = {}): ExternalClass {
  return { qualifiedName, path, baseNames, methods: new Set(options.methods ?? []), stringAttributes: new Map(Object.entries(options.strings ?? {})) };
}

/** A workspace index that knows the given classes by qualified name and records every question asked. */
class FakeWorkspace implements WorkspaceClasses {
  readonly asked: { name: string; from: string | undefined }[] = [];
  private readonly byName = new Map<string, ExternalClass>();

  constructor(classes: ExternalClass[]) {
    for (const cls of classes) this.byName.set(cls.qualifiedName, cls);
  }

  resolveClass(qualifiedName: string, fromPath: string | undefined): ExternalClass | undefined {
    this.asked.push({ name: qualifiedName, from: fromPath });
    return this.byName.get(qualifiedName);
  }
}

/**
 * include/base.py: the team's base, built on the mixin; include/operators.py: an operator on it
 * (imported base) and a variant of that operator (a base of the same module, written bare).
 */
function teamWorkspace(overrides: { baseStrings?: Record<string, string>; operatorMethods?: string[] } = {}): FakeWorkspace {
  return new FakeWorkspace([
    externalClass("include.base.BatchBase", "/repo/include/base.py", ["airflow.sdk.ResumableJobMixin", "airflow.sdk.BaseOperator"], {
      methods: ["execute", "get_job_status", "is_job_active", "is_job_succeeded"],
      strings: overrides.baseStrings,
    }),
    externalClass("include.operators.SparkBatch", "/repo/include/operators.py", ["include.base.BatchBase"], {
      methods: overrides.operatorMethods ?? ["submit_job", "poll_until_complete", "get_job_result"],
      strings: { external_id_key: "spark_batch_id" },
    }),
    externalClass("include.operators.NightlySpark", "/repo/include/operators.py", ["SparkBatch"], { methods: ["__init__"] }),
    externalClass("include.team.TeamOperator", "/repo/include/team.py", ["airflow.sdk.BaseOperator"], { methods: ["__init__"] }),
  ]);
}

const DAG_PATH = "/repo/dags/nightly.py";

function findings(text: string, workspace: WorkspaceClasses | undefined, select: string[] = ["AS3"], baselineText?: string): Diagnostic[] {
  return lint(new PythonDocument(`file://${DAG_PATH}`, text), { select, workspace, path: DAG_PATH, baselineText });
}

function codes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code}@${d.range.start.line + 1}`);
}

const header = ["from datetime import datetime, timezone", "", "from airflow.sdk import DAG, ResumableJobMixin, BaseOperator", ""];

describe("operators defined in other modules of the workspace", () => {
  const dag = [
    ...header,
    "from include.operators import NightlySpark",
    "",
    'with DAG(dag_id="nightly", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), default_args={"durable": False}):',
    '    NightlySpark(task_id="batch", retries=0, durable=False)',
  ].join("\n");

  test("a call to an imported mixin operator is checked for retries=0 and durable=False", () => {
    assert.deepEqual(codes(findings(dag, teamWorkspace())), ["AS307@7", "AS305@8", "AS307@8"]);
  });

  test("without a workspace index the imported class is unknown and only default_args speaks", () => {
    assert.deepEqual(codes(findings(dag, undefined)), ["AS307@7"]);
  });

  test("the chain is followed from the module that defines each class, bare names within that module; calls of functions are not looked up", () => {
    const workspace = teamWorkspace();
    findings(dag, workspace, ["AS305"]);
    assert.deepEqual(workspace.asked, [
      { name: "include.operators.NightlySpark", from: DAG_PATH },
      { name: "SparkBatch", from: "/repo/include/operators.py" },
      { name: "include.operators.SparkBatch", from: "/repo/include/operators.py" },
      { name: "include.base.BatchBase", from: "/repo/include/operators.py" },
    ]);
  });

  test("default_args retries=0 is reported when an imported mixin operator inherits it", () => {
    const text = [...header, "from include.operators import SparkBatch", "", 'with DAG(dag_id="nightly", schedule=None, default_args={"retries": 0}):', '    SparkBatch(task_id="batch")'].join("\n");
    assert.deepEqual(codes(findings(text, teamWorkspace(), ["AS305"])), ["AS305@7"]);
    assert.deepEqual(codes(findings(text, undefined, ["AS305"])), []);
  });
});

describe("local subclasses of workspace classes", () => {
  const subclass = (body: string[]) => [...header, "from include.operators import SparkBatch", "from include.base import BatchBase", "", ...body, "", 'with DAG(dag_id="nightly", schedule=None):', '    Nightly(task_id="nightly")'].join("\n");

  test("methods inherited across modules count for AS303, and the missing ones are listed", () => {
    const text = subclass(["class Nightly(BatchBase):", '    external_id_key = "nightly_id"', "", "    def submit_job(self, context):", "        return submit(context)"]);
    const [diagnostic, ...others] = findings(text, teamWorkspace(), ["AS303"]);
    assert.equal(others.length, 0);
    assert.match(diagnostic.message, /`poll_until_complete` and `get_job_result`/);
    assert.doesNotMatch(diagnostic.message, /get_job_status/);
    // The subclass of the complete SparkBatch implements everything through its bases.
    const complete = subclass(["class Nightly(SparkBatch):", '    external_id_key = "nightly_id"']);
    assert.deepEqual(findings(complete, teamWorkspace(), ["AS303"]), []);
  });

  test("a base the workspace does not know keeps AS303 and AS308 silent", () => {
    const text = subclass(["from vendor.operators import VendorMixin", "", "class Nightly(VendorMixin, BatchBase):", "    def submit_job(self, context):", "        return submit(context)"]);
    assert.deepEqual(findings(text, teamWorkspace(), ["AS303", "AS308"]), []);
  });

  test("AS308 reads the key a workspace base sets, and fires when none in the chain does", () => {
    const inheriting = subclass(["class Nightly(SparkBatch):", '    """Keeps SparkBatch\'s key."""']);
    assert.deepEqual(findings(inheriting, teamWorkspace(), ["AS308"]), []);
    const defaulted = subclass(["class Nightly(BatchBase):", '    """Stores under the default key."""', ...MIXIN_METHODS.slice(1).flatMap((m) => [`    def ${m}(self, *args):`, "        return args"])]);
    assert.deepEqual(codes(findings(defaulted, teamWorkspace(), ["AS308"])), ["AS308@8"]);
    assert.deepEqual(findings(defaulted, teamWorkspace({ baseStrings: { external_id_key: "team_batch_id" } }), ["AS308"]), []);
  });

  test("AS308 leaves classes of the committed version to AS301", () => {
    const defaulted = subclass(["class Nightly(BatchBase):", '    """Stores under the default key."""', ...MIXIN_METHODS.slice(1).flatMap((m) => [`    def ${m}(self, *args):`, "        return args"])]);
    assert.deepEqual(findings(defaulted, teamWorkspace(), ["AS308"], "class Nightly(BatchBase):\n    pass\n"), []);
    assert.deepEqual(codes(findings(defaulted, teamWorkspace(), ["AS308"], "class Daily(BatchBase):\n    pass\n")), ["AS308@8"]);
  });

  test("AS302 checks execute() of a class that is resumable only through another module", () => {
    const text = subclass(["class Nightly(SparkBatch):", '    external_id_key = "nightly_id"', "", "    def execute(self, context):", "        return self.submit_job(context)"]);
    assert.deepEqual(codes(findings(text, teamWorkspace(), ["AS302"])), ["AS302@11"]);
    assert.deepEqual(findings(text, undefined, ["AS302"]), []);
  });

  test("AS309 checks overrides of a class that is resumable only through another module", () => {
    const text = subclass(["class Nightly(SparkBatch):", '    external_id_key = "nightly_id"', "", "    def get_job_status(self, external_id):", '        return "RUNNING"']);
    const [diagnostic] = findings(text, teamWorkspace(), ["AS309"]);
    assert.equal(diagnostic.code, "AS309");
    assert.ok(diagnostic.fix?.safe);
    assert.match(applyEdits(text, diagnostic.fix.edits), /def get_job_status\(self, external_id, context\):/);
  });

  test("AS304 knows a workspace operator base, and its swap is unsafe", () => {
    const text = [...header, "from include.team import TeamOperator", "", "class Nightly(TeamOperator, ResumableJobMixin):", '    external_id_key = "nightly_id"'].join("\n");
    const [diagnostic, ...others] = findings(text, teamWorkspace(), ["AS304"]);
    assert.equal(others.length, 0);
    assert.equal(diagnostic.fix?.safe, false);
    assert.match(applyEdits(text, diagnostic.fix!.edits), /class Nightly\(ResumableJobMixin, TeamOperator\):/);
    // Unknown, TeamOperator could be any mixin: nothing to say.
    assert.deepEqual(findings(text, undefined, ["AS304"]), []);
  });
});

describe("the ResumableOperators helper", () => {
  const operatorCalls = (resumable: ResumableOperators) => resumable.model.calls.map((call) => resumable.operatorCall(call)).filter((c) => c !== undefined);

  /** The file's analysis context, as a lint of it at DAG_PATH would make it. */
  const contextOf = (text: string, workspace?: WorkspaceClasses) => new AnalysisContext({ text, workspace, path: DAG_PATH }, new PythonDocument(`file://${DAG_PATH}`, text).tree);
  /** The model and the resumable operators of one context. */
  const analyses = (text: string, workspace?: WorkspaceClasses) => {
    const context = contextOf(text, workspace);
    return { m: context.get(semanticModel), resumable: ResumableOperators.of(context) };
  };

  test("a cycle of bases across modules ends, and is not resumable", () => {
    const workspace = new FakeWorkspace([externalClass("pkg.a.A", "/repo/pkg/a.py", ["pkg.b.B"]), externalClass("pkg.b.B", "/repo/pkg/b.py", ["pkg.a.A"])]);
    const { m, resumable } = analyses("from pkg.a import A\n\nclass Local(A):\n    pass\n", workspace);
    const ancestry = resumable.ancestry(m.classes[0]);
    assert.equal(ancestry.resumable, false);
    assert.deepEqual(ancestry.ancestors.map((a) => (a.kind === "external" ? a.cls.qualifiedName : a.kind)), ["pkg.a.A", "pkg.b.B"]);
  });

  test("a chain deeper than the limit stops there and counts as incomplete", () => {
    const chain = Array.from({ length: 40 }, (_, i) => externalClass(`pkg.m${i}.C${i}`, `/repo/pkg/m${i}.py`, [i === 39 ? "airflow.sdk.ResumableJobMixin" : `pkg.m${i + 1}.C${i + 1}`]));
    const workspace = new FakeWorkspace(chain);
    const { m, resumable } = analyses("from pkg.m0 import C0\n\nclass Local(C0):\n    pass\n", workspace);
    const ancestry = resumable.ancestry(m.classes[0]);
    assert.equal(ancestry.complete, false);
    assert.ok(workspace.asked.length < 40, `asked ${workspace.asked.length} times`);
  });

  test("the mixin operators of a file are the classes whose ancestry is resumable, however their chains run", () => {
    const header = "from airflow.sdk import BaseOperator, ResumableJobMixin\nfrom pkg.m0 import C0\n";
    const chain = (order: number[]) => order.map((i) => `class S${i}(${i === 0 ? "ResumableJobMixin, BaseOperator" : `S${i - 1}`}):\n    pass\n`).join("");
    const indices = Array.from({ length: 40 }, (_, i) => i);
    const texts = [
      header + chain(indices),
      header + chain([...indices].reverse()),
      // A diamond, a cycle, an unknown base, a workspace base, a base met twice.
      header + "class A(ResumableJobMixin): pass\nclass B(A): pass\nclass C(A): pass\nclass D(B, C): pass\nclass X(Y): pass\nclass Y(X): pass\nclass U(unknown.Base): pass\nclass W(C0): pass\nclass T(D, D): pass\n",
    ];
    const workspace = new FakeWorkspace([externalClass("pkg.m0.C0", "/repo/pkg/m0.py", ["airflow.sdk.ResumableJobMixin"])]);
    for (const text of texts) {
      const { m, resumable } = analyses(text, workspace);
      const walked = analyses(text, workspace);
      const expected = walked.m.classes.filter((cls) => walked.resumable.ancestry(cls).resumable).map((cls) => cls.name);
      assert.deepEqual(resumable.classes.map((cls) => cls.name), expected);
      assert.ok(expected.length > 2, expected.join(", "));
      assert.equal(m.classes.length - expected.length > 2, true);
    }
    // A chain longer than the walk's depth: its first classes are mixin operators, those far below are not.
    const { resumable } = analyses(texts[0], workspace);
    assert.deepEqual(resumable.classes.map((cls) => cls.name), indices.slice(0, 17).map((i) => `S${i}`));
  });

  test("a shallower chain to the mixin is followed to its end", () => {
    const chain = Array.from({ length: 5 }, (_, i) => externalClass(`pkg.m${i}.C${i}`, `/repo/pkg/m${i}.py`, [i === 4 ? "airflow.sdk.ResumableJobMixin" : `pkg.m${i + 1}.C${i + 1}`]));
    const { m, resumable } = analyses("from pkg.m0 import C0\n\nclass Local(C0):\n    pass\n", new FakeWorkspace(chain));
    const ancestry = resumable.ancestry(m.classes[0]);
    assert.equal(ancestry.resumable, true);
    assert.equal(ancestry.complete, true);
  });

  test("provider operators are mixin operators by qualified name only", () => {
    const { resumable } = analyses(
      [
        "from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator",
        "from airflow.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator as Redshift",
        "from mycompany.operators import GlueJobOperator",
        "SnowflakeSqlApiOperator(task_id='a')",
        "Redshift(task_id='b')",
        "GlueJobOperator(task_id='c')",
      ].join("\n"),
    );
    const calls = operatorCalls(resumable);
    assert.deepEqual(
      calls.map((c) => c.call.node.text),
      ["SnowflakeSqlApiOperator(task_id='a')", "Redshift(task_id='b')"],
    );
  });

  test("the analysis is built once per context, and a context with a workspace has its own", () => {
    const text = "from include.operators import SparkBatch\nSparkBatch(task_id='x')\n";
    const context = contextOf(text);
    const first = ResumableOperators.of(context);
    assert.equal(ResumableOperators.of(context), first);
    const withWorkspace = ResumableOperators.of(contextOf(text, teamWorkspace()));
    assert.notEqual(withWorkspace, first);
    assert.equal(operatorCalls(first).length, 0);
    assert.equal(operatorCalls(withWorkspace).length, 1);
  });

  test("default_args come from the innermost enclosing DAG, `with` or `@dag`", () => {
    const { m, resumable } = analyses(
      [
        "from airflow.sdk import DAG, dag",
        "with DAG('outer', default_args={'retries': 1}) as outer:",
        "    first = op()",
        "    with DAG('inner', default_args={'retries': 2}):",
        "        second = op()",
        "@dag(default_args={'retries': 3})",
        "def decorated():",
        "    third = op()",
        "fourth = op()",
      ].join("\n"),
    );
    const defaults = m.calls.filter((c) => c.node.text === "op()").map((c) => resumable.defaultArgsOf(c.node)?.text);
    assert.deepEqual(defaults, ["{'retries': 1}", "{'retries': 2}", "{'retries': 3}", undefined]);
  });

  test("snake-case key names drop a trailing Operator", () => {
    assert.equal(snakeCaseClassName("SparkBatchOperator"), "spark_batch");
    assert.equal(snakeCaseClassName("HTTPBatchOperator"), "http_batch");
    assert.equal(snakeCaseClassName("S3ToRedshiftJob"), "s3_to_redshift_job");
    assert.equal(snakeCaseClassName("Operator"), "operator");
  });
});

describe("whether a body can fall off its end", () => {
  const body = (lines: string[]) => {
    const text = ["def submit_job(self, context):", ...lines.map((l) => `    ${l}`)].join("\n");
    return new PythonDocument("file:///x.py", text).tree.rootNode.namedChildren[0].childForFieldName("body");
  };

  test("return or raise on every path does not", () => {
    assert.equal(mayFallOffEnd(body(["return 1"])), false);
    assert.equal(mayFallOffEnd(body(["if a:", "    return 1", "else:", "    raise E"])), false);
    assert.equal(mayFallOffEnd(body(["try:", "    x()", "finally:", "    return 2"])), false);
    assert.equal(mayFallOffEnd(body(["raise E", "x = 1"])), false);
  });

  test("a branch without return does", () => {
    assert.equal(mayFallOffEnd(body(["x()"])), true);
    assert.equal(mayFallOffEnd(body(["if a:", "    return 1"])), true);
    assert.equal(mayFallOffEnd(body(["try:", "    return x()", "except E:", "    log()"])), true);
    assert.equal(mayFallOffEnd(body(["with c:", "    x()"])), true);
  });

  test("what cannot be told from the text counts as ending", () => {
    assert.equal(mayFallOffEnd(body(["for x in y:", "    return x"])), false);
    assert.equal(mayFallOffEnd(body(["self.fail('no job')"])), false);
    assert.equal(mayFallOffEnd(body(["response.raise_for_status()"])), true);
  });
});

describe("default_args of nested DAGs", () => {
  test("retries=0 of an outer DAG is not blamed on an inner DAG's operators", () => {
    const text = [
      "from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator",
      "from airflow.sdk import DAG",
      "with DAG('outer', default_args={'retries': 0}):",
      "    with DAG('inner', default_args={'retries': 2}):",
      "        SparkSubmitOperator(task_id='spark', application='a.py')",
    ].join("\n");
    assert.deepEqual(findings(text, undefined, ["AS305"]), []);
    const outer = text.replace("'retries': 2", "'owner': 'data'").replace("        Spark", "    SparkSubmitOperator(task_id='outer', application='b.py')\n        Spark");
    assert.deepEqual(codes(findings(outer, undefined, ["AS305"])), ["AS305@3"]);
  });
});

describe("the provider operators built on the mixin", () => {
  test("docs/provider-operators.md shows exactly the table the rules and the hover read", () => {
    const page = fs.readFileSync(fromRoot("docs", "provider-operators.md"), "utf8");
    const rows = [...page.matchAll(/^\| `(\w+)` \| `([\w.]+)` \| (?:`(\w+)` )?\|$/gm)].map(([, name, module, key]) => ({ name, module, externalIdKey: key }));
    const table = PROVIDER_OPERATORS.map(({ name, module, externalIdKey }) => ({ name, module, externalIdKey }));
    assert.deepEqual(rows, table);
  });

  test("every operator of the table counts as a mixin operator when imported from its provider, whatever the provider's re-export", () => {
    for (const operator of PROVIDER_OPERATORS) {
      assert.equal(providerOperatorInfo(`${operator.module}.${operator.name}`), operator);
      assert.equal(providerOperator(`airflow.providers.some.reexport.${operator.name}`), operator.name);
      assert.equal(providerOperator(`include.operators.${operator.name}`), undefined, `${operator.name} outside airflow.providers is someone else's class`);
    }
  });

  test("AS305 and AS307 name the key a provider operator stores its job id under", () => {
    const source = [
      "from airflow.providers.amazon.aws.operators.athena import AthenaOperator",
      "",
      'AthenaOperator(task_id="q", query="select 1", retries=0, durable=False)',
      "",
    ].join("\n");
    const messages = lint(new PythonDocument("file:///dag.py", source), { select: ["AS305", "AS307"] }).map((d) => `${d.code}: ${d.message}`);
    assert.equal(messages.length, 2);
    for (const message of messages) assert.match(message, /athena_query_execution_id/);
  });
});
