/**
 * The CLI in CI: the GitHub and GitLab formats, fingerprints, --statistics, exclusions,
 * --stdin-filename, --diff, --unsafe-fixes and --show-fixes, and the project configuration file
 * as the command line sees it (flags over the file, a bad file reported and not used).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { lint, PythonDocument } from "../../server/src/engine";
import { unifiedDiff } from "../../server/src/cli/diff";
import { escapeData, escapeProperty } from "../../server/src/cli/github";
import { makeTree, removeTrees, runCli } from "./harness";

after(removeTrees);

/** AS101, with a safe fix (`.isoformat()`). */
const DATETIME_DAG = `from datetime import datetime, timezone
from airflow.sdk import task


@task
def save(task_state_store=None):
    task_state_store.set("at", datetime.now(tz=timezone.utc))
`;

/** AS102 twice on lines of the same text, whose fix (delete the key) is unsafe. */
const NONE_TWICE_DAG = `from airflow.sdk import task


@task
def forget(task_state_store=None):
    task_state_store.set("cursor", None)
    task_state_store.set("cursor", None)
`;

const DATETIME_MESSAGE = lint(new PythonDocument("file:///x.py", DATETIME_DAG))[0].message;

interface CodeClimateIssue {
  check_name: string;
  description: string;
  severity: string;
  fingerprint: string;
  location: { path: string; positions: { begin: { line: number; column: number }; end: { line: number; column: number } } };
}

describe("--format github", () => {
  test("one workflow command per finding, with the file, range and code; severities map to error, warning and notice", () => {
    const root = makeTree({ "dags/a.py": DATETIME_DAG, "dags/b.py": NONE_TWICE_DAG });
    const run = runCli(["--format", "github", "--rule-severity", "AS102=info"], root);
    assert.equal(run.status, 1);
    assert.equal(
      run.stdout,
      [
        `::error file=dags/a.py,line=7,col=32,endLine=7,endColumn=61,title=AS101::${escapeData(DATETIME_MESSAGE)}`,
        ...[6, 7].map((line) => `::notice file=dags/b.py,line=${line},col=36,endLine=${line},endColumn=40,title=AS102::`),
        "",
      ]
        .join("\n")
        .replace(/title=AS102::/g, (match) => match + escapeData(lint(new PythonDocument("file:///b.py", NONE_TWICE_DAG))[0].message)),
    );
    const warning = runCli(["--format", "github", "--rule-severity", "AS101=warning"], root);
    assert.match(warning.stdout, /^::warning file=dags\/a\.py,/m);
  });

  test("escapes %, CR and LF in messages, and also : and , in properties", () => {
    assert.equal(escapeData("100% done\r\nnext: a, b"), "100%25 done%0D%0Anext: a, b");
    assert.equal(escapeProperty("my,dags:x/a%.py"), "my%2Cdags%3Ax/a%25.py");
    const root = makeTree({ "my,dags:x/a.py": DATETIME_DAG });
    assert.match(runCli(["--format", "github"], root).stdout, /^::error file=my%2Cdags%3Ax\/a\.py,line=7,/);
  });

  test("a file that cannot be read is an error annotation on it", () => {
    const root = makeTree({ "bad.py": Buffer.from([0xff, 0xfe, 0x00]) });
    const run = runCli(["--format", "github"], root);
    assert.equal(run.status, 2);
    assert.match(run.stdout, /^::error file=bad\.py,title=airflow-state-lint::encoded in UTF-16/m);
  });
});

describe("fingerprints", () => {
  test("GitLab issues and SARIF results keep their fingerprints when lines are added elsewhere, and tell equal lines apart", () => {
    const root = makeTree({ "dags/b.py": NONE_TWICE_DAG });
    const gitlab = () => JSON.parse(runCli(["--format", "gitlab", "--no-cache"], root).stdout) as CodeClimateIssue[];
    const sarif = () => JSON.parse(runCli(["--format", "sarif", "--no-cache"], root).stdout).runs[0].results.map((r: { partialFingerprints: { primaryLocationLineHash: string } }) => r.partialFingerprints.primaryLocationLineHash);
    const before = gitlab();
    const sarifBefore = sarif();
    assert.equal(before.length, 2);
    assert.notEqual(before[0].fingerprint, before[1].fingerprint);
    assert.deepEqual(
      sarifBefore.map((hash: string) => hash.split(":")[1]),
      ["1", "2"],
    );
    assert.deepEqual(
      before.map((issue) => [issue.check_name, issue.severity, issue.location.path, issue.location.positions.begin.line]),
      [
        ["AS102", "major", "dags/b.py", 6],
        ["AS102", "major", "dags/b.py", 7],
      ],
    );
    fs.writeFileSync(path.join(root, "dags/b.py"), NONE_TWICE_DAG.replace("from airflow.sdk import task\n", "from airflow.sdk import task\n\nLIMIT = 3  # added above\n\n"));
    const after = gitlab();
    assert.deepEqual(
      after.map((issue) => issue.location.positions.begin.line),
      [9, 10],
    );
    assert.deepEqual(
      after.map((issue) => issue.fingerprint),
      before.map((issue) => issue.fingerprint),
    );
    assert.deepEqual(sarif(), sarifBefore);
  });
});

describe("--statistics", () => {
  test("counts per code, most first, [*] where --fix would fix them all", () => {
    const root = makeTree({ "a.py": DATETIME_DAG, "b.py": NONE_TWICE_DAG });
    const text = runCli(["--statistics"], root);
    assert.equal(text.status, 1);
    assert.equal(text.stdout, "2\tAS102\t[ ] none-value\n1\tAS101\t[*] non-json-value\n");
    assert.equal(runCli(["--statistics", "--unsafe-fixes"], root).stdout, "2\tAS102\t[*] none-value\n1\tAS101\t[*] non-json-value\n");
    assert.deepEqual(JSON.parse(runCli(["--statistics", "--format", "json"], root).stdout), [
      { code: "AS102", name: "none-value", count: 2, fixable: 0 },
      { code: "AS101", name: "non-json-value", count: 1, fixable: 1 },
    ]);
    assert.equal(runCli(["--statistics", "--format", "sarif"], root).status, 2);
  });
});

describe("exclusions", () => {
  test("--exclude and --extend-exclude globs, relative to the current folder, also leave out files named on the command line", () => {
    const root = makeTree({ "dags/a.py": DATETIME_DAG, "dags/legacy/old.py": DATETIME_DAG, "tests/test_a.py": DATETIME_DAG });
    const checked = (args: string[]) => [...runCli(["--format", "json", "--no-cache", ...args], root).stdout.matchAll(/"path": "([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(checked([]), ["dags/a.py", "dags/legacy/old.py", "tests/test_a.py"]);
    assert.deepEqual(checked(["--exclude", "dags/legacy,tests"]), ["dags/a.py"]);
    assert.deepEqual(checked(["--extend-exclude", "test_*.py"]), ["dags/a.py", "dags/legacy/old.py"]);
    assert.deepEqual(checked(["--exclude", "tests", "tests/test_a.py", "dags/a.py"]), ["dags/a.py"]);
    assert.equal(runCli(["--exclude", "dags/[x"], root).status, 2);
  });

  test("the configuration's exclude is replaced by --exclude and extended by --extend-exclude", () => {
    const root = makeTree({ "airflow-state-lint.toml": 'exclude = ["generated"]\n', "generated/a.py": DATETIME_DAG, "dags/a.py": DATETIME_DAG, "dags/b.py": DATETIME_DAG });
    const checked = (args: string[]) => [...runCli(["--format", "json", "--no-cache", ...args], root).stdout.matchAll(/"path": "([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(checked([]), ["dags/a.py", "dags/b.py"]);
    assert.deepEqual(checked(["--extend-exclude", "dags/b.py"]), ["dags/a.py"]);
    assert.deepEqual(checked(["--exclude", "dags/b.py"]), ["dags/a.py", "generated/a.py"]);
  });
});

describe("--stdin-filename", () => {
  test("checks standard input as the file, with the configuration found from its path", () => {
    const root = makeTree({ "team/airflow-state-lint.toml": '[severity]\nAS101 = "warning"\n' });
    const run = runCli(["--stdin-filename", "team/dags/new.py", "-"], root, { input: DATETIME_DAG });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, `team/dags/new.py:7:32: AS101 ${DATETIME_MESSAGE}\nFound 1 problem (1 warning); 1 fixable with --fix.\n`);
    assert.deepEqual(fs.readdirSync(path.join(root, "team")), ["airflow-state-lint.toml"], "nothing is written");
  });

  test("with --fix the fixed text goes to standard output and the report to standard error", () => {
    const root = makeTree({});
    const run = runCli(["--fix", "--stdin-filename", "a.py", "-"], root, { input: DATETIME_DAG });
    assert.equal(run.status, 0);
    assert.equal(run.stdout, DATETIME_DAG.replace("timezone.utc))", "timezone.utc).isoformat())"));
    assert.match(run.stderr, /Fixed 1 problem in 1 file\.\nAll checks passed!/);
    const unchanged = runCli(["--fix", "--stdin-filename", "a.py"], root, { input: "print('no airflow here')\n" });
    assert.equal(unchanged.stdout, "print('no airflow here')\n");
  });

  test("is a usage error without -, with other paths, or - without it", () => {
    const root = makeTree({ "a.py": DATETIME_DAG });
    assert.equal(runCli(["-"], root, { input: "" }).status, 2);
    assert.equal(runCli(["--stdin-filename", "x.py", "a.py"], root, { input: "" }).status, 2);
    assert.match(runCli(["-"], root, { input: "" }).stderr, /needs --stdin-filename PATH/);
  });
});

describe("--diff, --unsafe-fixes and --show-fixes", () => {
  test("--diff prints what --fix would write, writes nothing, and exits 1; the diff applies", () => {
    const root = makeTree({ "dags/a.py": DATETIME_DAG, "dags/b.py": NONE_TWICE_DAG });
    const diff = runCli(["--diff"], root);
    assert.equal(diff.status, 1);
    assert.equal(fs.readFileSync(path.join(root, "dags/a.py"), "utf8"), DATETIME_DAG, "nothing written");
    assert.match(diff.stdout, /^--- a\/dags\/a\.py\n\+\+\+ b\/dags\/a\.py\n@@ -4,4 \+4,4 @@\n/);
    assert.doesNotMatch(diff.stdout, /b\.py/, "AS102's fix is unsafe");
    assert.equal(diff.stderr, "Would fix 1 problem in 1 file.\n");
    const git = spawnSync("git", ["apply", "-"], { cwd: root, input: diff.stdout, encoding: "utf8" });
    assert.equal(git.status, 0, git.stderr);
    assert.equal(fs.readFileSync(path.join(root, "dags/a.py"), "utf8"), DATETIME_DAG.replace("timezone.utc))", "timezone.utc).isoformat())"));
    const clean = runCli(["--diff", "dags/a.py"], root);
    assert.deepEqual([clean.status, clean.stdout, clean.stderr], [0, "", "No fixes would be made.\n"]);
  });

  test("--unsafe-fixes applies the unsafe fixes too", () => {
    const root = makeTree({ "b.py": NONE_TWICE_DAG });
    const diff = runCli(["--diff", "--unsafe-fixes"], root);
    assert.equal(diff.status, 1);
    assert.match(diff.stdout, /^-    task_state_store\.set\("cursor", None\)$/m);
    const fixed = runCli(["--fix", "--unsafe-fixes"], root);
    assert.equal(fixed.status, 0, fixed.stdout);
    assert.doesNotMatch(fs.readFileSync(path.join(root, "b.py"), "utf8"), /set\("cursor", None\)/);
  });

  test("--show-fixes lists what --fix fixed, and without --fix each finding's fix", () => {
    const root = makeTree({ "a.py": DATETIME_DAG, "b.py": NONE_TWICE_DAG });
    const shown = runCli(["--show-fixes"], root);
    assert.match(shown.stdout, /^a\.py:7:32: AS101 .*\n  fix \(safe\): Convert with `\.isoformat\(\)`\n/m);
    assert.match(shown.stdout, /^b\.py:6:36: AS102 .*\n  fix \(unsafe\): /m);
    const fixed = runCli(["--fix", "--show-fixes"], root);
    assert.match(fixed.stdout, /\nFixed 1 problem:\n- a\.py:\n    1 × AS101 \(non-json-value\)\nFixed 1 problem in 1 file\.\n/);
  });

  test("--diff is not combined with --fix or another format", () => {
    const root = makeTree({ "a.py": DATETIME_DAG });
    assert.equal(runCli(["--diff", "--fix"], root).status, 2);
    assert.equal(runCli(["--diff", "--format", "json"], root).status, 2);
  });
});

describe("the configuration file, from the command line", () => {
  const CONFIG = ['[tool.airflow-state-lint]', 'ignore = ["AS102"]', "[tool.airflow-state-lint.severity]", 'AS101 = "info"', "[tool.airflow-state-lint.per-file-ignores]", '"legacy/*.py" = ["AS101"]', ""].join("\n");

  test("applies per file, and the flags win over it", () => {
    const root = makeTree({ "pyproject.toml": CONFIG, "a.py": DATETIME_DAG + NONE_TWICE_DAG.split("\n").slice(4).join("\n"), "legacy/old.py": DATETIME_DAG });
    const run = runCli(["--format", "json", "--no-cache"], root);
    assert.equal(run.status, 0, run.stdout);
    assert.deepEqual(
      JSON.parse(run.stdout).map((f: { code: string; path: string; severity: string }) => [f.code, f.path, f.severity]),
      [["AS101", "a.py", "info"]],
    );
    const flags = runCli(["--format", "json", "--no-cache", "--rule-severity", "AS101=error", "--select", "AS101"], root);
    assert.deepEqual(
      JSON.parse(flags.stdout).map((f: { code: string; severity: string }) => [f.code, f.severity]),
      [["AS101", "error"]],
    );
    const isolated = runCli(["--format", "json", "--no-cache", "--isolated"], root);
    assert.deepEqual(
      JSON.parse(isolated.stdout).map((f: { code: string; path: string }) => `${f.code}@${f.path}`),
      ["AS101@a.py", "AS102@a.py", "AS102@a.py", "AS101@legacy/old.py"],
    );
  });

  test("a bad file is named with its line and key on standard error, and the run goes on with the defaults", () => {
    const root = makeTree({ "pyproject.toml": '[tool.airflow-state-lint]\nignore = ["AS102"]\nselct = ["AS1"]\n', "a.py": NONE_TWICE_DAG });
    const run = runCli(["--format", "json", "--no-cache"], root);
    assert.equal(run.status, 1, "AS102 is not ignored: the defaults apply");
    assert.equal(JSON.parse(run.stdout).length, 2);
    assert.equal(
      run.stderr,
      [
        "airflow-state-lint: warning: pyproject.toml:3: tool.airflow-state-lint.selct: unknown key; the keys are select, extend-select, ignore, per-file-ignores, exclude, extend-exclude, severity, baseline, airflow-version",
        "airflow-state-lint: warning: pyproject.toml: the file is not used until this is fixed; the defaults apply to the files it covers.",
        "",
      ].join("\n"),
    );
  });

  test("airflow-version overrides the pin the project's files give", () => {
    const root = makeTree({ "requirements.txt": "apache-airflow==3.3.0\n", "airflow-state-lint.toml": 'airflow-version = "2.10.5"\n', "a.py": DATETIME_DAG });
    const run = runCli(["--format", "json", "--no-cache", "--select", "AS501"], root);
    assert.deepEqual(
      JSON.parse(run.stdout).map((f: { code: string; message: string }) => [f.code, /Airflow 2\.10\.5 \(airflow-state-lint\.toml:1\)/.test(f.message)]),
      [["AS501", true]],
    );
  });
});

describe("--help", () => {
  test("describes every CI option", () => {
    const help = runCli(["--help"], makeTree({})).stdout;
    for (const option of ["--format FORMAT", "github", "gitlab", "--extend-select", "--exclude", "--extend-exclude", "--isolated", "--unsafe-fixes", "--diff", "--show-fixes", "--statistics", "--stdin-filename", "pyproject.toml", "airflow-state-lint.toml"]) {
      assert.ok(help.includes(option), option);
    }
  });
});

describe("unified diffs", () => {
  test("hunks with three lines of context, apart when far apart, and a missing final newline marked", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
    const after = before.replace("line 2\n", "line two\n").replace("line 18\n", "").replace(/line 20$/, "line twenty");
    assert.equal(
      unifiedDiff("dags/x.py", before, after),
      [
        "--- a/dags/x.py",
        "+++ b/dags/x.py",
        "@@ -1,5 +1,5 @@",
        " line 1",
        "-line 2",
        "+line two",
        " line 3",
        " line 4",
        " line 5",
        "@@ -15,6 +15,5 @@",
        " line 15",
        " line 16",
        " line 17",
        "-line 18",
        " line 19",
        "-line 20",
        "\\ No newline at end of file",
        "+line twenty",
        "\\ No newline at end of file",
        "",
      ].join("\n"),
    );
    assert.equal(unifiedDiff("x.py", "same\n", "same\n"), "");
    assert.equal(unifiedDiff("x.py", "", "new\n"), "--- a/x.py\n+++ b/x.py\n@@ -0,0 +1,1 @@\n+new\n");
  });
});
