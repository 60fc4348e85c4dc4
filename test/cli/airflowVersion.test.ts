/**
 * The built CLI reads the Airflow version each checked file's project pins and passes it to the
 * rules: AS501 and AS502 report on examples/legacy-project (requirements.txt pins 2.10.5), and stay
 * silent without the pin file or under a pin of 3.3. The readers themselves are tested in
 * test/engine/airflowVersion.test.ts; this pins what the CLI adds: a pin per file, per project.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, describe, test } from "node:test";
import { fromRoot } from "../support/paths";
import { makeTree, removeTrees, runCli, Tree } from "./harness";

after(removeTrees);

interface JsonFinding {
  path: string;
  code: string;
  line: number;
  message: string;
}

const LEGACY_DAG = fs.readFileSync(fromRoot("examples", "legacy-project", "dags", "paged_export.py"), "utf8");

/** `code@path:line` of the AS5xx findings of a JSON run. */
function versionFindings(args: string[], cwd: string): string[] {
  const run = runCli(["--format", "json", ...args], cwd);
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}: ${run.stderr}`);
  assert.equal(run.stderr, "");
  return (JSON.parse(run.stdout) as JsonFinding[]).filter((f) => f.code.startsWith("AS5")).map((f) => `${f.code}@${f.path}:${f.line}`);
}

/** A copy of the legacy project; `.git` ends the search for a pin at the copy's root, whatever the temp folder's parents hold. */
function legacyCopy(extra: Tree = {}): string {
  return makeTree({ ".git/HEAD": "ref: refs/heads/main\n", "dags/paged_export.py": LEGACY_DAG, ...extra });
}

describe("CLI: the Airflow version a project pins", () => {
  test("examples/legacy-project: AS501 at the first store use and AS502 at durable=True, naming the pin", () => {
    // --no-cache: a run in the checkout itself would leave a cache folder there.
    const run = runCli(["--no-cache", "--format", "json", "examples/legacy-project"], fromRoot());
    assert.equal(run.status, 1, run.stderr);
    const findings = JSON.parse(run.stdout) as JsonFinding[];
    assert.deepEqual(
      findings.map((f) => `${f.code}@${f.line}`),
      ["AS501@22", "AS502@28"],
    );
    for (const finding of findings) {
      assert.equal(finding.path, "examples/legacy-project/dags/paged_export.py");
      assert.match(finding.message, /the project pins Airflow 2\.10\.5 \(\.\.\/requirements\.txt:2\)/);
    }
  });

  test("the same DAG without the pin file: silent", () => {
    const root = legacyCopy();
    assert.deepEqual(versionFindings(["."], root), []);
  });

  test("the same DAG with the pin file copied: reported", () => {
    const root = legacyCopy({ "requirements.txt": fs.readFileSync(fromRoot("examples", "legacy-project", "requirements.txt"), "utf8") });
    assert.deepEqual(versionFindings(["."], root), ["AS501@dags/paged_export.py:22", "AS502@dags/paged_export.py:28"]);
  });

  test("each file gets its own project's pin in one run", () => {
    const root = makeTree({
      ".git/HEAD": "ref: refs/heads/main\n",
      "old/requirements.txt": "apache-airflow==2.10.5\n",
      "old/dags/export.py": LEGACY_DAG,
      "new/pyproject.toml": '[project]\nname = "new"\ndependencies = ["apache-airflow==3.3.0"]\n',
      "new/dags/export.py": LEGACY_DAG,
      "unpinned/dags/export.py": LEGACY_DAG,
    });
    assert.deepEqual(versionFindings(["."], root), ["AS501@old/dags/export.py:22", "AS502@old/dags/export.py:28"]);
  });

  test("a Dockerfile's Airflow image pins the version too", () => {
    const root = legacyCopy({ Dockerfile: "FROM apache/airflow:2.9.3-python3.11\n" });
    const run = runCli(["--format", "json", "--select", "AS501", "."], root);
    const [finding] = JSON.parse(run.stdout) as JsonFinding[];
    assert.match(finding.message, /the project pins Airflow 2\.9\.3 \(\.\.\/Dockerfile:1\)/);
  });
});
