/**
 * Regular expressions over file text must not backtrack: a regular expression that tries a run of
 * white space at every position of a long line is quadratic, so one line of a million spaces in a
 * project file or a DAG file would hold up the CLI, and in the language server every other file
 * waiting for the lint worker, for hours. Each pattern that reads project files or DAG files meets
 * a 1,000,000-character line made for it here, and the answer must still be right. (tree-sitter
 * itself is quadratic in a run of consecutive empty line continuations, so those runs are given to
 * the text tests directly, not to a lint.) The test
 * runner's timeout is the only time bound (a linear pattern takes milliseconds on these inputs, a
 * quadratic one hours).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { allRules, Diagnostic, lint, PythonDocument } from "../../server/src/engine";
import { AirflowPin, AirflowVersionResolver, ProjectFiles } from "../../server/src/engine/project";
import { parsePoetryConstraint, parseSpecifierSet } from "../../server/src/engine/project/pep440";
import { snakeCaseClassName } from "../../server/src/engine/airflow/resumableOperators";
import { gateInputs, mentionsStore } from "../../server/src/engine/rules/textGates";

const MILLION = 1_000_000;
const spaces = " ".repeat(MILLION);

/** The pin for `/repo/dags/dag.py` in a repository made of `files` (paths relative to /repo). */
function pinIn(files: Record<string, string>): AirflowPin | undefined {
  const absolute: Record<string, string> = { "/repo/.git/HEAD": "ref: refs/heads/main\n", "/repo/dags/dag.py": "" };
  for (const [name, text] of Object.entries(files)) absolute[`/repo/${name}`] = text;
  const memory: ProjectFiles = {
    readFile: (file) => absolute[file],
    listDir(folder) {
      const prefix = folder.endsWith("/") ? folder : folder + "/";
      const names = new Set(Object.keys(absolute).filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length).split("/")[0]));
      return names.size > 0 ? [...names] : undefined;
    },
  };
  return new AirflowVersionResolver(memory).pinFor("/repo/dags/dag.py");
}

const versionOf = (files: Record<string, string>) => pinIn(files)?.version;

function lintWithoutErrors(text: string): Diagnostic[] {
  const errors: string[] = [];
  const diagnostics = lint(new PythonDocument("file:///long.py", text), { onRuleError: (rule, error) => errors.push(`${rule.code}: ${String(error)}`) });
  assert.deepEqual(errors, []);
  return diagnostics;
}

const codesOf = (diagnostics: Diagnostic[]) => [...new Set(diagnostics.map((d) => d.code))].sort();

describe("project files with a 1,000,000-character line", { timeout: 120_000 }, () => {
  test("setup.cfg: a key followed by spaces and no `=`, and a pin after a million spaces", () => {
    assert.equal(versionOf({ "setup.cfg": `[options]\ninstall_requires${spaces}x\n` }), undefined);
    assert.equal(versionOf({ "setup.cfg": `[options]\ninstall_requires${spaces}=${spaces}apache-airflow==2.10.5\n` }), "2.10.5");
    assert.equal(versionOf({ "setup.cfg": `[options]\ninstall_requires =\n${spaces}apache-airflow${spaces}==2.10.5${spaces}\n` }), "2.10.5");
    assert.equal(versionOf({ "setup.cfg": `[${"a".repeat(MILLION)}\n[options]\ninstall_requires = apache-airflow==2.10.5\n` }), "2.10.5");
  });

  test("requirements.txt: spaces before an option, a comment or nothing", () => {
    assert.equal(versionOf({ "requirements.txt": `apache-airflow==2.10.5${spaces}x\n` }), undefined);
    assert.equal(versionOf({ "requirements.txt": `apache-airflow==2.10.5${spaces}--hash=sha256:0\n` }), "2.10.5");
    assert.equal(versionOf({ "requirements.txt": `apache-airflow==2.10.5${" \t".repeat(MILLION / 2)}# a comment\n` }), "2.10.5");
    assert.equal(versionOf({ "requirements.txt": `apache-airflow==2.10.5\n${"-".repeat(MILLION)}\n${" #".repeat(MILLION / 2)}\r\n` }), "2.10.5");
    assert.equal(versionOf({ "requirements.txt": `-r${spaces}\napache-airflow==2.10.5 \\\n${" \\\n".repeat(MILLION / 3)}\n` }), "2.10.5");
    assert.equal(pinIn({ "requirements.txt": `apache-airflow${spaces}==${spaces}2.10.5${spaces},${spaces}<3\n` })?.below33, true);
  });

  test("constraints: the official URL after a long path", () => {
    const url = `-c https://raw.githubusercontent.com/${"apache/airflow/".repeat(MILLION / 15)}constraints-2.10.5/constraints-3.11.txt`;
    assert.equal(versionOf({ "requirements.txt": `${url}\n` }), "2.10.5");
  });

  test("Dockerfile: spaces after the instruction, long ARG and variable references", () => {
    assert.equal(versionOf({ Dockerfile: `FROM${spaces}\r\nFROM apache/airflow:2.10.5\n` }), "2.10.5");
    assert.equal(versionOf({ Dockerfile: `ARG${spaces}${"A=1 ".repeat(MILLION / 4)}\nFROM apache/airflow:2.10.5\n` }), "2.10.5");
    assert.equal(versionOf({ Dockerfile: `FROM apache/airflow:${"${".repeat(MILLION / 2)}\nFROM apache/airflow:2.10.5\n` }), "2.10.5");
    assert.equal(versionOf({ Dockerfile: `FROM apache/airflow:${"$a".repeat(MILLION / 2)}\nFROM apache/airflow:2.10.5\n` }), "2.10.5");
    assert.equal(versionOf({ Dockerfile: `${" \\\n".repeat(MILLION / 3)}FROM apache/airflow:2.10.5\n` }), "2.10.5");
  });

  test("pyproject.toml: PEP 621 dependencies and a Poetry constraint padded with spaces", () => {
    assert.equal(versionOf({ "pyproject.toml": `[project]\ndependencies = ["apache-airflow${spaces}==2.10.5"]\n` }), "2.10.5");
    assert.equal(versionOf({ "pyproject.toml": `[tool.poetry.dependencies]\napache-airflow = "==2.10.5${spaces},${spaces}"\n` }), "2.10.5");
    assert.equal(versionOf({ "pyproject.toml": `[project]\ndependencies = ["apache-airflow==2.10.5"]\n#${spaces}x\nname = "${"\\\\".repeat(MILLION / 2)}"\n` }), "2.10.5");
  });

  test("setup.py: a requirement padded with spaces", () => {
    assert.equal(versionOf({ "setup.py": `from setuptools import setup\nsetup(install_requires=["apache-airflow${spaces}==2.10.5"])\n` }), "2.10.5");
  });

  test("specifiers and Poetry constraints made of spaces and commas", () => {
    assert.equal(parseSpecifierSet(`==2.10.5${spaces},${spaces}<3`) !== undefined, true);
    assert.equal(parsePoetryConstraint(`>=2.0${spaces},${spaces}<3`) !== undefined, true);
    assert.equal(parsePoetryConstraint(`>=2.0${" ".repeat(MILLION)}x`), undefined);
  });
});

describe("DAG files with a 1,000,000-character line", { timeout: 120_000 }, () => {
  const header = "from datetime import datetime\nfrom airflow.sdk import BaseOperator, task\nfrom airflow.providers.common.resumable import ResumableJobMixin\n";
  const storing = (line: string) => `${header}@task(retries=0)\ndef load(task_state_store=None):\n    ${line}\n    task_state_store.set("k", datetime.now())\n`;

  test("every rule's text test, on runs of the characters its patterns repeat", () => {
    const paddings = [spaces, "#".repeat(MILLION), `#${spaces}`, "\\".repeat(MILLION), "\\\n".repeat(MILLION / 2), " \\\r".repeat(MILLION / 3), "_".repeat(MILLION), "0".repeat(MILLION)];
    const texts = paddings.flatMap((padding) => [
      `'task_'${padding}x`,
      `'asset_'${padding}`,
      `retries${padding}x`,
      `retries=${padding}3`,
      `retries=0${padding}.`,
      "retries#".repeat(MILLION / 8),
      `${header}${padding}`,
    ]);
    for (const rule of allRules) {
      if (!rule.mayReport) continue;
      for (const text of texts) rule.mayReport(gateInputs({ text }));
    }
    // Still sound on the forms the long ones stand in for.
    const as305 = allRules.find((rule) => rule.code === "AS305")!;
    assert.equal(as305.mayReport!(gateInputs({ text: `retries=${spaces}0` })), true);
    assert.equal(as305.mayReport!(gateInputs({ text: `retries=${"#".repeat(MILLION)}\n0` })), true);
    assert.equal(as305.mayReport!(gateInputs({ text: `retries=${spaces}3` })), false);
    assert.equal(mentionsStore(`context['task_'${"#".repeat(MILLION)}\n'state_store']`), true);
    assert.equal(mentionsStore(`'task_'${"#".repeat(MILLION)}`), true);
    assert.equal(mentionsStore(`f('task_')${spaces}`), false);
  });

  test("`retries` followed by spaces, comments or backslashes", () => {
    for (const padding of [spaces, `#${spaces}`, "\\".repeat(MILLION)]) {
      assert.ok(codesOf(lintWithoutErrors(storing(`retries${padding}`))).includes("AS101"));
    }
  });

  test("long comments, strings and keys", () => {
    assert.deepEqual(codesOf(lintWithoutErrors(storing(`x = "${"\\".repeat(MILLION)}"  # ${"AS101 ".repeat(MILLION / 6)}`))), ["AS101"]);
    assert.deepEqual(codesOf(lintWithoutErrors(storing(`task_state_store.set("${"a.".repeat(MILLION / 2)}", 1)`))), ["AS101", "AS105"]);
    assert.deepEqual(codesOf(lintWithoutErrors(storing(`x = context["task_state" ${spaces}]; y = context[${spaces}"asset_store"]`))), ["AS101"]);
  });

  test("a store bound to a name of a million letters", () => {
    const name = "a".repeat(MILLION);
    assert.deepEqual(codesOf(lintWithoutErrors(storing(`${name} = task_state_store; ${name}.set("k", datetime.now())`))), ["AS101"]);
  });

  test("a class name of a million capitals becomes a snake-case name", () => {
    assert.equal(snakeCaseClassName(`${"A".repeat(MILLION)}Operator`), "a".repeat(MILLION));
    assert.equal(snakeCaseClassName(`${"A".repeat(MILLION)}Batch`), `${"a".repeat(MILLION)}_batch`);
    assert.equal(snakeCaseClassName("HTTPSparkBatchOperator"), "http_spark_batch");
    const text = `${header}class ${"A".repeat(MILLION)}(ResumableJobMixin, BaseOperator):\n    def submit_job(self, context):\n        return 1\n`;
    assert.ok(codesOf(lintWithoutErrors(text)).includes("AS303"));
  });

  test("a call spread over a million blank characters", () => {
    const text = `${header}class Spark(ResumableJobMixin, BaseOperator):\n    pass\n\n\nSpark(task_id="x",${spaces}retries=0${" \n ".repeat(MILLION / 3)})\n`;
    assert.ok(codesOf(lintWithoutErrors(text)).includes("AS305"));
  });
});
