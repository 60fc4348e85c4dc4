/**
 * The workspace index on real folders: module names from roots, sibling modules of a DAG's folder,
 * relative imports, re-exports through `__init__.py`, incremental updates, cycles, lazy loading, and
 * the record of what a resolution consulted.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { Consulted, WorkspaceIndex } from "../../server/src/engine";
import { summarizeText } from "../../server/src/engine/workspace/summary";

const temporary: string[] = [];
after(() => {
  for (const folder of temporary) fs.rmSync(folder, { recursive: true, force: true });
});

type Files = Record<string, string>;

/** A temporary folder holding `files`; answers its path. */
function workspace(files: Files): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "workspace-index-")));
  temporary.push(root);
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return root;
}

/** An index of every file of `root`, as the language server builds it. */
function indexed(root: string, files: Files, roots = [root]): WorkspaceIndex {
  const index = new WorkspaceIndex({ roots });
  for (const [relative, text] of Object.entries(files)) index.update(path.join(root, relative), text);
  return index;
}

const MIXIN_OPERATOR = `from airflow.sdk import BaseOperator, ResumableJobMixin

SPARK_KEY = "spark_job_id"


class SparkOp(ResumableJobMixin, BaseOperator):
    external_id_key = SPARK_KEY
    durable = True
    retries = 3

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return "id"
`;

const DAG = `from airflow.sdk import DAG
from include.operators import SparkOp

with DAG("etl"):
    SparkOp(task_id="x")
`;

describe("absolute imports from a workspace root", () => {
  const files: Files = { "include/__init__.py": "", "include/operators.py": MIXIN_OPERATOR, "dags/etl.py": DAG };
  const root = workspace(files);
  const index = indexed(root, files);
  const dag = path.join(root, "dags", "etl.py");

  test("a class resolves with its bases, string attributes and methods", () => {
    const cls = index.resolveClass("include.operators.SparkOp", dag);
    assert.ok(cls);
    assert.equal(cls.qualifiedName, "include.operators.SparkOp");
    assert.equal(cls.path, path.join(root, "include", "operators.py"));
    assert.deepEqual(cls.baseNames, ["airflow.sdk.ResumableJobMixin", "airflow.sdk.BaseOperator"]);
    assert.deepEqual([...cls.stringAttributes], [["external_id_key", "spark_job_id"]], "a constant bound once counts; non-strings do not");
    assert.deepEqual([...cls.methods].sort(), ["execute", "submit_job"]);
  });

  test("names that are not classes of the workspace are unknown", () => {
    assert.equal(index.resolveClass("include.operators.SPARK_KEY", dag), undefined);
    assert.equal(index.resolveClass("include.operators.Missing", dag), undefined);
    assert.equal(index.resolveClass("include.missing.SparkOp", dag), undefined);
    assert.equal(index.resolveClass("airflow.sdk.BaseOperator", dag), undefined);
    assert.equal(index.resolveClass("", dag), undefined);
    assert.equal(index.resolveClass("...", dag), undefined);
  });

  test("a module without __init__.py is found as a namespace package", () => {
    const files: Files = { "include/operators.py": MIXIN_OPERATOR };
    const root = workspace(files);
    assert.ok(indexed(root, files).resolveClass("include.operators.SparkOp", undefined));
  });
});

describe("sibling modules of the importing file's folder", () => {
  const files: Files = { "dags/operators.py": MIXIN_OPERATOR, "dags/etl.py": "from operators import SparkOp\n", "dags/team/etl2.py": "from operators import SparkOp\n" };
  const root = workspace(files);
  const index = indexed(root, files);

  test("a sibling module resolves, as Airflow puts the DAG folder on sys.path", () => {
    const cls = index.resolveClass("operators.SparkOp", path.join(root, "dags", "etl.py"));
    assert.equal(cls?.path, path.join(root, "dags", "operators.py"));
  });

  test("so does a module of an ancestor folder up to the workspace root", () => {
    assert.equal(index.resolveClass("operators.SparkOp", path.join(root, "dags", "team", "etl2.py"))?.path, path.join(root, "dags", "operators.py"));
    assert.equal(index.resolveClass("dags.operators.SparkOp", path.join(root, "dags", "team", "etl2.py"))?.path, path.join(root, "dags", "operators.py"));
  });

  test("a module beside another folder is not found from a folder that is not a DAG folder", () => {
    const files: Files = { "dags/operators.py": MIXIN_OPERATOR, "include/helpers.py": "x = 1\n" };
    const root = workspace(files);
    assert.equal(indexed(root, files).resolveClass("operators.SparkOp", path.join(root, "include", "helpers.py")), undefined);
  });

  test("every folder holding a DAG file is an import root for the other modules", () => {
    const files: Files = {
      "dags/helpers.py": MIXIN_OPERATOR,
      "dags/etl.py": "from airflow.sdk import dag\n",
      "include/operators.py": "from helpers import SparkOp\n",
    };
    const root = workspace(files);
    const index = indexed(root, files);
    assert.equal(index.resolveClass("helpers.SparkOp", path.join(root, "include", "operators.py"))?.path, path.join(root, "dags", "helpers.py"));
    // Once the folder holds no DAG file, it is not searched any more.
    const generation = index.rootsGeneration;
    index.update(path.join(root, "dags", "etl.py"), "x = 1\n");
    assert.notEqual(index.rootsGeneration, generation);
    assert.equal(index.resolveClass("helpers.SparkOp", path.join(root, "include", "operators.py")), undefined);
  });

  test("the plugins folder of a workspace root is searched", () => {
    const files: Files = { "plugins/my_operators.py": MIXIN_OPERATOR };
    const root = workspace(files);
    assert.ok(indexed(root, files).resolveClass("my_operators.SparkOp", path.join(root, "dags", "etl.py")));
  });
});

describe("relative imports", () => {
  const files: Files = {
    "include/__init__.py": "",
    "include/operators.py": MIXIN_OPERATOR,
    "include/dags/__init__.py": "",
    "include/dags/etl.py": "from ..operators import SparkOp\n",
    "include/etl.py": "from .operators import SparkOp\n",
  };
  const root = workspace(files);
  const index = indexed(root, files);

  test("one dot is the importing module's package", () => {
    assert.equal(index.resolveClass(".operators.SparkOp", path.join(root, "include", "etl.py"))?.qualifiedName, "include.operators.SparkOp");
  });

  test("each further dot is a parent package", () => {
    assert.equal(index.resolveClass("..operators.SparkOp", path.join(root, "include", "dags", "etl.py"))?.path, path.join(root, "include", "operators.py"));
  });

  test("from __init__.py, one dot is the package itself", () => {
    assert.ok(index.resolveClass(".operators.SparkOp", path.join(root, "include", "__init__.py")));
  });

  test("without the importing file's path, a relative name is unknown", () => {
    assert.equal(index.resolveClass(".operators.SparkOp", undefined), undefined);
  });

  test("a bare name is a class of the importing module itself", () => {
    const cls = index.resolveClass("SparkOp", path.join(root, "include", "operators.py"));
    assert.equal(cls?.qualifiedName, "include.operators.SparkOp");
  });
});

describe("re-exports", () => {
  const files: Files = {
    "include/__init__.py": "from .operators.spark import SparkOp as Spark\nfrom .operators import *\n",
    "include/operators/__init__.py": "from .spark import *\n",
    "include/operators/spark.py": MIXIN_OPERATOR,
    "include/aliases.py": "from include import Spark as Renamed\nimport include.operators.spark as spark_module\n",
  };
  const root = workspace(files);
  const index = indexed(root, files);
  const from = path.join(root, "dags", "etl.py");

  test("a name imported into __init__.py resolves to the class it imports", () => {
    const cls = index.resolveClass("include.Spark", from);
    assert.equal(cls?.path, path.join(root, "include", "operators", "spark.py"));
    assert.equal(cls?.qualifiedName, "include.operators.spark.SparkOp");
  });

  test("star imports are followed, through several packages", () => {
    assert.equal(index.resolveClass("include.operators.SparkOp", from)?.path, path.join(root, "include", "operators", "spark.py"));
    assert.equal(index.resolveClass("include.SparkOp", from)?.path, path.join(root, "include", "operators", "spark.py"));
  });

  test("a re-export of a re-export, and a module alias", () => {
    assert.ok(index.resolveClass("include.aliases.Renamed", from));
    assert.ok(index.resolveClass("include.aliases.spark_module.SparkOp", from));
  });

  test("a chain longer than the hop limit is not followed", () => {
    const files: Files = {};
    for (let i = 0; i < 30; i++) files[`chain/m${i}.py`] = `from chain.m${i + 1} import Op\n`;
    files["chain/m30.py"] = "class Op(Base):\n    pass\n";
    const root = workspace(files);
    const index = indexed(root, files);
    assert.ok(index.resolveClass("chain.m25.Op", undefined), "a short chain resolves");
    assert.equal(index.resolveClass("chain.m0.Op", undefined), undefined);
  });
});

describe("cycles", () => {
  test("modules that re-export from each other end without an answer", () => {
    const files: Files = { "a.py": "from b import Op\n", "b.py": "from a import Op\n", "c.py": "from c import *\n" };
    const root = workspace(files);
    const index = indexed(root, files);
    assert.equal(index.resolveClass("a.Op", undefined), undefined);
    assert.equal(index.resolveClass("c.Op", undefined), undefined);
  });

  test("classes whose bases form a cycle across modules each resolve once", () => {
    const files: Files = { "a.py": "from b import B\n\nclass A(B):\n    pass\n", "b.py": "from a import A\n\nclass B(A):\n    pass\n" };
    const root = workspace(files);
    const index = indexed(root, files);
    const a = index.resolveClass("a.A", undefined);
    assert.deepEqual(a?.baseNames, ["b.B"]);
    const b = index.resolveClass(a!.baseNames[0]!, a!.path);
    assert.deepEqual(b?.baseNames, ["a.A"]);
  });
});

describe("incremental updates", () => {
  const files: Files = { "include/operators.py": MIXIN_OPERATOR };
  const root = workspace(files);
  const operators = path.join(root, "include", "operators.py");

  test("update reports whether what the index knows changed", () => {
    const index = indexed(root, files);
    assert.equal(index.update(operators, MIXIN_OPERATOR.replace('"id"', '"other id"')), false, "an edit inside a method changes nothing");
    assert.equal(index.update(operators, MIXIN_OPERATOR.replace("(ResumableJobMixin, BaseOperator)", "(BaseOperator)")), true);
    assert.deepEqual(index.resolveClass("include.operators.SparkOp", undefined)?.baseNames, ["airflow.sdk.BaseOperator"]);
  });

  test("a new file is found, a removed one is gone", () => {
    const index = new WorkspaceIndex({ roots: [root] });
    assert.equal(index.resolveClass("include.operators.SparkOp", undefined), undefined);
    assert.equal(index.update(operators, MIXIN_OPERATOR), true);
    assert.ok(index.resolveClass("include.operators.SparkOp", undefined));
    assert.deepEqual(index.remove(operators), [operators]);
    assert.equal(index.resolveClass("include.operators.SparkOp", undefined), undefined);
    assert.deepEqual(index.remove(operators), []);
  });

  test("removing a folder removes the files below it", () => {
    const index = indexed(root, files);
    assert.deepEqual(index.remove(path.join(root, "include")), [operators]);
    assert.equal(index.size, 0);
  });

  test("a file that does not parse keeps the classes it still defines, and never throws", () => {
    const index = indexed(root, files);
    index.update(operators, MIXIN_OPERATOR + "\ndef broken(:\n");
    assert.ok(index.resolveClass("include.operators.SparkOp", undefined));
    assert.equal(index.update(path.join(root, "x.py"), "\u0000\uFFFF class ( import"), true);
  });

  test("a class defined twice at module level is unknown", () => {
    const index = new WorkspaceIndex({ roots: [root] });
    index.update(operators, "try:\n    from fast import Op\nexcept ImportError:\n    class Op(Base):\n        pass\n\nclass Twice:\n    pass\n\nclass Twice:\n    pass\n");
    assert.equal(index.resolveClass("include.operators.Op", undefined), undefined);
    assert.equal(index.resolveClass("include.operators.Twice", undefined), undefined);
  });
});

describe("lazy loading and what a resolution consulted", () => {
  test("a loader reads the modules a resolution needs, each once", () => {
    const files: Files = { "include/__init__.py": "from .operators import SparkOp\n", "include/operators.py": MIXIN_OPERATOR, "include/unused.py": MIXIN_OPERATOR };
    const root = workspace(files);
    const reads: string[] = [];
    const index = new WorkspaceIndex({
      roots: [root],
      load: (file) => {
        reads.push(path.relative(root, file));
        return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
      },
    });
    assert.ok(index.resolveClass("include.SparkOp", path.join(root, "dags", "etl.py")));
    assert.ok(index.resolveClass("include.SparkOp", path.join(root, "dags", "etl.py")));
    assert.equal(new Set(reads).size, reads.length, `read more than once: ${reads.join(", ")}`);
    assert.ok(reads.includes(path.join("include", "operators.py")));
    assert.ok(!reads.includes(path.join("include", "unused.py")));
  });

  test("the recording view names every file looked at or for", () => {
    const files: Files = { "include/__init__.py": "from .operators import SparkOp\n", "include/operators.py": MIXIN_OPERATOR };
    const root = workspace(files);
    const index = indexed(root, files);
    const consulted: Consulted = new Set();
    assert.ok(index.recording(consulted).resolveClass("include.SparkOp", path.join(root, "dags", "etl.py")));
    assert.ok(consulted.has(path.join(root, "include", "__init__.py")));
    assert.ok(consulted.has(path.join(root, "include", "operators.py")));
    // The module it looked for first and did not find: creating it would change the answer.
    assert.ok(consulted.has(path.join(root, "dags", "include.py")));
    // A repeated question is answered from the cache, and still records what the answer rests on.
    const again: Consulted = new Set();
    assert.ok(index.recording(again).resolveClass("include.SparkOp", path.join(root, "dags", "etl.py")));
    assert.deepEqual([...again].sort(), [...consulted].sort());
  });

  test("a cached answer is dropped when a file it rests on changes", () => {
    const files: Files = { "include/__init__.py": "from .operators import SparkOp\n", "include/operators.py": MIXIN_OPERATOR };
    const root = workspace(files);
    const index = indexed(root, files);
    const from = path.join(root, "dags", "etl.py");
    assert.equal(index.resolveClass("include.SparkOp", from)?.baseNames.length, 2);
    index.update(path.join(root, "include", "operators.py"), MIXIN_OPERATOR.replace("(ResumableJobMixin, BaseOperator)", "(BaseOperator)"));
    assert.equal(index.resolveClass("include.SparkOp", from)?.baseNames.length, 1);
    index.update(path.join(root, "dags", "include.py"), "class SparkOp:\n    pass\n");
    assert.equal(index.resolveClass("include.SparkOp", from)?.path, path.join(root, "dags", "include.py"), "a module nearer the importing file now comes first");
  });
});

describe("a module's summary", () => {
  test("string attributes of a class body, however assigned there, and only there", () => {
    const summary = summarizeText(
      [
        "from airflow.sdk import BaseOperator",
        "import os.path as p",
        "KEY = 'module'",
        "class Op(BaseOperator):",
        "    external_id_key = 'job_id'",
        "    typed: str = 'typed'",
        "    twice = 'one'",
        "    twice = 'two'",
        "    if p.exists('x'):",
        "        guarded = 'guarded'",
        "    def execute(self, context):",
        "        local = 'not an attribute'",
        "",
      ].join("\n"),
    );
    const cls = summary.classes.get("Op")!;
    assert.deepEqual([...cls.stringAttributes].sort(), [["external_id_key", "job_id"], ["guarded", "guarded"], ["typed", "typed"]]);
    assert.deepEqual([...summary.imports].sort(), [["BaseOperator", "airflow.sdk.BaseOperator"], ["p", "os.path"]]);
  });
});
