/**
 * The built CLI (dist/cli.js) as users run it: output formats, exit codes, rule selection, --fix,
 * folder search and files it cannot read. Messages and fix titles are the engine's (AS102's own
 * tests pin their wording); these tests pin what the CLI adds: paths, positions, order, summary.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, test } from "node:test";
import { allRules, fixAll, lint, PythonDocument } from "../../server/src/engine";
import { fromRoot } from "../support/paths";
import { makeTree, removeTrees, runCli } from "./harness";

after(removeTrees);

const NONE_DAG = `from airflow.sdk import task


@task
def forget_cursor(task_state_store=None):
    task_state_store.set("cursor", None)
`;

const TWO_NONES_DAG = `from airflow.sdk import task


@task(retries=3)
def reset(task_state_store=None):
    task_state_store.set("offset", None)
    task_state_store.set("page", None)
`;

const CLEAN_DAG = `from airflow.sdk import task


@task
def save_cursor(task_state_store=None):
    task_state_store.set("cursor", "2026-01-01T00:00:00+00:00")
`;

/** AS102 and AS201 in one file, for --select and --ignore. */
const TWO_RULES_DAG = `from airflow.sdk import Asset, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(asset_state_store=None, **context):
    asset_state_store[ORDERS].set("watermark", None)
`;

/** The engine's own diagnostic for a file, which the CLI must pass through unchanged. */
function engineDiagnostic(text: string, line: number) {
  const found = lint(new PythonDocument("file:///x.py", text)).find((d) => d.range.start.line + 1 === line);
  assert.ok(found, `the engine reports nothing on line ${line}`);
  return found;
}

const NONE_MESSAGE = engineDiagnostic(NONE_DAG, 6).message;

interface JsonFinding {
  path: string;
  code: string;
  severity: string;
  message: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  fix: { title: string; safe: boolean } | null;
  related: { message: string; line: number; column: number; endLine: number; endColumn: number }[];
}

function parseJson(stdout: string): JsonFinding[] {
  return JSON.parse(stdout) as JsonFinding[];
}

function codes(stdout: string): string[] {
  return parseJson(stdout).map((f) => `${f.code}@${f.path}:${f.line}`);
}

describe("text output", () => {
  test("prints path:line:col: CODE message for each finding and a summary; exit 1", () => {
    const root = makeTree({ "dags/a.py": NONE_DAG, "dags/b.py": TWO_NONES_DAG, "dags/clean.py": CLEAN_DAG });
    const run = runCli([], root);
    assert.equal(run.stderr, "");
    assert.equal(
      run.stdout,
      [
        `dags/a.py:6:36: AS102 ${NONE_MESSAGE}`,
        `dags/b.py:6:36: AS102 ${NONE_MESSAGE}`,
        `dags/b.py:7:34: AS102 ${NONE_MESSAGE}`,
        "Found 3 problems (3 errors).",
        "",
      ].join("\n"),
    );
    assert.equal(run.status, 1);
  });

  test("says All checks passed! and exits 0 when nothing is found", () => {
    const root = makeTree({ "clean.py": CLEAN_DAG, "not_airflow.py": "print('hello')\n" });
    const run = runCli(["."], root);
    assert.deepEqual(run, { status: 0, stdout: "All checks passed!\n", stderr: "" });
  });

  test("counts each severity in the summary", () => {
    const root = makeTree({ "a.py": TWO_RULES_DAG });
    // AS201 is information here: nothing reads the store through the dictionary.
    assert.equal(runCli([], root).stdout.split("\n").at(-2), "Found 2 problems (1 error, 1 info).");
    assert.equal(runCli(["--rule-severity", "AS102=hint,AS201=info"], root).stdout.split("\n").at(-2), "Found 2 problems (1 info, 1 hint).");
    assert.equal(runCli(["--rule-severity", "AS102=warning,AS201=warning"], root).stdout.split("\n").at(-2), "Found 2 problems (2 warnings).");
  });

  test("reads files with a UTF-8 byte order mark and CRLF line ends", () => {
    const root = makeTree({ "bom.py": `\uFEFF${NONE_DAG}`, "crlf.py": NONE_DAG.replace(/\n/g, "\r\n") });
    const run = runCli([], root);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, [`bom.py:6:36: AS102 ${NONE_MESSAGE}`, `crlf.py:6:36: AS102 ${NONE_MESSAGE}`, "Found 2 problems (2 errors).", ""].join("\n"));
  });

  test("shows paths outside the working folder as absolute paths", () => {
    const root = makeTree({ "dags/a.py": NONE_DAG, "work/.keep": "" });
    const run = runCli(["../dags"], path.join(root, "work"));
    assert.equal(run.stdout.split("\n")[0], `${path.join(root, "dags", "a.py")}:6:36: AS102 ${NONE_MESSAGE}`);
  });
});

describe("JSON output", () => {
  test("is an array of the documented fields, 1-based, sorted by path (code-unit order) then line", () => {
    // `B.py` sorts before `a.py` in code-unit order, whatever the machine's locale says.
    const root = makeTree({ "a.py": TWO_NONES_DAG, "B.py": NONE_DAG, "clean.py": CLEAN_DAG });
    const run = runCli(["--format", "json"], root);
    assert.equal(run.status, 1);
    assert.equal(run.stderr, "");
    const fixOf = (text: string, line: number) => {
      const fix = engineDiagnostic(text, line).fix!;
      return { title: fix.title, safe: fix.safe };
    };
    const finding = (file: string, line: number, column: number, endColumn: number, text: string): JsonFinding => ({
      path: file,
      code: "AS102",
      severity: "error",
      message: NONE_MESSAGE,
      line,
      column,
      endLine: line,
      endColumn,
      fix: fixOf(text, line),
      related: [],
    });
    assert.deepEqual(parseJson(run.stdout), [finding("B.py", 6, 36, 40, NONE_DAG), finding("a.py", 6, 36, 40, TWO_NONES_DAG), finding("a.py", 7, 34, 38, TWO_NONES_DAG)]);
    assert.deepEqual(Object.keys(parseJson(run.stdout)[0]), ["path", "code", "severity", "message", "line", "column", "endLine", "endColumn", "fix", "related"]);
    assert.equal(parseJson(run.stdout)[0].fix!.safe, false, "AS102's fix is unsafe");
  });

  test("is an empty array when nothing is found, and fix is null for findings without a fix", () => {
    const root = makeTree({ "clean.py": CLEAN_DAG });
    assert.deepEqual(runCli(["--format=json"], root), { status: 0, stdout: "[]\n", stderr: "" });
    // A `set(value=None)` without a key: AS102 reports it but cannot build `delete(key)`.
    const noKey = makeTree({ "a.py": NONE_DAG.replace('set("cursor", None)', "set(value=None)") });
    const [only] = parseJson(runCli(["--format", "json"], noKey).stdout);
    assert.equal(only.code, "AS102");
    assert.equal(only.fix, null);
  });

  test("is the same, byte for byte, on every run over many files", () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 40; i++) tree[`dags/group${i % 4}/dag_${String(i).padStart(2, "0")}.py`] = i % 3 === 0 ? CLEAN_DAG : TWO_NONES_DAG;
    const root = makeTree(tree);
    const first = runCli(["--format", "json"], root);
    const second = runCli(["--format", "json"], root);
    assert.equal(first.stdout, second.stdout);
    const findings = parseJson(first.stdout);
    assert.equal(findings.length, 26 * 2);
    const keys = findings.map((f) => [f.path, f.line] as const);
    const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    assert.deepEqual(keys, sorted);
  });
});

describe("SARIF output", () => {
  test("is one SARIF 2.1.0 run with every rule and 1-based results located relative to the working folder", () => {
    const root = makeTree({ "dags/a.py": NONE_DAG });
    const run = runCli(["--format", "sarif"], root);
    assert.equal(run.status, 1);
    const log = JSON.parse(run.stdout);
    assert.equal(log.version, "2.1.0");
    assert.equal(log.runs.length, 1);
    const [sarifRun] = log.runs;
    const driver = sarifRun.tool.driver;
    assert.equal(driver.name, "airflow-state-lint");
    assert.equal(driver.version, JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")).version);
    assert.deepEqual(
      driver.rules.map((r: { id: string; name: string; shortDescription: { text: string }; defaultConfiguration: { level: string } }) => [r.id, r.name, r.shortDescription.text, r.defaultConfiguration.level]),
      allRules.map((r) => [r.code, r.name, r.summary, r.defaultSeverity === "error" ? "error" : r.defaultSeverity === "warning" ? "warning" : "note"]),
    );
    for (const rule of driver.rules) {
      assert.equal(rule.helpUri, pathToFileURL(fromRoot("docs", "rules", `${rule.id}.md`)).href, `${rule.id} links to its page`);
      assert.ok(fs.existsSync(fromRoot("docs", "rules", `${rule.id}.md`)));
    }
    assert.equal(sarifRun.originalUriBaseIds["%SRCROOT%"].uri, pathToFileURL(root).href + "/");
    assert.equal(sarifRun.invocations[0].executionSuccessful, true);
    assert.deepEqual(sarifRun.results, [
      {
        ruleId: "AS102",
        ruleIndex: allRules.findIndex((r) => r.code === "AS102"),
        level: "error",
        message: { text: NONE_MESSAGE },
        partialFingerprints: { primaryLocationLineHash: sarifRun.results[0]?.partialFingerprints?.primaryLocationLineHash },
        locations: [
          {
            physicalLocation: {
              artifactLocation: { uri: "dags/a.py", uriBaseId: "%SRCROOT%" },
              region: { startLine: 6, startColumn: 36, endLine: 6, endColumn: 40 },
            },
          },
        ],
      },
    ]);
    assert.match(sarifRun.results[0].partialFingerprints.primaryLocationLineHash, /^[0-9a-f]{16}:1$/);
  });

  test("maps info and hint to note, and percent-encodes relative URIs", () => {
    const root = makeTree({ "my dags/a.py": NONE_DAG });
    const run = runCli(["--format", "sarif", "--rule-severity", "AS102=hint"], root);
    assert.equal(run.status, 0);
    const [result] = JSON.parse(run.stdout).runs[0].results;
    assert.equal(result.level, "note");
    assert.equal(result.locations[0].physicalLocation.artifactLocation.uri, "my%20dags/a.py");
  });
});

describe("exit codes and severities", () => {
  test("--exit-zero exits 0 and still reports", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    const run = runCli(["--exit-zero"], root);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /a\.py:6:36: AS102 /);
  });

  test("info and hint findings do not fail the run; warnings do; off silences", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    for (const [level, status] of [["info", 0], ["hint", 0], ["warning", 1], ["error", 1]] as const) {
      const run = runCli(["--format", "json", "--rule-severity", `AS102=${level}`], root);
      assert.equal(run.status, status, level);
      assert.deepEqual(parseJson(run.stdout).map((f) => f.severity), [level]);
    }
    assert.deepEqual(runCli(["--rule-severity", "as102=off"], root), { status: 0, stdout: "All checks passed!\n", stderr: "" });
  });
});

describe("--select and --ignore", () => {
  const both = () => makeTree({ "a.py": TWO_RULES_DAG });

  test("the file has one AS102 and one AS201", () => {
    assert.deepEqual(codes(runCli(["--format", "json"], both()).stdout), ["AS201@a.py:7", "AS102@a.py:8"]);
  });

  test("take comma lists of codes and ruff-style prefixes, in any case", () => {
    const root = both();
    const select = (...args: string[]) => codes(runCli(["--format", "json", ...args], root).stdout);
    assert.deepEqual(select("--select", "AS1"), ["AS102@a.py:8"]);
    assert.deepEqual(select("--select", "as201"), ["AS201@a.py:7"]);
    assert.deepEqual(select("--select", "AS102,AS201"), ["AS201@a.py:7", "AS102@a.py:8"]);
    assert.deepEqual(select("--select", "AS1", "--select", "AS2"), ["AS201@a.py:7", "AS102@a.py:8"]);
    assert.deepEqual(select("--ignore", "AS1"), ["AS201@a.py:7"]);
    assert.deepEqual(select("--select", "AS", "--ignore", "AS201,AS102"), []);
  });

  test("an ignored rule does not fail the run", () => {
    const run = runCli(["--ignore", "AS102"], makeTree({ "a.py": NONE_DAG }));
    assert.deepEqual(run, { status: 0, stdout: "All checks passed!\n", stderr: "" });
  });
});

describe("usage errors exit 2 with a message on stderr and nothing on stdout", () => {
  const cases: [string, string[], RegExp][] = [
    ["an unknown option", ["--frobnicate"], /Unknown option '--frobnicate'/],
    ["an unknown format", ["--format", "xml"], /--format must be one of text, json, sarif, github, gitlab, review; got "xml"/],
    ["an unknown rule in --select", ["--select", "AS999"], /--select: "AS999" is not a rule code or prefix of one/],
    ["something else than a code in --ignore", ["--ignore", "E501"], /--ignore: "E501" is not a rule code/],
    ["an empty --select", ["--select", ","], /--select needs at least one rule code/],
    ["a bad severity", ["--rule-severity", "AS102=loud"], /AS102=loud: the level must be one of error, warning, info, hint, off/],
    ["a severity for an unknown rule", ["--rule-severity", "AS999=off"], /unknown rule AS999/],
    ["a malformed severity", ["--rule-severity", "AS102"], /--rule-severity takes CODE=LEVEL/],
    ["--baseline without a revision", ["--baseline"], /--baseline/],
    ["a revision that git would read as an option", ["--baseline=--all"], /--baseline needs a git revision/],
    ["a value given to a flag", ["--fix=yes"], /--fix/],
  ];
  for (const [what, args, message] of cases) {
    test(what, () => {
      const run = runCli(args, makeTree({ "a.py": NONE_DAG }));
      assert.equal(run.status, 2);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, message);
      assert.match(run.stderr, /Run 'airflow-state-lint --help' for usage/);
    });
  }

  test("a path that does not exist, even next to one that does", () => {
    const root = makeTree({ "a.py": NONE_DAG });
    const run = runCli(["a.py", "missing_dags"], root);
    assert.deepEqual(run, { status: 2, stdout: "", stderr: "airflow-state-lint: error: missing_dags: no such file or folder\n" });
  });
});

describe("--help and --version", () => {
  test("--help prints the usage and exits 0", () => {
    const run = runCli(["--help"], makeTree({}));
    assert.equal(run.status, 0);
    assert.match(run.stdout, /^Usage: airflow-state-lint \[options\] \[paths\.\.\.\]/);
    for (const option of ["--format", "--select", "--ignore", "--rule-severity", "--fix", "--baseline", "--exit-zero", "--no-cache", "--version"]) assert.ok(run.stdout.includes(option), option);
    assert.equal(runCli(["-h"], makeTree({})).stdout, run.stdout);
  });

  test("--version prints the package version", () => {
    const version = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")).version;
    assert.deepEqual(runCli(["--version"], makeTree({})), { status: 0, stdout: `airflow-state-lint ${version}\n`, stderr: "" });
  });
});

describe("folder search", () => {
  test("recurses into *.py, skips tool and hidden folders, follows links without looping", () => {
    const root = makeTree({
      "dags/a.py": NONE_DAG,
      "dags/nested/deeper/c.py": NONE_DAG,
      "dags/notes.txt": NONE_DAG,
      "dags/stub.pyi": NONE_DAG,
      "dags/loop": { symlink: ".." },
      "linked_dags": { symlink: "dags" },
      "outside_link": { symlink: "elsewhere" },
      "elsewhere/e.py": NONE_DAG,
      ".git/x.py": NONE_DAG,
      "node_modules/pkg/x.py": NONE_DAG,
      ".venv/lib/x.py": NONE_DAG,
      "venv/lib/x.py": NONE_DAG,
      "dags/__pycache__/x.py": NONE_DAG,
      ".hidden/x.py": NONE_DAG,
    });
    const run = runCli(["--format", "json"], root);
    assert.equal(run.stderr, "");
    // Each real folder is searched once, under its first name in sorted order.
    assert.deepEqual(codes(run.stdout), ["AS102@dags/a.py:6", "AS102@dags/nested/deeper/c.py:6", "AS102@elsewhere/e.py:6"]);
  });

  test("checks files named on the command line whatever their extension, and hidden folders named explicitly", () => {
    const root = makeTree({ "dags/notes.txt": NONE_DAG, ".hidden/x.py": NONE_DAG, "dags/a.py": NONE_DAG });
    const run = runCli(["--format", "json", "dags/notes.txt", ".hidden", "./dags/a.py", "dags"], root);
    // dags/a.py is named twice (directly and through its folder) and reported once.
    assert.deepEqual(codes(run.stdout), ["AS102@.hidden/x.py:6", "AS102@dags/a.py:6", "AS102@dags/notes.txt:6"]);
  });
});

describe("files that cannot be read", () => {
  test("get a clear message on stderr, the others are still checked, and the run exits 2", () => {
    const root = makeTree({
      "a_good.py": NONE_DAG,
      "bad_utf8.py": Buffer.concat([Buffer.from("from airflow.sdk import task\nname = '"), Buffer.from([0xff, 0xfe]), Buffer.from("'\n")]),
      "binary.py": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]),
      "utf16.py": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("import airflow\n", "utf16le")]),
      "dangling.py": { symlink: "nowhere.py" },
      // A folder named like a Python file is searched, not read.
      "folder.py/inner.py": NONE_DAG,
    });
    const run = runCli(["--format", "json"], root);
    assert.equal(run.status, 2);
    assert.deepEqual(codes(run.stdout), ["AS102@a_good.py:6", "AS102@folder.py/inner.py:6"]);
    assert.equal(
      run.stderr,
      [
        "airflow-state-lint: error: bad_utf8.py: not valid UTF-8; only UTF-8 Python files are checked",
        "airflow-state-lint: error: binary.py: not a text file (it contains NUL bytes); only UTF-8 Python files are checked",
        "airflow-state-lint: error: dangling.py: cannot read the file: no such file (a broken symbolic link?)",
        "airflow-state-lint: error: utf16.py: encoded in UTF-16; only UTF-8 Python files are checked",
        "",
      ].join("\n"),
    );
  });

  test("keep exit 2 with --exit-zero, and the text summary says the check was incomplete", () => {
    const root = makeTree({ "clean.py": CLEAN_DAG, "dangling.py": { symlink: "nowhere.py" } });
    const run = runCli(["--exit-zero"], root);
    assert.equal(run.status, 2);
    assert.equal(run.stdout, "No problems found in what could be checked.\n1 path could not be checked completely; see the errors above.\n");
  });

  test("are execution notifications in SARIF, and the run is not successful", () => {
    const root = makeTree({ "dangling.py": { symlink: "nowhere.py" } });
    const invocation = JSON.parse(runCli(["--format", "sarif"], root).stdout).runs[0].invocations[0];
    assert.equal(invocation.executionSuccessful, false);
    assert.deepEqual(invocation.toolExecutionNotifications, [
      {
        level: "error",
        message: { text: "cannot read the file: no such file (a broken symbolic link?)" },
        locations: [{ physicalLocation: { artifactLocation: { uri: "dangling.py", uriBaseId: "%SRCROOT%" } } }],
      },
    ]);
  });
});

describe("--fix", () => {
  test("leaves a file whose fixes are all unsafe untouched and reports what remains", () => {
    const root = makeTree({ "a.py": TWO_NONES_DAG });
    const file = path.join(root, "a.py");
    const past = new Date("2020-01-01T00:00:00Z");
    fs.utimesSync(file, past, past);
    const run = runCli(["--fix"], root);
    assert.equal(run.status, 1);
    assert.equal(fs.readFileSync(file, "utf8"), TWO_NONES_DAG);
    assert.equal(fs.statSync(file).mtimeMs, past.getTime(), "a file without safe fixes is not written");
    assert.equal(run.stdout, [`a.py:6:36: AS102 ${NONE_MESSAGE}`, `a.py:7:34: AS102 ${NONE_MESSAGE}`, "Found 2 problems (2 errors).", ""].join("\n"));
  });

  // The rule fixtures hold every form a rule fixes; those with safe fixes are fixed through the CLI.
  const fixtures = fromRoot("test", "rules", "fixtures");
  const withSafeFixes = allRules
    .map((rule) => `${rule.code}.py`)
    .filter((name) => fs.existsSync(path.join(fixtures, name)))
    .filter((name) => lint(new PythonDocument("file:///f.py", fs.readFileSync(path.join(fixtures, name), "utf8"))).some((d) => d.fix?.safe));

  test("writes the safe fixes back, keeps the unsafe ones, and the result parses", () => {
    assert.ok(withSafeFixes.length >= 3, `only ${withSafeFixes.join(", ")} offer safe fixes`);
    const tree: Record<string, string> = {};
    for (const name of withSafeFixes) tree[name] = fs.readFileSync(path.join(fixtures, name), "utf8");
    const root = makeTree(tree);
    const run = runCli(["--fix", "--format", "json"], root);
    let remaining: JsonFinding[] = [];
    let fixedCount = 0;
    for (const name of withSafeFixes) {
      const original = tree[name];
      const expected = fixAll(pathToFileURL(path.join(root, name)).href, original, { path: path.join(root, name) });
      const written = fs.readFileSync(path.join(root, name), "utf8");
      assert.equal(written, expected.text, `${name} holds the safe fixes`);
      assert.notEqual(written, original);
      assert.ok(!new PythonDocument("file:///f.py", written).tree.rootNode.hasError, `${name} parses after fixing`);
      assert.ok(!lint(new PythonDocument("file:///f.py", written)).some((d) => d.fix?.safe), `${name} has no safe fix left`);
      remaining = remaining.concat(expected.diagnostics.map((d) => ({ path: name, code: d.code, line: d.range.start.line + 1 }) as JsonFinding));
      fixedCount += expected.applied;
    }
    assert.ok(fixedCount > 0);
    const reported = parseJson(run.stdout);
    assert.deepEqual(reported.map((f) => `${f.code}@${f.path}:${f.line}`).sort(), remaining.map((f) => `${f.code}@${f.path}:${f.line}`).sort());
    assert.ok(reported.every((f) => !f.fix?.safe), "what remains has no safe fix");
    const text = runCli([], root);
    assert.doesNotMatch(text.stdout, /fixable with --fix/);
  });
});
