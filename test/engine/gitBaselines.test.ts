/**
 * GitBaselines against real temporary git repositories: committed texts read through one
 * `git cat-file --batch` per repository, and every way of having no baseline.
 */
import assert from "node:assert/strict";
import { ChildProcessWithoutNullStreams, execFile, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { BatchSpawner, committedText, GitBaselines, GitRunner, MAX_BASELINE_BYTES } from "../../server/src/engine/project/git";
import { git } from "../support/git";
import { fromRoot } from "../support/paths";
import { TempFolder } from "../support/tempFolder";

const folders: TempFolder[] = [];
after(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

/** A repository holding `files`, committed. */
function repository(files: Record<string, string>): TempFolder {
  const folder = new TempFolder("git-baselines-");
  folders.push(folder);
  for (const [relative, text] of Object.entries(files)) folder.write(relative, text);
  git(folder.root, "init", "-q", "--template=");
  git(folder.root, "add", ".");
  git(folder.root, "commit", "-q", "-m", "committed");
  return folder;
}

/** The real spawner, counting the processes it starts and keeping them for inspection. */
function countingSpawner(): { spawnBatch: BatchSpawner; started: ChildProcessWithoutNullStreams[] } {
  const started: ChildProcessWithoutNullStreams[] = [];
  return {
    started,
    spawnBatch: (top) => {
      const child = spawn("git", ["cat-file", "--batch"], { cwd: top, stdio: ["pipe", "pipe", "pipe"] });
      started.push(child);
      return child;
    },
  };
}

describe("GitBaselines", () => {
  test("reads the committed text, not the working tree's, multi-byte characters included", async () => {
    const committed = `# Größe: 😀\n${"x = 'ü'\n".repeat(20_000)}`;
    const repo = repository({ "dags/a.py": committed });
    fs.writeFileSync(repo.file("dags/a.py"), "changed = True\n");
    const baselines = new GitBaselines();
    try {
      assert.equal(await baselines.committedText(repo.file("dags/a.py")), committed);
    } finally {
      baselines.dispose();
    }
  });

  test("an untracked file, an unknown revision and a file outside any repository have no baseline", async () => {
    const repo = repository({ "a.py": "a = 1\n" });
    repo.write("untracked.py", "b = 2\n");
    const outside = new TempFolder("git-baselines-outside-");
    folders.push(outside);
    outside.write("c.py", "c = 3\n");
    const baselines = new GitBaselines();
    try {
      assert.equal(await baselines.committedText(repo.file("untracked.py")), undefined);
      assert.equal(await baselines.committedText(repo.file("a.py"), "no-such-branch"), undefined);
      assert.equal(await baselines.committedText(outside.file("c.py")), undefined);
      assert.equal(await baselines.committedText(repo.file("missing.py")), undefined);
      // The process is still in step after those answers.
      assert.equal(await baselines.committedText(repo.file("a.py")), "a = 1\n");
    } finally {
      baselines.dispose();
    }
  });

  test("a folder that becomes a repository later is asked about again", async () => {
    const folder = new TempFolder("git-baselines-later-");
    folders.push(folder);
    folder.write("a.py", "later = 1\n");
    const baselines = new GitBaselines();
    try {
      assert.equal(await baselines.committedText(folder.file("a.py")), undefined);
      git(folder.root, "init", "-q", "--template=");
      git(folder.root, "add", ".");
      git(folder.root, "commit", "-q", "-m", "now a repository");
      assert.equal(await baselines.committedText(folder.file("a.py")), "later = 1\n");
    } finally {
      baselines.dispose();
    }
  });

  test("files outside any repository are answered without starting git, until the folder becomes one", async () => {
    const folder = new TempFolder("git-baselines-outside-many-");
    folders.push(folder);
    const files = Array.from({ length: 12 }, (_, i) => `dags/team_${i % 3}/f${i}.py`);
    for (const file of files) folder.write(file, `f = ${file.length}\n`);
    const asked: string[] = [];
    const runGit: GitRunner = (args, cwd, timeoutMs) => {
      asked.push(cwd);
      return new Promise((resolve) => execFile("git", args, { cwd, timeout: timeoutMs }, (error, stdout) => resolve(error ? undefined : stdout)));
    };
    const baselines = new GitBaselines({ runGit });
    try {
      for (const file of files) assert.equal(await baselines.committedText(folder.file(file)), undefined);
      assert.deepEqual(asked, [], "no folder above these files holds a .git");
      git(folder.root, "init", "-q", "--template=");
      git(folder.root, "add", ".");
      git(folder.root, "commit", "-q", "-m", "now a repository");
      assert.equal(await baselines.committedText(folder.file(files[0])), `f = ${files[0].length}\n`);
      assert.equal(await baselines.committedText(folder.file(files[5])), `f = ${files[5].length}\n`);
      assert.equal(asked.length, 1, `one git process asked for the top level: ${asked.join(", ")}`);
    } finally {
      baselines.dispose();
    }
  });

  test("many files of one repository are served by one process, answered in order", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`dags/sub${i % 4}/f${i}.py`] = `value = ${i}\n${"#".repeat(i * 97)}\n`;
    const repo = repository(files);
    const { spawnBatch, started } = countingSpawner();
    const baselines = new GitBaselines({ spawnBatch });
    try {
      const texts = await Promise.all(Object.keys(files).map((relative) => baselines.committedText(repo.file(relative))));
      assert.deepEqual(texts, Object.values(files));
      assert.equal(started.length, 1);
    } finally {
      baselines.dispose();
    }
  });

  test("two repositories in one run get a process each", async () => {
    const first = repository({ "a.py": "first = 1\n" });
    const second = repository({ "a.py": "second = 2\n" });
    const { spawnBatch, started } = countingSpawner();
    const baselines = new GitBaselines({ spawnBatch });
    try {
      const [a, b] = await Promise.all([baselines.committedText(first.file("a.py")), baselines.committedText(second.file("a.py"))]);
      assert.equal(a, "first = 1\n");
      assert.equal(b, "second = 2\n");
      assert.equal(started.length, 2);
    } finally {
      baselines.dispose();
    }
  });

  test("a repository nested in another's folder answers for its own files", async () => {
    const outer = repository({ "dags/a.py": "outer = 1\n", "dags/deep/b.py": "outer_deep = 1\n" });
    const inner = path.join(outer.root, "dags", "vendored");
    fs.mkdirSync(path.join(inner, "deep"), { recursive: true });
    fs.writeFileSync(path.join(inner, "deep", "c.py"), "inner = 1\n");
    git(inner, "init", "-q", "--template=");
    git(inner, "add", ".");
    git(inner, "commit", "-q", "-m", "inner");
    const { spawnBatch, started } = countingSpawner();
    const baselines = new GitBaselines({ spawnBatch });
    try {
      // The outer repository is asked about first, so its folders are known before the inner one's.
      assert.equal(await baselines.committedText(outer.file("dags/a.py")), "outer = 1\n");
      assert.equal(await baselines.committedText(outer.file("dags/deep/b.py")), "outer_deep = 1\n");
      assert.equal(await baselines.committedText(path.join(inner, "deep", "c.py")), "inner = 1\n");
      assert.equal(started.length, 2);
    } finally {
      baselines.dispose();
    }
  });

  test("a path through a symbolic link reads the file it points to", async () => {
    const repo = repository({ "dags/a.py": "linked = 1\n" });
    const elsewhere = new TempFolder("git-baselines-link-");
    folders.push(elsewhere);
    fs.symlinkSync(repo.file("dags"), elsewhere.file("dags"));
    const baselines = new GitBaselines();
    try {
      assert.equal(await baselines.committedText(path.join(elsewhere.root, "dags", "a.py")), "linked = 1\n");
    } finally {
      baselines.dispose();
    }
  });

  test("a revision that starts with a dash is refused without starting git", async () => {
    const repo = repository({ "a.py": "a = 1\n" });
    const { spawnBatch, started } = countingSpawner();
    const baselines = new GitBaselines({ spawnBatch });
    try {
      assert.equal(await baselines.committedText(repo.file("a.py"), "--all"), undefined);
      assert.equal(await baselines.committedText(repo.file("a.py"), " "), undefined);
      assert.equal(started.length, 0);
    } finally {
      baselines.dispose();
    }
  });

  test("the one-off reader refuses a revision that git would take for `--output`, and writes nothing", async () => {
    const repo = repository({ "a.py": "a = 1\n" });
    const target = path.join(repo.root, "written-by-git");
    assert.equal(await committedText(repo.file("a.py"), `--output=${target}`), undefined);
    assert.equal(await committedText(repo.file("a.py"), "-p"), undefined);
    assert.equal(fs.existsSync(target), false);
    assert.equal(await committedText(repo.file("a.py")), "a = 1\n");
  });

  test("a path with a newline, which the batch protocol cannot carry, is read with git show", async () => {
    const repo = repository({ "odd\nname.py": "odd = 1\n", "plain.py": "plain = 1\n" });
    const { spawnBatch, started } = countingSpawner();
    const baselines = new GitBaselines({ spawnBatch });
    try {
      assert.equal(await baselines.committedText(repo.file("odd\nname.py")), "odd = 1\n");
      assert.equal(started.length, 0);
      assert.equal(await baselines.committedText(repo.file("plain.py")), "plain = 1\n");
    } finally {
      baselines.dispose();
    }
  });

  test("a blob over the size limit has no baseline, and the next file is still read", async () => {
    const large = "#".repeat(MAX_BASELINE_BYTES + 10) + "\n";
    const repo = repository({ "large.py": large, "small.py": "small = 1\n" });
    const baselines = new GitBaselines();
    try {
      const [big, small] = await Promise.all([baselines.committedText(repo.file("large.py")), baselines.committedText(repo.file("small.py"))]);
      assert.equal(big, undefined);
      assert.equal(small, "small = 1\n");
    } finally {
      baselines.dispose();
    }
  });

  test("a folder is not a file: no baseline", async () => {
    const repo = repository({ "dags/a.py": "a = 1\n" });
    fs.mkdirSync(repo.file("dags/inner.py"));
    const baselines = new GitBaselines();
    try {
      // git sees no `inner.py`; `dags` itself is a tree, whose listing is no file's text.
      assert.equal(await baselines.committedText(repo.file("dags/inner.py")), undefined);
      assert.equal(await baselines.committedText(repo.file("dags/a.py")), "a = 1\n");
    } finally {
      baselines.dispose();
    }
  });

  test("a process that dies answers no baseline and is reported once", async () => {
    const repo = repository({ "a.py": "a = 1\n", "b.py": "b = 2\n" });
    const problems: string[] = [];
    // An option cat-file does not know: git prints its usage and exits at once.
    const dying: BatchSpawner = (top) => spawn("git", ["cat-file", "--no-such-option"], { cwd: top, stdio: ["pipe", "pipe", "pipe"] });
    const baselines = new GitBaselines({ spawnBatch: dying, onProblem: (message) => problems.push(message) });
    try {
      assert.equal(await baselines.committedText(repo.file("a.py")), undefined);
      assert.equal(await baselines.committedText(repo.file("b.py")), undefined);
      assert.equal(problems.length, 1);
      assert.match(problems[0], /git cat-file exited with status \d+/);
      assert.ok(problems[0].includes(repo.root));
    } finally {
      baselines.dispose();
    }
  });

  test("a process that does not answer in time is given up: no baseline", async () => {
    const repo = repository({ "a.py": "a = 1\n" });
    const problems: string[] = [];
    const silent: BatchSpawner = () => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: ["pipe", "pipe", "pipe"] });
    const baselines = new GitBaselines({ spawnBatch: silent, timeoutMs: 200, onProblem: (message) => problems.push(message) });
    try {
      assert.equal(await baselines.committedText(repo.file("a.py")), undefined);
      assert.equal(problems.length, 1);
      assert.match(problems[0], /did not answer within 200 ms/);
    } finally {
      baselines.dispose();
    }
  });

  test("dispose ends the processes, and later reads have no baseline", async () => {
    const repo = repository({ "a.py": "a = 1\n" });
    const { spawnBatch, started } = countingSpawner();
    const baselines = new GitBaselines({ spawnBatch });
    assert.equal(await baselines.committedText(repo.file("a.py")), "a = 1\n");
    baselines.dispose();
    // Sent the signal; the idle process holds no handle that would let a test wait for its exit.
    assert.equal(started[0].killed, true);
    assert.equal(await baselines.committedText(repo.file("a.py")), undefined);
    assert.equal(started.length, 1);
  });

  test("an idle process does not keep node running, even when nobody disposes it", () => {
    const repo = repository({ "a.py": "a = 1\n" });
    const script = `
      const { GitBaselines } = require(${JSON.stringify(fromRoot("out", "server", "src", "engine", "project", "git.js"))});
      new GitBaselines().committedText(${JSON.stringify(repo.file("a.py"))}).then((text) => process.stdout.write(String(text)));
    `;
    const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
    assert.equal(result.error, undefined);
    assert.equal(result.status, 0);
    assert.equal(result.stdout, "a = 1\n");
  });
});

