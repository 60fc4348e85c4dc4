/** Editing an entry as a document: what saving sends (PATCH, or PUT when the expiry changes) and what stops it. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AirflowClient, ForbiddenError, UnprocessableEntityError } from "../../client/src/rest";
import {
  addressOfPath,
  entryPath,
  EntryDocumentError,
  expiryToken,
  planSave,
  readEntry,
  renderEntryDocument,
  saveEntry,
  type EntryAddress,
} from "../../client/src/storeBrowser/entryDocument";
import { plain, taskStorePath } from "../rest/helpers";
import { DEMO, emulatorFor } from "./helpers";

const NOW = new Date("2026-05-03T12:00:00Z");
const LLM: EntryAddress = { store: "task", env: "local", dagId: DEMO.llm.dagId, runId: DEMO.llm.run, taskId: DEMO.llm.taskId, mapIndex: -1, key: "progress 100%" };
const SPARK: EntryAddress = { store: "task", env: "local", dagId: DEMO.spark.dagId, runId: DEMO.spark.run, taskId: DEMO.spark.taskId, mapIndex: -1, key: "spark_job_id" };
const ORDERS_ASSET: EntryAddress = { store: "asset", env: "local", assetId: DEMO.assets.orders, assetName: "orders/daily", key: "watermark" };

function admin(url: string, maxValueLength?: number): AirflowClient {
  return new AirflowClient({ baseUrl: url, auth: { kind: "token", token: "emulator-admin-token" }, timeoutMs: 5000, maxValueLength });
}

/** The document of an entry with its value replaced. */
function edited(text: string, newValue: string, expiry?: string): string {
  const lines = text.split("\n");
  const header = lines.filter((l) => l.startsWith("//")).map((l) => (expiry !== undefined && l.startsWith("// expires_at:") ? `// expires_at: ${expiry}` : l));
  return `${header.join("\n")}\n${newValue}\n`;
}

describe("entry documents: rendering and planning", () => {
  it("renders a header with the task instance and expiry, then the value as indented JSON", () => {
    const text = renderEntryDocument(LLM, { key: "progress 100%", value: { completed: 3 }, updated_at: "2026-05-03T07:40:00Z", expires_at: null });
    assert.equal(
      text,
      [
        "// Airflow task state store · local",
        `// llm_batch_scoring / ${DEMO.llm.run} / score_batch`,
        "// key: progress 100%",
        '// Saving sends the value below to Airflow. Change expires_at to "default", "never" or a date-time',
        "// with a time zone (e.g. 2026-06-01T00:00:00Z) to set a new expiry as well.",
        "// expires_at: never",
        "{",
        '  "completed": 3',
        "}",
        "",
      ].join("\n"),
    );
  });

  it("an unchanged expiry line means PATCH; a changed one means PUT with that expiry", () => {
    const text = renderEntryDocument(SPARK, { key: "spark_job_id", value: "a", updated_at: "2026-05-03T02:00:41Z", expires_at: "2026-06-01T00:00:00.000Z" });
    const token = "2026-06-01T00:00:00.000Z";
    assert.deepEqual(planSave(SPARK, edited(text, '"b"'), token, 65535, NOW), { method: "PATCH", value: "b" });
    assert.deepEqual(planSave(SPARK, edited(text, '"b"', "never"), token, 65535, NOW), { method: "PUT", value: "b", expiresAt: null });
    assert.deepEqual(planSave(SPARK, edited(text, '"b"', "default"), token, 65535, NOW), { method: "PUT", value: "b", expiresAt: "default" });
    assert.deepEqual(planSave(SPARK, edited(text, '"b"', "2026-07-01T00:00:00Z"), token, 65535, NOW), { method: "PUT", value: "b", expiresAt: "2026-07-01T00:00:00Z" });
    // A removed expiry line leaves the expiry alone.
    assert.deepEqual(planSave(SPARK, '"c"', token, 65535, NOW), { method: "PATCH", value: "c" });
    // Asset entries have no expiry and no PATCH.
    assert.deepEqual(planSave(ORDERS_ASSET, '// asset\n"2026-05-03"', undefined, 65535, NOW), { method: "PUT", value: "2026-05-03" });
  });

  it("refuses values the server would reject, naming the problem", () => {
    const header = "// expires_at: never\n";
    const fails = (text: string, pattern: RegExp, max = 65535) =>
      assert.throws(() => planSave(SPARK, header + text, "never", max, NOW), (e: unknown) => e instanceof EntryDocumentError && pattern.test(e.message));
    fails("null", /cannot be null/);
    fails('{"rate": NaN}', /NaN \(line 2, column 10\) is not allowed/);
    fails('{\n  "a": 1,,\n}', /not valid JSON: .* at line 3, column 10$/);
    fails('{"a": 1} // note', /Comments \("\/\/"\) are allowed only above the value/);
    fails('"' + "x".repeat(20) + '"', /22 characters, over the limit of 10/, 10);
    fails("", /not valid JSON/);
    assert.throws(() => planSave(SPARK, "// expires_at: 2020-01-01T00:00:00Z\n1", "never", 65535, NOW), /expires_at: .*already passed/);
    assert.throws(() => planSave(SPARK, "// expires_at: soon\n1", "never", 65535, NOW), /expires_at: .*Use "default", "never" or a date-time/);
  });

  it("names the entry in a readable path that reads back exactly", () => {
    const slashy: EntryAddress = { ...LLM, key: "input_file/s3://ml-bucket/batches/100%.jsonl" };
    assert.equal(entryPath(slashy), `/local/llm_batch_scoring/${DEMO.llm.run}/score_batch/input_file%2Fs3:%2F%2Fml-bucket%2Fbatches%2F100%25.jsonl.jsonc`);
    for (const address of [slashy, LLM, ORDERS_ASSET, { ...SPARK, mapIndex: 3 }, { ...SPARK, key: "k.jsonc" }, { ...ORDERS_ASSET, assetName: "a b/c" }, { ...SPARK, env: "prod/eu" }]) {
      assert.deepEqual(addressOfPath(entryPath(address)), address);
    }
    assert.equal(entryPath({ ...SPARK, mapIndex: 3 }).includes("/submit_spark_job[3]/"), true);
    assert.equal(entryPath(ORDERS_ASSET), "/local/assets/1 orders%2Fdaily/watermark.jsonc");
    assert.equal(addressOfPath("/local/x.jsonc"), undefined);
    assert.equal(addressOfPath("/a/b/c/d/key.json"), undefined);
    assert.equal(addressOfPath("/a/b/c/d/bad%20.jsonc"), undefined);
    assert.equal(addressOfPath("/a/assets/notanid/key.jsonc"), undefined);
  });
});

describe("entry documents: saving against the emulator", () => {
  it("PATCH keeps the expiry; PUT sets the new one; the saved entry is read back", async (t) => {
    const emu = await emulatorFor(t);
    const client = admin(emu.url);
    const entry = await readEntry(client, LLM);
    const text = renderEntryDocument(LLM, entry);
    const expiresAt = "expires_at" in entry ? entry.expires_at : undefined;
    assert.ok(expiresAt, "the demo entry has an expiry");
    const token = expiryToken(expiresAt);
    const patched = await saveEntry(client, LLM, planSave(LLM, edited(text, '{"completed": 12000}'), token, 65535, NOW));
    assert.deepEqual(plain(patched.value), { completed: 12000 });
    assert.equal("expires_at" in patched && patched.expires_at, expiresAt, "PATCH kept the expiry");
    assert.equal(emu.requests.filter((r) => r.method === "PATCH").length, 1);
    const put = await saveEntry(client, LLM, planSave(LLM, edited(text, "1", "2030-01-01T00:00:00Z"), token, 65535, NOW));
    assert.equal("expires_at" in put && put.expires_at, "2030-01-01T00:00:00.000Z");
    const putBody = JSON.parse(emu.requests.find((r) => r.method === "PUT")!.body);
    assert.deepEqual(putBody, { value: 1, expires_at: "2030-01-01T00:00:00Z" });
  });

  it("an invalid value sends nothing", async (t) => {
    const emu = await emulatorFor(t);
    assert.throws(() => planSave(SPARK, "// expires_at: never\nNaN", "never", 65535, NOW), EntryDocumentError);
    assert.equal(emu.requests.length, 0);
  });

  it("the server's refusal reaches the caller with its message (a lower server limit, a read-only user)", async (t) => {
    const emu = await emulatorFor(t, { maxValueStorageBytes: 10 });
    const plan = planSave(SPARK, '"' + "x".repeat(30) + '"', "never", 65535, NOW);
    await assert.rejects(saveEntry(admin(emu.url), SPARK, plan), (e: unknown) => e instanceof UnprocessableEntityError && /value/.test(e.message));
    const viewer = new AirflowClient({ baseUrl: emu.url, auth: { kind: "token", token: "emulator-viewer-token" } });
    await assert.rejects(saveEntry(viewer, SPARK, { method: "PATCH", value: "y" }), ForbiddenError);
    assert.equal(emu.state.getTaskEntry({ dag_id: SPARK.store === "task" ? SPARK.dagId : "", run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 }, "spark_job_id")?.value, '"application_1714000000000_0042"');
  });

  it("saving over a key that was deleted meanwhile says how to create it again", async (t) => {
    const emu = await emulatorFor(t);
    const client = admin(emu.url);
    await client.deleteTaskStateEntry({ dagId: DEMO.spark.dagId, runId: DEMO.spark.run, taskId: DEMO.spark.taskId }, "spark_job_id");
    await assert.rejects(saveEntry(client, SPARK, { method: "PATCH", value: "z" }), (e: unknown) => e instanceof EntryDocumentError && /set the expires_at line to "default"/.test(e.message));
    const recreated = await saveEntry(client, SPARK, planSave(SPARK, "// expires_at: default\n\"z\"", "never", 65535, NOW));
    assert.equal(recreated.value, "z");
  });

  it("asset entries are saved with PUT and record the REST API as their writer", async (t) => {
    const emu = await emulatorFor(t);
    const saved = await saveEntry(admin(emu.url), ORDERS_ASSET, planSave(ORDERS_ASSET, '"2026-05-03T00:00:00+00:00"', undefined, 65535, NOW));
    assert.equal(saved.value, "2026-05-03T00:00:00+00:00");
    assert.equal("last_updated_by" in saved && saved.last_updated_by?.kind, "api");
  });
});

describe("entry documents: numbers keep their text", () => {
  const SCOPE = { dag_id: DEMO.spark.dagId, run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 };
  const STORED = '{"job_id": 9007199254740993, "ratio": 1.0, "offset": -0.0, "tries": [1, 2]}';

  async function storedEntry(t: Parameters<typeof emulatorFor>[0]) {
    const emu = await emulatorFor(t);
    const put = await fetch(`${emu.url}${taskStorePath(DEMO.spark.dagId, DEMO.spark.run, DEMO.spark.taskId)}/spark_job_id`, {
      method: "PUT",
      headers: { Authorization: "Bearer emulator-admin-token", "Content-Type": "application/json" },
      body: `{"value": ${STORED}, "expires_at": null}`,
    });
    assert.equal(put.status, 204);
    const client = admin(emu.url);
    const entry = await readEntry(client, SPARK);
    return { emu, client, entry, text: renderEntryDocument(SPARK, entry) };
  }

  it("shows 9007199254740993, 1.0 and -0.0 as Airflow holds them", async (t) => {
    const { text } = await storedEntry(t);
    assert.match(text, /\n\{\n {2}"job_id": 9007199254740993,\n {2}"ratio": 1\.0,\n {2}"offset": -0\.0,/);
  });

  it("saved without edits, sends exactly the value Airflow returned", async (t) => {
    const { emu, client, text } = await storedEntry(t);
    const answered = await fetch(`${emu.url}${taskStorePath(DEMO.spark.dagId, DEMO.spark.run, DEMO.spark.taskId)}/spark_job_id`, {
      headers: { Authorization: "Bearer emulator-admin-token" },
    }).then((r) => r.text());
    const returnedValue = /"value":(.*),"updated_at"/.exec(answered)?.[1];
    await saveEntry(client, SPARK, planSave(SPARK, text, "never", 65535, NOW));
    const patch = emu.requests.find((r) => r.method === "PATCH");
    assert.equal(patch?.body, `{"value":${returnedValue}}`);
    assert.equal(emu.state.getTaskEntry(SCOPE, "spark_job_id")?.value, STORED, "what Airflow stores did not change");
  });

  it("saved after editing another field, writes the other numbers back unchanged", async (t) => {
    const { emu, client, text } = await storedEntry(t);
    await saveEntry(client, SPARK, planSave(SPARK, text.replace('"tries": [\n    1,\n    2\n  ]', '"tries": [1, 2, 3]'), "never", 65535, NOW));
    assert.equal(emu.state.getTaskEntry(SCOPE, "spark_job_id")?.value, '{"job_id": 9007199254740993, "ratio": 1.0, "offset": -0.0, "tries": [1, 2, 3]}');
  });

  it("refuses a value nested 10,000 deep with the reason, not a RangeError", () => {
    const text = `// expires_at: never\n${"[".repeat(10_000)}${"]".repeat(10_000)}\n`;
    assert.throws(() => planSave(SPARK, text, "never", 65535, NOW), (e: unknown) => e instanceof EntryDocumentError && /nested deeper than 1000 levels/.test(e.message));
  });
});
