/**
 * AS301 against a real git repository: the baseline comes from `committedText` (git show HEAD:path),
 * exactly as the CLI and the language server obtain it.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { applyEdits, Diagnostic, lint, PythonDocument } from "../../server/src/engine";
import { committedText } from "../../server/src/engine/project/git";
import { git, resumableOperator } from "../support/git";

const OPERATOR = resumableOperator("BatchOperator", "batch_job_id");

const RENAMED = OPERATOR.replace(`"batch_job_id"`, `"batch_run_id"`);

/** The operator without an `external_id_key`: it stores its job ids under the mixin's default key. */
const DEFAULT_KEY_OPERATOR = resumableOperator("BatchOperator");


/** Lints a file on disk against its committed text, as the CLI does. */
async function lintAgainstHead(file: string): Promise<{ text: string; diagnostics: Diagnostic[] }> {
  const text = fs.readFileSync(file, "utf8");
  const baselineText = await committedText(file);
  return { text, diagnostics: lint(new PythonDocument(`file://${file}`, text), { baselineText, path: file, select: ["AS301"] }) };
}

describe("AS301 with a real git repository", () => {
  const temporary: string[] = [];
  let repository: string;
  let dags: string;

  const makeTemporaryDirectory = () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "as301-"));
    temporary.push(directory);
    return directory;
  };

  before(() => {
    repository = makeTemporaryDirectory();
    dags = path.join(repository, "dags");
    fs.mkdirSync(dags);
    git(repository, "init", "-q", "--template=");
    git(repository, "config", "user.email", "tests@example.invalid");
    git(repository, "config", "user.name", "Tests");
    fs.writeFileSync(path.join(dags, "batch.py"), OPERATOR);
    fs.writeFileSync(path.join(dags, "unchanged.py"), OPERATOR);
    fs.writeFileSync(path.join(dags, "default.py"), DEFAULT_KEY_OPERATOR);
    git(repository, "add", ".");
    git(repository, "commit", "-q", "-m", "Deploy the batch operator");
  });

  after(() => {
    for (const directory of temporary) fs.rmSync(directory, { recursive: true, force: true });
  });

  test("a renamed key is reported on its string, and the fix restores the committed one", async () => {
    const file = path.join(dags, "batch.py");
    fs.writeFileSync(file, RENAMED);
    const { text, diagnostics } = await lintAgainstHead(file);
    assert.equal(diagnostics.length, 1);
    const [diagnostic] = diagnostics;
    assert.equal(diagnostic.code, "AS301");
    assert.equal(diagnostic.severity, "warning");
    assert.equal(text.slice(diagnostic.startOffset, diagnostic.endOffset), `"batch_run_id"`);
    assert.deepEqual(diagnostic.range.start, { line: 4, character: 22 });
    assert.match(diagnostic.message, /committed key `batch_job_id`/);
    assert.match(diagnostic.message, /duplicate job/);
    assert.ok(diagnostic.fix);
    assert.equal(diagnostic.fix.safe, false);
    const fixed = applyEdits(text, diagnostic.fix.edits);
    assert.equal(fixed, OPERATOR);
    assert.deepEqual(lint(new PythonDocument(`file://${file}`, fixed), { baselineText: await committedText(file), select: ["AS301"] }), []);
  });

  test("a class that used the mixin's default and now sets its own key is reported, and the fix writes the default", async () => {
    assert.notEqual(DEFAULT_KEY_OPERATOR, OPERATOR);
    const file = path.join(dags, "default.py");
    fs.writeFileSync(file, OPERATOR);
    try {
      const { text, diagnostics } = await lintAgainstHead(file);
      assert.equal(diagnostics.length, 1);
      const [diagnostic] = diagnostics;
      assert.equal(text.slice(diagnostic.startOffset, diagnostic.endOffset), `"batch_job_id"`);
      assert.deepEqual(diagnostic.range.start, { line: 4, character: 22 });
      assert.match(diagnostic.message, /committed key `remote_job_id` \(the mixin's default\)/);
      assert.match(diagnostic.message, /nothing under `batch_job_id`/);
      assert.ok(diagnostic.fix);
      assert.equal(diagnostic.fix.safe, false);
      const fixed = applyEdits(text, diagnostic.fix.edits);
      assert.equal(fixed, OPERATOR.replace(`"batch_job_id"`, `"remote_job_id"`));
      assert.deepEqual(lint(new PythonDocument(`file://${file}`, fixed), { baselineText: await committedText(file), select: ["AS301"] }), []);
    } finally {
      fs.writeFileSync(file, DEFAULT_KEY_OPERATOR);
    }
  });

  test("a removed key is reported on the class name, and the fix sets the committed key again", async () => {
    const file = path.join(dags, "batch.py");
    fs.writeFileSync(file, DEFAULT_KEY_OPERATOR);
    const { text, diagnostics } = await lintAgainstHead(file);
    assert.equal(diagnostics.length, 1);
    const [diagnostic] = diagnostics;
    assert.equal(text.slice(diagnostic.startOffset, diagnostic.endOffset), "BatchOperator");
    assert.deepEqual(diagnostic.range.start, { line: 3, character: 6 });
    assert.match(diagnostic.message, /committed key `batch_job_id`/);
    assert.match(diagnostic.message, /nothing under `remote_job_id` \(now the mixin's default\)/);
    assert.ok(diagnostic.fix);
    assert.equal(diagnostic.fix.safe, false);
    assert.equal(applyEdits(text, diagnostic.fix.edits), OPERATOR);
  });

  test("an unchanged default key is silent", async () => {
    assert.deepEqual((await lintAgainstHead(path.join(dags, "default.py"))).diagnostics, []);
  });

  test("the rename is compared with the requested revision", async () => {
    const file = path.join(dags, "batch.py");
    fs.writeFileSync(file, RENAMED);
    git(repository, "commit", "-q", "-am", "Rename the key");
    try {
      // Committed now: HEAD agrees with the working tree, HEAD~1 still has the deployed key.
      assert.deepEqual((await lintAgainstHead(file)).diagnostics, []);
      const previous = await committedText(file, "HEAD~1");
      const diagnostics = lint(new PythonDocument(`file://${file}`, RENAMED), { baselineText: previous, select: ["AS301"] });
      assert.deepEqual(diagnostics.map((d) => d.range.start.line), [4]);
    } finally {
      git(repository, "reset", "-q", "--hard", "HEAD~1");
    }
  });

  test("a file that did not change is silent", async () => {
    const { diagnostics } = await lintAgainstHead(path.join(dags, "unchanged.py"));
    assert.deepEqual(diagnostics, []);
  });

  test("an untracked file is silent", async () => {
    const file = path.join(dags, "untracked.py");
    fs.writeFileSync(file, RENAMED);
    assert.equal(await committedText(file), undefined);
    assert.deepEqual((await lintAgainstHead(file)).diagnostics, []);
  });

  test("a class that is not in the committed version is silent", async () => {
    const file = path.join(dags, "batch.py");
    fs.writeFileSync(file, RENAMED.replace("class BatchOperator(", "class NightlyBatchOperator("));
    assert.deepEqual((await lintAgainstHead(file)).diagnostics, []);
  });

  test("a file outside any git repository is silent", async () => {
    const file = path.join(makeTemporaryDirectory(), "batch.py");
    fs.writeFileSync(file, RENAMED);
    assert.equal(await committedText(file), undefined);
    assert.deepEqual((await lintAgainstHead(file)).diagnostics, []);
  });
});
