/**
 * The project configuration every front end reads: which file applies, what its keys do, how the
 * overrides (editor settings, command-line flags) combine with it, and the problems a bad file gets.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { allRules } from "../../server/src/engine";
import { ConfigurationOverrides, describeConfigurationProblem, FileConfiguration, ProjectConfiguration, ProjectFiles } from "../../server/src/engine/project";
import { compileGlob, globMatches } from "../../server/src/engine/project/glob";

const RULE_CODES = allRules.map((rule) => rule.code);

function memoryFiles(files: Record<string, string>): ProjectFiles {
  return {
    readFile: (file) => files[file],
    listDir(folder) {
      const prefix = folder.endsWith("/") ? folder : folder + "/";
      const names = new Set<string>();
      for (const file of Object.keys(files)) if (file.startsWith(prefix)) names.add(file.slice(prefix.length).split("/")[0]);
      return names.size > 0 ? [...names] : undefined;
    },
  };
}

function configurationOf(files: Record<string, string>, file: string, overrides?: ConfigurationOverrides): FileConfiguration {
  return new ProjectConfiguration({ ruleCodes: RULE_CODES, files: memoryFiles({ "/repo/.git/HEAD": "", [file]: "", ...files }) }).forFile(file, overrides);
}

function problemsOf(text: string, name = "/repo/airflow-state-lint.toml"): string[] {
  return configurationOf({ [name]: text }, "/repo/dags/a.py").problems.map((p) => describeConfigurationProblem(p, p.file.slice("/repo/".length)));
}

describe("the project configuration", () => {
  test("without a file, everything is checked with the defaults", () => {
    const configuration = configurationOf({}, "/repo/dags/a.py");
    assert.deepEqual(configuration, { configurationFile: undefined, excluded: false, lint: { ignore: [], severities: {} }, baseline: "HEAD", problems: [], airflowPin: undefined });
  });

  test("reads every key of [tool.airflow-state-lint] in pyproject.toml", () => {
    const pyproject = [
      "[project]",
      'name = "dags"',
      "[tool.airflow-state-lint]",
      'select = ["AS1", "AS3"]',
      'extend-select = ["AS501"]',
      'ignore = ["AS102"]',
      'exclude = ["dags/legacy"]',
      'baseline = "origin/main"',
      'airflow-version = "2.10.5"',
      "[tool.airflow-state-lint.per-file-ignores]",
      '"tests/**" = ["AS301"]',
      "[tool.airflow-state-lint.severity]",
      'AS101 = "info"',
    ].join("\n");
    const checked = configurationOf({ "/repo/pyproject.toml": pyproject }, "/repo/tests/test_a.py");
    assert.equal(checked.configurationFile, "/repo/pyproject.toml");
    assert.deepEqual(checked.lint, { select: ["AS1", "AS3", "AS501"], ignore: ["AS102", "AS301"], severities: { AS101: "info" } });
    assert.equal(checked.baseline, "origin/main");
    assert.deepEqual(checked.airflowPin && [checked.airflowPin.version, checked.airflowPin.below33, checked.airflowPin.source], ["2.10.5", true, { path: "/repo/pyproject.toml", line: 9 }]);
    assert.equal(checked.excluded, false);
    assert.equal(configurationOf({ "/repo/pyproject.toml": pyproject }, "/repo/dags/legacy/old.py").excluded, true);
    assert.deepEqual(configurationOf({ "/repo/pyproject.toml": pyproject }, "/repo/dags/a.py").lint.ignore, ["AS102"]);
  });

  test("the nearest file wins, and within a folder .airflow-state-lint.toml, then airflow-state-lint.toml, then pyproject.toml with the section", () => {
    const files = {
      "/repo/airflow-state-lint.toml": 'ignore = ["AS101"]',
      "/repo/dags/pyproject.toml": '[project]\nname = "no section here"',
      "/repo/dags/team/pyproject.toml": '[tool.airflow-state-lint]\nignore = ["AS102"]',
      "/repo/dags/team/airflow-state-lint.toml": 'ignore = ["AS103"]',
    };
    assert.deepEqual(configurationOf(files, "/repo/dags/a.py").lint.ignore, ["AS101"]);
    assert.deepEqual(configurationOf(files, "/repo/dags/team/a.py").lint.ignore, ["AS103"]);
    assert.deepEqual(configurationOf({ ...files, "/repo/dags/team/.airflow-state-lint.toml": 'ignore = ["AS104"]' }, "/repo/dags/team/x/a.py").lint.ignore, ["AS104"]);
  });

  test("overrides: the command line's select replaces, ignore and excludes add, and the preference decides severities", () => {
    const files = { "/repo/airflow-state-lint.toml": 'select = ["AS1"]\nexclude = ["generated"]\n[severity]\nAS101 = "info"\nAS102 = "hint"' };
    const file = "/repo/dags/a.py";
    assert.deepEqual(configurationOf(files, file, { select: ["AS2"], ignore: ["AS201"] }).lint, { select: ["AS2"], ignore: ["AS201"], severities: { AS101: "info", AS102: "hint" } });
    assert.deepEqual(configurationOf(files, file, { severities: { AS101: "error" } }).lint.severities, { AS101: "error", AS102: "hint" });
    assert.deepEqual(configurationOf(files, file, { severities: { AS101: "error" }, preference: "filesystemFirst" }).lint.severities, { AS101: "info", AS102: "hint" });
    const editorOnly = configurationOf(files, file, { severities: { AS101: "error" }, preference: "editorOnly" });
    assert.deepEqual([editorOnly.configurationFile, editorOnly.lint], [undefined, { ignore: [], severities: { AS101: "error" } }]);
    assert.equal(configurationOf(files, "/repo/generated/a.py").excluded, true);
    assert.equal(configurationOf(files, "/repo/generated/a.py", { exclude: ["other"], base: "/repo" }).excluded, false);
    assert.equal(configurationOf(files, "/repo/dags/a.py", { extendExclude: ["dags/*.py"], base: "/repo" }).excluded, true);
  });

  test("a bad file is not used, and each problem names the file, line and key", () => {
    assert.deepEqual(problemsOf('select = ["AS1"]\n\nselect = ["AS2"]'), ["airflow-state-lint.toml:3: not valid TOML: select is given twice"]);
    assert.deepEqual(problemsOf('selct = ["AS1"]'), ["airflow-state-lint.toml:1: selct: unknown key; the keys are select, extend-select, ignore, per-file-ignores, exclude, extend-exclude, severity, baseline, airflow-version"]);
    assert.deepEqual(problemsOf('ignore = "AS101"'), ['airflow-state-lint.toml:1: ignore: must be an array of strings (rule codes or prefixes, e.g. ["AS1", "AS201"]), not "AS101"']);
    assert.deepEqual(problemsOf('select = [\n  "AS101",\n  "AS999",\n]'), ['airflow-state-lint.toml:3: select: "AS999" is not a rule code or prefix of one']);
    assert.deepEqual(problemsOf('[severity]\nAS101 = "loud"\nAS998 = "off"'), [
      'airflow-state-lint.toml:2: severity.AS101: must be one of "error", "warning", "info", "hint", "off", not "loud"',
      'airflow-state-lint.toml:3: severity.AS998: "AS998" is not a rule code',
    ]);
    assert.deepEqual(problemsOf("[tool.airflow-state-lint]\nbaseline = 3", "/repo/pyproject.toml"), [
      'pyproject.toml:2: tool.airflow-state-lint.baseline: must be a git revision as a string, e.g. "HEAD" or "origin/main", not 3',
    ]);
    assert.deepEqual(problemsOf('airflow-version = ">=3.0"'), [
      'airflow-state-lint.toml:1: airflow-version: ">=3.0" does not cap the version, so it says nothing AS501 and AS502 could use; give a version ("2.10.5") or an upper bound ("<3.3")',
    ]);
    assert.deepEqual(problemsOf('[per-file-ignores]\n"tests/[x" = ["AS1"]'), ['airflow-state-lint.toml:2: per-file-ignores."tests/[x": "tests/[x" is not a glob pattern (empty, or a bracket or brace does not close)']);
    const bad = configurationOf({ "/repo/airflow-state-lint.toml": 'select = ["AS999"]\nignore = ["AS101"]' }, "/repo/a.py");
    assert.deepEqual([bad.configurationFile, bad.lint], ["/repo/airflow-state-lint.toml", { ignore: [], severities: {} }]);
  });

  test("a pyproject.toml that is not TOML is reported only when it has the section", () => {
    assert.deepEqual(problemsOf('[project\nname = "x"', "/repo/pyproject.toml"), []);
    assert.deepEqual(problemsOf('[tool.airflow-state-lint]\nselect = ["AS1"\n', "/repo/pyproject.toml"), ["pyproject.toml:3: not valid TOML: expected , or ] in an array"]);
  });

  test("invalidate drops a changed configuration file", () => {
    const files: Record<string, string> = { "/repo/.git/HEAD": "", "/repo/a.py": "", "/repo/airflow-state-lint.toml": 'ignore = ["AS101"]' };
    const configuration = new ProjectConfiguration({ ruleCodes: RULE_CODES, files: memoryFiles(files) });
    assert.deepEqual(configuration.forFile("/repo/a.py").lint.ignore, ["AS101"]);
    files["/repo/airflow-state-lint.toml"] = 'ignore = ["AS102"]';
    assert.deepEqual(configuration.forFile("/repo/a.py").lint.ignore, ["AS101"], "read once");
    assert.equal(configuration.invalidate("/repo/airflow-state-lint.toml"), true);
    assert.deepEqual(configuration.forFile("/repo/a.py").lint.ignore, ["AS102"]);
  });
});

describe("configuration globs", () => {
  const matches = (pattern: string, file: string) => globMatches(compileGlob(pattern)!, file);
  test("anchored patterns match from the configuration's folder, plain names anywhere", () => {
    assert.ok(matches("dags/legacy", "dags/legacy/old.py"));
    assert.ok(!matches("dags/legacy", "other/dags/legacy/old.py"));
    assert.ok(matches("tests", "a/tests/test_x.py"));
    assert.ok(matches("*_test.py", "a/b/x_test.py"));
    assert.ok(matches("**/generated/*.py", "generated/x.py"));
    assert.ok(matches("**/generated/*.py", "a/b/generated/x.py"));
    assert.ok(!matches("dags/*.py", "dags/sub/x.py"));
    assert.ok(matches("dags/**", "dags/sub/x.py"));
    assert.ok(matches("dags/{a,b}.py", "dags/b.py"));
    assert.ok(matches("dags/[!x]*.py", "dags/y.py") && !matches("dags/[!x]*.py", "dags/x.py"));
    assert.ok(matches("./dags/a?.py", "dags/ab.py"));
    assert.equal(compileGlob(""), undefined);
    assert.equal(compileGlob("{a,b"), undefined);
  });
});
