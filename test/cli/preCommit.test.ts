/**
 * The pre-commit hook: `.pre-commit-hooks.yaml` declares it as the README shows, the package builds
 * the CLI when pre-commit installs it (no build step beforehand), and the hook's entry, run on the
 * staged Python files of a temporary git repository as pre-commit runs it, fails on findings and
 * passes once they are fixed, with the repository's configuration.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromRoot } from "../support/paths";
import { CLI, makeTree, removeTrees } from "./harness";

after(removeTrees);

const manifest = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")) as { bin: Record<string, string>; scripts: Record<string, string> };

/** The hook's keys, read from the one-hook list `.pre-commit-hooks.yaml` holds (flat `key: value` lines). */
function hookDefinition(): Record<string, string> {
  const text = fs.readFileSync(fromRoot(".pre-commit-hooks.yaml"), "utf8");
  const hook: Record<string, string> = {};
  for (const match of text.matchAll(/^(?:- |  )([a-z_]+): (.*)$/gm)) hook[match[1]] = match[2].trim();
  return hook;
}

const DATETIME_DAG = `from datetime import datetime, timezone
from airflow.sdk import task


@task
def save(task_state_store=None):
    task_state_store.set("at", datetime.now(tz=timezone.utc))
`;

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

/** What pre-commit does for a hook with `types: [python]`: the staged (added, copied, modified, renamed) Python files, appended to the entry. */
function runHook(repo: string): { status: number | null; stdout: string } {
  const hook = hookDefinition();
  const staged = git(repo, "diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z").split("\0").filter((file) => file.endsWith(".py"));
  const [command, ...entryArgs] = hook.entry.split(" ");
  // The entry names the package's bin, which the hook's environment puts on the PATH.
  assert.ok(manifest.bin[command], `${command} is not a bin of the package`);
  const result = spawnSync(process.execPath, [CLI, ...entryArgs, ...staged], { cwd: repo, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout };
}

describe("the pre-commit hook", () => {
  test("is declared as a node hook for Python files, named as the README shows it", () => {
    const hook = hookDefinition();
    assert.deepEqual([hook.id, hook.entry, hook.language, hook.types], ["airflow-state-lint", "airflow-state-lint", "node", "[python]"]);
    assert.equal(manifest.bin["airflow-state-lint"], "./dist/cli.js");
    const readme = fs.readFileSync(fromRoot("README.md"), "utf8");
    assert.match(readme, /- id: airflow-state-lint\n/);
    assert.match(readme, /- repo: local\n\s+hooks:\n\s+- id: airflow-state-lint\n\s+name: airflow-state-lint\n\s+entry: npx airflow-state-lint\n\s+language: system\n\s+types: \[python\]/);
  });

  test("the install builds the CLI from a clean clone, and the installed package does not try to", () => {
    const postinstall = manifest.scripts.postinstall;
    assert.match(postinstall, /esbuild\.mjs/);
    assert.equal(manifest.scripts.prepare, undefined, "npm 10+ prints a prepare banner into the npm pack output pre-commit 3.x reads");
    // In a folder without the build script (the installed package), the script succeeds and writes nothing.
    const installed = makeTree({ "package.json": "{}" });
    const script = /^node -e "(.*)"$/.exec(postinstall)![1];
    const result = spawnSync(process.execPath, ["-e", script], { cwd: installed, encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(fs.readdirSync(installed), ["package.json"]);
  });

  test("its entry, on the staged Python files of a repository, fails on findings and passes once they are fixed", () => {
    const repo = makeTree({
      "dags/a.py": DATETIME_DAG,
      "dags/b.py": "print('no airflow')\n",
      "dags/unstaged.py": DATETIME_DAG,
      "dags/generated/gen.py": DATETIME_DAG,
      "notes.md": "not Python\n",
      "pyproject.toml": '[tool.airflow-state-lint]\nexclude = ["dags/generated"]\n',
    });
    git(repo, "init", "-q");
    git(repo, "add", "dags/a.py", "dags/b.py", "dags/generated/gen.py", "notes.md", "pyproject.toml");
    const failing = runHook(repo);
    assert.equal(failing.status, 1);
    assert.match(failing.stdout, /^dags\/a\.py:7:32: AS101 /m);
    assert.doesNotMatch(failing.stdout, /unstaged|gen\.py/, "unstaged and excluded files are not checked");

    fs.writeFileSync(path.join(repo, "dags/a.py"), DATETIME_DAG.replace("timezone.utc))", "timezone.utc).isoformat())"));
    git(repo, "add", "dags/a.py");
    const passing = runHook(repo);
    assert.deepEqual([passing.status, passing.stdout], [0, "All checks passed!\n"]);
  });
});
