/** AirflowClient against the emulator: typed calls, key encoding, paging, typed errors. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AirflowClient,
  AirflowHttpError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  UnprocessableEntityError,
  ValueValidationError,
  paginate,
  pythonJsonLength,
  supportsStateStore,
  type JsonValue,
} from "../../client/src/rest";
import { parseLossless, stringifyLossless } from "../../client/src/rest/json";
import { DEMO, LLM_TI, SPARK_TI, adminClient, emulatorFor, mappedTi, plain, raw, received, taskStorePath, viewerClient } from "./helpers";

describe("client: browsing", () => {
  it("reads the version without signing in", async (t) => {
    const emu = await emulatorFor(t, { version: "3.2.1" });
    const client = adminClient(emu);
    const version = await client.getVersion();
    assert.equal(version.version, "3.2.1");
    assert.equal(received(emu, "POST", "/auth/token"), 0);
    assert.equal(emu.requests[0].authorization, undefined);
    assert.equal(supportsStateStore(version.version), false);
    assert.equal(supportsStateStore("3.3.0"), true);
    assert.equal(supportsStateStore("3.10.0"), true);
    assert.equal(supportsStateStore("4.0.0b1"), true);
    assert.equal(supportsStateStore("2.10.5"), false);
  });

  it("lists DAGs, runs (most recent first), task instances (one per map index) and assets", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    const dags = await client.listDags();
    assert.equal(dags.totalEntries, 6);
    assert.deepEqual(dags.items.map((d) => d.dag_id).slice(0, 2), ["clickstream_hourly", "legacy_variables_dag"]);
    assert.equal(dags.hasMore, false);
    assert.deepEqual((await client.listDags({ dagIdPattern: "spark" })).items.map((d) => d.dag_id), ["spark_nightly"]);

    const runs = await client.listDagRuns("orders_daily", { orderBy: "-run_after", limit: 2 });
    assert.deepEqual(runs.items.map((r) => r.dag_run_id), [DEMO.orders.runs[3], DEMO.orders.runs[2]]);
    assert.equal(runs.totalEntries, 4);
    assert.equal(runs.hasMore, true);
    assert.equal(runs.nextOffset, 2);

    const tis = await client.listTaskInstances(DEMO.partitions.dagId, DEMO.partitions.run);
    const mapped = tis.items.filter((ti) => ti.task_id === DEMO.partitions.taskId);
    assert.deepEqual(mapped.map((ti) => [ti.map_index, ti.state, ti.try_number]), [
      [0, "success", 1],
      [1, "success", 1],
      [2, "running", 1],
      [3, "up_for_retry", 2],
      [4, "running", 1],
      [5, "scheduled", 1],
    ]);
    const assets = await client.listAssets();
    assert.deepEqual(assets.items.map((a) => [a.id, a.name]), [
      [1, "orders/daily"],
      [2, "customers/dim"],
      [3, "events/clickstream"],
      [4, "models/churn"],
    ]);
  });

  it("maps 404s of unknown DAGs and runs to NotFoundError carrying the server's detail", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.listDagRuns("no_such_dag"), (err: unknown) => {
      assert.ok(err instanceof NotFoundError);
      assert.equal(err.status, 404);
      assert.equal(err.detail, "The DAG with dag_id: `no_such_dag` was not found");
      assert.equal(err.method, "GET");
      assert.equal(err.path, "/api/v2/dags/no_such_dag/dagRuns");
      return true;
    });
    await assert.rejects(client.listTaskInstances("orders_daily", "no-run"), NotFoundError);
  });
});

describe("client: task state store", () => {
  it("lists, gets, puts with each expiry kind, patches, deletes", async (t) => {
    const now = Date.parse("2026-06-01T00:00:00Z");
    const emu = await emulatorFor(t, { now: () => new Date(now) });
    const client = adminClient(emu);

    const page = await client.listTaskStateEntries(SPARK_TI);
    assert.deepEqual(page.items.map((e) => [e.key, e.value, e.expires_at]), [["spark_job_id", "application_1714000000000_0042", null]]);

    await client.putTaskStateEntry(SPARK_TI, "a", { rows: [1, 2] });
    await client.putTaskStateEntry(SPARK_TI, "b", "never", { expiresAt: null });
    await client.putTaskStateEntry(SPARK_TI, "c", 3.5, { expiresAt: new Date("2026-07-01T00:00:00Z") });
    await client.putTaskStateEntry(SPARK_TI, "d", false, { expiresAt: "2026-07-01T02:00:00+02:00" });
    const a = await client.getTaskStateEntry(SPARK_TI, "a");
    assert.deepEqual(plain(a), { key: "a", value: { rows: [1, 2] }, updated_at: "2026-06-01T00:00:00.000Z", expires_at: "2026-07-01T00:00:00.000Z" });
    assert.equal((await client.getTaskStateEntry(SPARK_TI, "b")).expires_at, null);
    assert.equal((await client.getTaskStateEntry(SPARK_TI, "c")).expires_at, "2026-07-01T00:00:00.000Z");
    assert.equal((await client.getTaskStateEntry(SPARK_TI, "d")).expires_at, "2026-07-01T00:00:00.000Z");
    const sent = emu.requests.filter((r) => r.method === "PUT").map((r) => JSON.parse(r.body) as unknown);
    assert.deepEqual(sent, [
      { value: { rows: [1, 2] }, expires_at: "default" },
      { value: "never", expires_at: null },
      { value: 3.5, expires_at: "2026-07-01T00:00:00.000Z" },
      { value: false, expires_at: "2026-07-01T02:00:00+02:00" },
    ]);

    await client.patchTaskStateEntry(SPARK_TI, "b", { changed: true });
    assert.deepEqual(plain(await client.getTaskStateEntry(SPARK_TI, "b")), { key: "b", value: { changed: true }, updated_at: "2026-06-01T00:00:00.000Z", expires_at: null });

    await client.deleteTaskStateEntry(SPARK_TI, "a");
    await client.deleteTaskStateEntry(SPARK_TI, "a"); // no-op the second time
    assert.deepEqual((await client.listTaskStateEntries(SPARK_TI)).items.map((e) => e.key), ["b", "c", "d", "spark_job_id"]);
  });

  it("gets NotFoundError for an absent key, a PATCH of an absent key, a PUT on an unknown task instance", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.getTaskStateEntry(SPARK_TI, "nope"), (err: unknown) => {
      assert.ok(err instanceof NotFoundError);
      assert.equal(err.detail, "Task state store key 'nope' not found");
      assert.equal(
        err.message,
        `No key "nope" in the task state store of dag_id="spark_nightly", run_id="${DEMO.spark.run}", task_id="submit_spark_job". ` +
          "Airflow answers the same when that task instance does not exist (unknown DAG, run or task, or another map index), so check it too.",
      );
      return true;
    });
    await assert.rejects(client.patchTaskStateEntry(SPARK_TI, "nope", 1), NotFoundError);
    // Airflow's GET of a key does not look the task instance up: a task that does not exist gets the same 404, and the message names it.
    await assert.rejects(client.getTaskStateEntry({ ...SPARK_TI, taskId: "ghost", mapIndex: 2 }, "spark_job_id"), (err: unknown) =>
      err instanceof NotFoundError && err.message.includes(`task_id="ghost", map_index=2`) && /task instance does not exist/.test(err.message),
    );
    await assert.rejects(client.putTaskStateEntry({ ...SPARK_TI, taskId: "ghost" }, "k", 1), /Task instance not found/);
    const empty = await client.listTaskStateEntries({ ...SPARK_TI, runId: "ghost-run" });
    assert.deepEqual([empty.items, empty.totalEntries, empty.hasMore], [[], 0, false]);
  });

  it("addresses each map index separately and clears one index or all of them", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    const cursor = await client.getTaskStateEntry(mappedTi(3), "cursor");
    assert.deepEqual(plain(cursor.value), { partition: "p3", offset: 4000 });
    await client.putTaskStateEntry(mappedTi(5), "cursor", { partition: "p5", offset: 0 });
    assert.equal(emu.requests.at(-1)?.query.get("map_index"), "5");
    await client.clearTaskStateStore(mappedTi(1));
    assert.equal((await client.listTaskStateEntries(mappedTi(1))).totalEntries, 0);
    assert.equal((await client.listTaskStateEntries(mappedTi(0))).totalEntries, 2);
    await client.clearTaskStateStore(mappedTi(0), { allMapIndices: true });
    assert.equal(emu.requests.at(-1)?.query.get("all_map_indices"), "true");
    for (const i of [0, 2, 3, 4, 5]) assert.equal((await client.listTaskStateEntries(mappedTi(i))).totalEntries, 0, `index ${i}`);
  });

  it("turns a 403 for a read-only user into ForbiddenError and writes nothing", async (t) => {
    const emu = await emulatorFor(t);
    const client = viewerClient(emu);
    assert.equal((await client.getTaskStateEntry(SPARK_TI, "spark_job_id")).value, "application_1714000000000_0042");
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", 1), ForbiddenError);
    await assert.rejects(client.deleteTaskStateEntry(SPARK_TI, "spark_job_id"), (err: unknown) => err instanceof ForbiddenError && err.status === 403 && err.detail === "Forbidden");
    await assert.rejects(client.clearAssetStateStore(1), ForbiddenError);
    assert.equal((await client.listTaskStateEntries(SPARK_TI)).totalEntries, 1);
  });

  it("renders a server 422 detail list as readable text", async (t) => {
    // The client's own limit is off, so the server's check is the one that answers.
    const emu = await emulatorFor(t, { maxValueStorageBytes: 10 });
    const client = adminClient(emu, { maxValueLength: 0 });
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "big", "x".repeat(50)), (err: unknown) => {
      assert.ok(err instanceof UnprocessableEntityError);
      assert.equal(
        err.detail,
        "value: Value error, value exceeds max_value_storage_bytes (10); raise [state_store] max_value_storage_bytes or set it to 0 to disable the limit (loc body.value)",
      );
      assert.equal(err.issues.length, 1);
      assert.deepEqual(err.issues[0].loc, ["body", "value"]);
      assert.match(err.message, /^422 Unprocessable Entity: value: Value error/);
      return true;
    });
  });
});

describe("client: key encoding", () => {
  const keys = [
    "plain",
    "with/slash",
    "a/b/c/",
    "/leading",
    "s3://bucket/prefix/file.json",
    "100%",
    "%2F",
    "%",
    "with space",
    "  padded  ",
    "plus+sign",
    "query?x=1&y=2",
    "hash#frag",
    "semi;colon",
    "back\\slash",
    "quote'\"",
    "résumé/état",
    "日本語キー",
    "emoji 🚀",
    "...",
    "a/../b",
    "./x",
    "tab\tkey",
  ];

  it("round-trips keys with /, %, spaces and unicode through PUT, GET, list, PATCH and DELETE", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    for (const [i, key] of keys.entries()) {
      await client.putTaskStateEntry(SPARK_TI, key, { i });
      const entry = await client.getTaskStateEntry(SPARK_TI, key);
      assert.equal(entry.key, key);
      assert.deepEqual(plain(entry.value), { i });
      await client.patchTaskStateEntry(SPARK_TI, key, { i, patched: true });
    }
    const scope = { dag_id: DEMO.spark.dagId, run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 };
    assert.deepEqual(
      emu.state.taskEntries(scope).map((e) => e.key).sort(),
      [...keys, "spark_job_id"].sort(),
      "the server stored exactly these keys",
    );
    const listed = (await client.listTaskStateEntries(SPARK_TI, { limit: 100 })).items;
    assert.deepEqual(listed.map((e) => e.key).sort(), [...keys, "spark_job_id"].sort());
    for (const key of keys) await client.deleteTaskStateEntry(SPARK_TI, key);
    assert.deepEqual(emu.state.taskEntries(scope).map((e) => e.key), ["spark_job_id"]);
  });

  it("encodes a key as one path segment (%2F for /, %25 for %)", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await client.putTaskStateEntry(SPARK_TI, "a/b%c d", 1);
    const put = emu.requests.find((r) => r.method === "PUT");
    assert.ok(put);
    assert.ok(put.rawPath.endsWith("/state-store/a%2Fb%25c%20d"), put.rawPath);
    assert.ok(put.rawPath.includes("/dagRuns/scheduled__2026-05-03T02%3A00%3A00%2B00%3A00/"), put.rawPath);
  });

  it("round-trips asset keys too", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    for (const key of keys) await client.putAssetStateEntry(2, key, key.length);
    assert.deepEqual(emu.state.assetEntries(2).map((e) => e.key).sort(), [...keys].sort());
    for (const key of keys) assert.equal(plain((await client.getAssetStateEntry(2, key)).value), key.length);
  });

  it("refuses keys that cannot be addressed: empty, '.', '..', longer than 512", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    for (const key of ["", ".", "..", "k".repeat(513)]) {
      await assert.rejects(client.deleteTaskStateEntry(SPARK_TI, key), (err: unknown) => err instanceof ValueValidationError && err.problem === "key", JSON.stringify(key.slice(0, 5)));
      await assert.rejects(client.putAssetStateEntry(1, key, 1), ValueValidationError);
    }
    assert.equal(received(emu, "DELETE", ""), 0);
    assert.equal(received(emu, "PUT", ""), 0);
    assert.equal(emu.state.taskEntries({ dag_id: DEMO.spark.dagId, run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 }).length, 1);
    await client.putTaskStateEntry(SPARK_TI, "k".repeat(512), 1);
  });
});

describe("client: asset state store", () => {
  it("lists with last_updated_by, gets, puts (writer becomes api), deletes, clears", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    const page = await client.listAssetStateEntries(DEMO.assets.orders);
    assert.deepEqual(page.items.map((e) => [e.key, e.last_updated_by?.kind]), [
      ["row_count", "task"],
      ["schema_version", "api"],
      ["watermark", "task"],
    ]);
    await client.putAssetStateEntry(DEMO.assets.orders, "watermark", "2026-06-01T00:00:00+00:00");
    assert.deepEqual(await client.getAssetStateEntry(DEMO.assets.orders, "watermark"), {
      key: "watermark",
      value: "2026-06-01T00:00:00+00:00",
      updated_at: (await client.getAssetStateEntry(DEMO.assets.orders, "watermark")).updated_at,
      last_updated_by: { kind: "api", dag_id: null, run_id: null, task_id: null, map_index: null },
    });
    assert.deepEqual(JSON.parse(emu.requests.find((r) => r.method === "PUT")!.body), { value: "2026-06-01T00:00:00+00:00" });
    await client.deleteAssetStateEntry(DEMO.assets.orders, "row_count");
    await client.deleteAssetStateEntry(DEMO.assets.orders, "row_count");
    assert.deepEqual(emu.state.assetEntries(DEMO.assets.orders).map((e) => e.key), ["schema_version", "watermark"]);
    await client.clearAssetStateStore(DEMO.assets.clickstream);
    assert.equal((await client.listAssetStateEntries(DEMO.assets.clickstream)).totalEntries, 0);
    await assert.rejects(client.listAssetStateEntries(999), (err: unknown) => err instanceof NotFoundError && err.detail === "Asset with id 999 not found");
    await assert.rejects(client.getAssetStateEntry(DEMO.assets.orders, "row_count"), NotFoundError);
  });

  it("refuses a non-integer asset id before sending", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.listAssetStateEntries(1.5), ValueValidationError);
    await assert.rejects(client.listAssetStateEntries(Number.NaN), ValueValidationError);
    assert.equal(emu.requests.length, 0);
  });
});

describe("client: paging", () => {
  async function bigStore(t: Parameters<typeof emulatorFor>[0], count: number, cap = 100) {
    const emu = await emulatorFor(t, { seed: "empty", maximumPageLimit: cap });
    emu.state.addDag({ dag_id: "big" });
    emu.state.addRun({ dag_id: "big", dag_run_id: "r" });
    emu.state.addTaskInstance({ dag_id: "big", dag_run_id: "r", task_id: "t" });
    for (let i = 0; i < count; i++) emu.state.setTaskEntry({ dag_id: "big", run_id: "r", task_id: "t", map_index: -1 }, `k${String(i).padStart(4, "0")}`, i);
    return emu;
  }
  const TI = { dagId: "big", runId: "r", taskId: "t" };

  it("computes hasMore / nextOffset from what the server returned when it caps the limit", async (t) => {
    const emu = await bigStore(t, 230, 100);
    const client = adminClient(emu);
    const first = await client.listTaskStateEntries(TI, { limit: 500 });
    assert.equal(emu.requests.at(-1)?.query.get("limit"), "500");
    assert.equal(first.items.length, 100);
    assert.equal(first.totalEntries, 230);
    assert.equal(first.hasMore, true);
    assert.equal(first.nextOffset, 100);
    const last = await client.listTaskStateEntries(TI, { limit: 500, offset: 200 });
    assert.deepEqual([last.items.length, last.offset, last.nextOffset, last.hasMore], [30, 200, 230, false]);
    const defaultPage = await client.listTaskStateEntries(TI);
    assert.equal(defaultPage.items.length, 50);
    assert.equal(emu.requests.at(-1)?.query.has("limit"), false);
  });

  it("paginate() walks every entry in key order across capped pages", async (t) => {
    const emu = await bigStore(t, 123, 40);
    const client = adminClient(emu);
    const seen: number[] = [];
    for await (const entry of paginate((p) => client.listTaskStateEntries(TI, p), 100)) seen.push(plain(entry.value) as number);
    assert.deepEqual(seen, Array.from({ length: 123 }, (_, i) => i));
    assert.equal(received(emu, "GET", "/state-store"), 4); // 40 + 40 + 40 + 3
  });

  it("sends limit 0 (Airflow answers no items) and stops paging when a page comes back empty", async (t) => {
    const emu = await bigStore(t, 5, 0);
    const client = adminClient(emu);
    const none = await client.listTaskStateEntries(TI, { limit: 0 });
    assert.equal(emu.requests.at(-1)?.query.get("limit"), "0");
    assert.deepEqual([none.items.length, none.totalEntries, none.hasMore], [0, 5, false]);
    const seen: unknown[] = [];
    for await (const entry of paginate((p) => client.listTaskStateEntries(TI, p), 100)) seen.push(entry);
    assert.deepEqual(seen, [], "maximum_page_limit 0 caps every page at 0 items; paging ends instead of asking forever");
    assert.equal(received(emu, "GET", "/state-store"), 2);
  });

  it("refuses a bad limit / offset before sending", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.listDags({ limit: -1 }), ValueValidationError);
    await assert.rejects(client.listDags({ offset: -1 }), ValueValidationError);
    await assert.rejects(client.listDags({ limit: 2.5 }), ValueValidationError);
    assert.equal(emu.requests.length, 0);
  });

  it("rejects a success body that is not the expected collection", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    emu.setFault({ type: "malformed" }, { path: "/api/v2/dags" });
    await assert.rejects(client.listDags(), (err: unknown) => {
      assert.ok(err instanceof InvalidResponseError);
      assert.equal(err.status, 200);
      assert.match(err.bodySnippet, /^\{"total_entries"/);
      return true;
    });
    assert.ok(!(new InvalidResponseError("x", 200, "") instanceof AirflowHttpError));
  });
});

describe("client: construction", () => {
  it("normalises the base URL and keeps a path prefix", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: `${emu.url}///`, auth: { kind: "token", token: "emulator-admin-token" } });
    assert.equal(client.baseUrl, emu.url);
    assert.equal((await client.listAssets()).totalEntries, 4);
    const prefixed = new AirflowClient({ baseUrl: `${emu.url}/airflow/` });
    assert.equal(prefixed.baseUrl, `${emu.url}/airflow`);
    assert.throws(() => new AirflowClient({ baseUrl: "localhost:8080" }), ValueValidationError);
    assert.throws(() => new AirflowClient({ baseUrl: "ftp://x" }), ValueValidationError);
    assert.throws(() => new AirflowClient({ baseUrl: "http://admin:admin@127.0.0.1:8080" }), /must not contain a username or password/);
    assert.throws(() => new AirflowClient({ baseUrl: emu.url, maxConcurrency: 0 }), ValueValidationError);
    assert.throws(() => new AirflowClient({ baseUrl: emu.url, maxValueLength: -1 }), ValueValidationError);
    assert.equal(LLM_TI.mapIndex, undefined);
  });
});

describe("client: numbers keep their text", () => {
  const SPARK_PATH = taskStorePath(DEMO.spark.dagId, DEMO.spark.run, DEMO.spark.taskId);
  const BIG = "[9007199254740993, 1.0, -0.0, 1e+16, 0.1, 123456789012345678901234567890]";

  it("reads values with every number exactly as Airflow wrote it, in entries and in lists", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    const scope = { dag_id: DEMO.spark.dagId, run_id: DEMO.spark.run, task_id: DEMO.spark.taskId, map_index: -1 };
    assert.equal((await raw(emu, "PUT", `${SPARK_PATH}/ids`, { body: `{"value": ${BIG}}` })).status, 204);
    assert.equal(emu.state.getTaskEntry(scope, "ids")?.value, BIG);
    const entry = await client.getTaskStateEntry(SPARK_TI, "ids");
    assert.equal(stringifyLossless(entry.value), "[9007199254740993,1.0,-0.0,1e+16,0.1,123456789012345678901234567890]");
    const listed = (await client.listTaskStateEntries(SPARK_TI)).items.find((e) => e.key === "ids");
    assert.equal(stringifyLossless(listed?.value), stringifyLossless(entry.value));
    assert.equal(typeof (await client.listTaskStateEntries(SPARK_TI)).totalEntries, "number", "the fields around values are plain numbers");
  });

  it("writes a value read from Airflow back unchanged", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await raw(emu, "PUT", `${SPARK_PATH}/ids`, { body: '{"value": {"job": 9007199254740993, "ratio": 1.0, "zero": -0.0}}' });
    const before = await client.getTaskStateEntry(SPARK_TI, "ids");
    await client.patchTaskStateEntry(SPARK_TI, "ids", before.value);
    const patch = emu.requests.find((r) => r.method === "PATCH");
    assert.equal(patch?.body, '{"value":{"job":9007199254740993,"ratio":1.0,"zero":-0.0}}');
    assert.equal(stringifyLossless((await client.getTaskStateEntry(SPARK_TI, "ids")).value), stringifyLossless(before.value));
  });

  it("measures a read value's length as Python writes it (1.0 stays a float, big ints stay exact)", async (t) => {
    const emu = await emulatorFor(t, { maxValueStorageBytes: 35 });
    const client = adminClient(emu, { maxValueLength: 35 });
    const value = parseLossless('{"job": 9007199254740993, "r": 1.0}') as JsonValue;
    assert.equal(pythonJsonLength(value), '{"job": 9007199254740993, "r": 1.0}'.length);
    await client.putTaskStateEntry(SPARK_TI, "fits", value);
    const over = parseLossless('{"job": 9007199254740993, "r": 1.25}') as JsonValue;
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "over", over), (err: unknown) => err instanceof ValueValidationError && err.problem === "too-long");
  });

  it("takes an expiry as seconds since the epoch and sends the instant", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await client.putTaskStateEntry(SPARK_TI, "e", 1, { expiresAt: 1798761600 });
    assert.equal(JSON.parse(emu.requests.find((r) => r.method === "PUT")!.body).expires_at, "2027-01-01T00:00:00.000Z");
    assert.equal((await client.getTaskStateEntry(SPARK_TI, "e")).expires_at, "2027-01-01T00:00:00.000Z");
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "e", 1, { expiresAt: Number.NaN }), (err: unknown) => err instanceof ValueValidationError && err.problem === "expires-at");
  });

  it("reads the newer last_updated_by fields, try number included", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    emu.state.setAssetEntry(DEMO.assets.orders, "w", 1, { kind: "task", dag_id: "orders_daily", run_id: "r", task_id: "load", map_index: -1, try_number: 2, region_id: "eu", region_index: 1, task_instance_id: "0196-ti" });
    const by = (await client.getAssetStateEntry(DEMO.assets.orders, "w")).last_updated_by;
    assert.deepEqual([by?.try_number, by?.region_id, by?.region_index, by?.task_instance_id], [2, "eu", 1, "0196-ti"]);
  });
});
