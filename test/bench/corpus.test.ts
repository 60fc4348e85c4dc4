/** The benchmark corpus is deterministic and has the mix of a real DAG repository. */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { parsePython } from "../../server/src/engine/syntax/parser";
import { TempFolder } from "../support/tempFolder";
import { CorpusFile, DEFAULT_CORPUS, generateCorpus, writeCorpus } from "./corpus";

function pythonFiles(dir: string, root = dir): { path: string; text: string }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return pythonFiles(full, root);
      return entry.name.endsWith(".py") ? [{ path: path.relative(root, full).split(path.sep).join("/"), text: fs.readFileSync(full, "utf8") }] : [];
    });
}

function digest(files: { path: string; text: string }[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) hash.update(`${file.path}\0${file.text}\0`);
  return hash.digest("hex");
}

function share(files: { text: string }[], matches: (text: string) => boolean): number {
  return files.filter((file) => matches(file.text)).length / files.length;
}

describe("benchmark corpus", () => {
  const folder = new TempFolder("corpus-test-");
  let manifest: CorpusFile[];
  let onDisk: { path: string; text: string }[];

  before(() => {
    manifest = writeCorpus(folder.root, DEFAULT_CORPUS);
    onDisk = pythonFiles(folder.root);
  });
  after(() => folder.remove());

  it("writes the same files for the same seed, and other files for another seed", () => {
    assert.equal(digest(onDisk), digest(generateCorpus(DEFAULT_CORPUS)));
    const small = { seed: DEFAULT_CORPUS.seed, files: 200 };
    assert.equal(digest(generateCorpus(small)), digest(generateCorpus(small)));
    assert.notEqual(digest(generateCorpus(small)), digest(generateCorpus({ ...small, seed: small.seed + 1 })));
  });

  it("holds at least 4,000 Python files, laid out as a DAG repository", () => {
    assert.ok(onDisk.length >= 4000, `${onDisk.length} files`);
    assert.equal(onDisk.length, manifest.length);
    for (const folderName of ["dags/", "include/", "plugins/", "tests/"]) assert.ok(onDisk.some((f) => f.path.startsWith(folderName)), folderName);
    assert.ok(onDisk.some((f) => /^dags\/[a-z_]+\/[^/]+\.py$/.test(f.path)), "dags/<team>/");
    assert.ok(fs.readFileSync(folder.file("requirements.txt"), "utf8").includes("apache-airflow==3.3"));
  });

  it("is mostly DAGs without a state store, with a minority using stores and mixin operators", () => {
    const stores = share(onDisk, (text) => /\b(task_state_store|asset_state_store)\b/.test(text));
    const mixins = share(onDisk, (text) => /class \w+\((\w+, )?ResumableJobMixin/.test(text) && text.includes("external_id_key"));
    const dags = share(onDisk, (text) => /\bwith DAG\(|@dag\(/.test(text));
    assert.ok(stores >= 0.05 && stores <= 0.15, `store users: ${stores}`);
    assert.ok(mixins >= 0.01 && mixins <= 0.06, `mixin operator modules: ${mixins}`);
    assert.ok(dags >= 0.6, `DAG files: ${dags}`);
    assert.ok(share(onDisk, (text) => !/\b(task_state_store|asset_state_store|ResumableJobMixin)\b/.test(text)) >= 0.8);
    for (const api of ["Variable.get(", "xcom_push(", "xcom_pull(", "datetime.utcnow()", "TaskGroup(", ".expand(", '"retries":', "@task", "from airflow.sdk import", "from airflow import DAG"]) {
      assert.ok(onDisk.some((f) => f.text.includes(api)), api);
    }
  });

  it("has helper modules without Airflow and pytest files", () => {
    assert.ok(share(onDisk, (text) => !text.includes("airflow")) >= 0.05);
    assert.ok(onDisk.filter((f) => /^tests\/.*test_[^/]+\.py$/.test(f.path) && f.text.includes("def test_")).length / onDisk.length >= 0.05);
  });

  it("varies sizes as real repositories do: mostly 30 to 600 lines, a few over 2,000", () => {
    const lines = onDisk.map((f) => f.text.split("\n").length);
    assert.ok(lines.filter((n) => n >= 30 && n <= 600).length / lines.length >= 0.95);
    assert.ok(lines.filter((n) => n >= 2000).length >= 3);
  });

  it("has about 1% files that do not parse; the others parse cleanly", () => {
    const unparseable = manifest.filter((f) => f.kind === "unparseable");
    assert.ok(unparseable.length / manifest.length >= 0.005 && unparseable.length / manifest.length <= 0.02);
    for (const file of unparseable) assert.ok(parsePython(file.text).rootNode.hasError, file.path);
    // A sample of the rest, every kind included, keeps the test fast.
    const parseable = manifest.filter((f) => f.kind !== "unparseable");
    const sample = parseable.filter((_, index) => index % 20 === 0);
    for (const kind of new Set(parseable.map((f) => f.kind))) sample.push(parseable.find((f) => f.kind === kind)!);
    for (const file of sample) assert.ok(!parsePython(file.text).rootNode.hasError, file.path);
  });
});
