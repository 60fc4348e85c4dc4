/** A file that does not parse is a finding of its own in the CLI (AS001), never "All checks passed!". */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { lint, PythonDocument } from "../../server/src/engine";
import { makeTree, removeTrees, runCli } from "./harness";

after(removeTrees);

const BROKEN_DAG = `from airflow.sdk import dag


@dag(schedule=None)
def orders(:
    pass
`;

const MESSAGE = lint(new PythonDocument("file:///x.py", BROKEN_DAG))[0].message;

test("a DAG file that does not parse is reported as AS001 at the first place the parser cannot read; exit 1", () => {
  const root = makeTree({ "dags/orders.py": BROKEN_DAG, "dags/clean.py": "from airflow.sdk import dag\n" });
  const run = runCli([], root);
  assert.deepEqual(run, { status: 1, stdout: `dags/orders.py:5:12: AS001 ${MESSAGE}\nFound 1 problem (1 error).\n`, stderr: "" });
  assert.match(MESSAGE, /^Python cannot parse this file: importing it raises `SyntaxError`, so Airflow loads none of its DAGs\. `\)` is missing here\./);
});

test("--ignore AS001 checks the rest as before; a file that never names Airflow is not read, parsed or not", () => {
  const root = makeTree({ "dags/orders.py": BROKEN_DAG, "notes.py": "def broken(:\n" });
  assert.deepEqual(runCli(["--ignore", "AS001"], root), { status: 0, stdout: "All checks passed!\n", stderr: "" });
  assert.equal(runCli(["notes.py"], root).stdout, "All checks passed!\n");
});
