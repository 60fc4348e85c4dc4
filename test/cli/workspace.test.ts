/**
 * The CLI across modules: the checked files' imports are followed into the same tree, so AS305
 * (`retries=0` on a ResumableJobMixin operator) sees operator classes defined in other modules.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { git, resumableOperator } from "../support/git";
import { makeTree, removeTrees, runCli } from "./harness";

after(removeTrees);

const OPERATORS = resumableOperator("SparkOp", "spark_job_id");

const dagUsing = (importLine: string, className = "SparkOp") => `from airflow.sdk import DAG
${importLine}

with DAG("etl"):
    ${className}(task_id="x", retries=0)
`;

/** `CODE@path:line` of each JSON finding. */
function findings(args: string[], cwd: string): string[] {
  const run = runCli(["--format", "json", "--select", "AS305", ...args], cwd);
  assert.equal(run.stderr, "");
  return (JSON.parse(run.stdout) as { code: string; path: string; line: number }[]).map((f) => `${f.code}@${f.path}:${f.line}`);
}

describe("CLI: operator classes of other modules", () => {
  test("a class imported from include/ (the project root's package)", () => {
    const root = makeTree({ "include/__init__.py": "", "include/operators.py": OPERATORS, "dags/etl.py": dagUsing("from include.operators import SparkOp") });
    assert.deepEqual(findings(["dags"], root), ["AS305@dags/etl.py:5"]);
    assert.deepEqual(findings([path.join("dags", "etl.py")], root), ["AS305@dags/etl.py:5"], "only the DAG file is given; its import is still followed");
  });

  test("run from the DAG folder, the project root is the git top level", () => {
    const root = makeTree({ "include/operators.py": OPERATORS, "dags/etl.py": dagUsing("from include.operators import SparkOp") });
    git(root, "init", "-q");
    assert.deepEqual(findings(["etl.py"], path.join(root, "dags")), ["AS305@etl.py:5"]);
  });

  test("a sibling module of the DAG's folder", () => {
    const root = makeTree({ "dags/helpers.py": OPERATORS, "dags/team/etl.py": dagUsing("from helpers import SparkOp") });
    assert.deepEqual(findings(["dags/team"], root), ["AS305@dags/team/etl.py:5"]);
  });

  test("relative imports, re-exports through __init__.py and star imports", () => {
    const root = makeTree({
      "dags/__init__.py": "",
      "dags/ops/__init__.py": "from .spark import SparkOp as Spark\n",
      "dags/ops/spark.py": OPERATORS,
      "dags/relative.py": dagUsing("from .ops.spark import SparkOp"),
      "dags/reexport.py": dagUsing("from dags.ops import Spark", "Spark"),
      "dags/star.py": dagUsing("from dags.ops.spark import *"),
    });
    assert.deepEqual(findings(["dags"], root), ["AS305@dags/reexport.py:5", "AS305@dags/relative.py:5", "AS305@dags/star.py:5"]);
  });

  test("a subclass in another module of a mixin operator in a third one", () => {
    const root = makeTree({
      "include/base.py": OPERATORS,
      "include/operators.py": "from include.base import SparkOp\n\n\nclass TunedSparkOp(SparkOp):\n    pass\n",
      "dags/etl.py": dagUsing("from include.operators import TunedSparkOp", "TunedSparkOp"),
    });
    assert.deepEqual(findings(["dags"], root), ["AS305@dags/etl.py:5"]);
  });

  test("silent when the imported class is not a mixin operator, or the module is not in the tree", () => {
    const root = makeTree({
      "include/operators.py": OPERATORS.replace("class SparkOp(ResumableJobMixin, BaseOperator):", "class SparkOp(BaseOperator):"),
      "dags/etl.py": dagUsing("from include.operators import SparkOp"),
      "dags/elsewhere.py": dagUsing("from somewhere_else.operators import SparkOp"),
    });
    assert.deepEqual(findings(["dags"], root), []);
  });
});
