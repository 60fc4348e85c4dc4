/** The emulator answers exactly as state-store.md §7 says (raw HTTP, no client). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEMO, LLM_PATH, MAPPED_PATH, emulatorFor, raw, taskStorePath } from "./helpers";

type Detail = { detail: unknown };
type Issue = { type: string; loc: (string | number)[]; msg: string };
const issues = (body: unknown): Issue[] => (body as { detail: Issue[] }).detail;
const DAY = 86_400_000;

describe("emulator: authentication", () => {
  it("issues a token for valid credentials (201, JSON or form) and 401 for a wrong password", async (t) => {
    const emu = await emulatorFor(t);
    const ok = await raw(emu, "POST", "/auth/token", { token: null, json: { username: "admin", password: "admin" } });
    assert.equal(ok.status, 201);
    const token = (ok.body as { access_token: string }).access_token;
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal((await raw(emu, "GET", "/api/v2/dags", { token })).status, 200);

    const form = await raw(emu, "POST", "/auth/token", {
      token: null,
      body: "username=viewer&password=viewer",
      contentType: "application/x-www-form-urlencoded",
    });
    assert.equal(form.status, 201);

    const bad = await raw(emu, "POST", "/auth/token", { token: null, json: { username: "admin", password: "nope" } });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.body, { detail: "Invalid credentials" });

    for (const json of [{ username: "", password: "admin" }, { username: "admin", password: "" }]) {
      const empty = await raw(emu, "POST", "/auth/token", { token: null, json });
      assert.deepEqual([empty.status, empty.body], [400, { detail: "Username and password must be provided" }]);
    }
  });

  it("answers 401 without a token or with an expired one, 403 for one it cannot verify; version needs none", async (t) => {
    const emu = await emulatorFor(t);
    assert.equal((await raw(emu, "GET", "/api/v2/version", { token: null })).status, 200);
    assert.deepEqual((await raw(emu, "GET", "/api/v2/version", { token: null })).body, { version: "3.3.0", git_version: ".release:3.3.0" });
    const none = await raw(emu, "GET", "/api/v2/dags", { token: null });
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, { detail: "Not authenticated" });
    const malformed = await raw(emu, "GET", "/api/v2/dags", { token: "not-a-token" });
    assert.deepEqual([malformed.status, malformed.body], [403, { detail: "Invalid JWT token" }]);
    const token = emu.issueToken("admin");
    const forged = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    assert.deepEqual((await raw(emu, "GET", "/api/v2/dags", { token: forged })).status, 403);
    assert.equal((await raw(emu, "GET", "/api/v2/dags", { token })).status, 200);
    emu.expireTokens();
    const expired = await raw(emu, "GET", "/api/v2/dags", { token });
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.body, { detail: "Token Expired" });
    const renewed = emu.issueToken("admin");
    emu.rotateJwtSecret();
    const unverifiable = await raw(emu, "GET", "/api/v2/dags", { token: renewed });
    assert.deepEqual([unverifiable.status, unverifiable.body], [403, { detail: "Invalid JWT token" }], "a token signed with the old JWT secret");
  });

  it("expires tokens after the configured lifetime", async (t) => {
    let now = Date.parse("2026-06-01T00:00:00Z");
    const emu = await emulatorFor(t, { tokenTtlMs: 1000, now: () => new Date(now) });
    const token = emu.issueToken("admin");
    assert.equal((await raw(emu, "GET", "/api/v2/dags", { token })).status, 200);
    now += 999;
    assert.equal((await raw(emu, "GET", "/api/v2/dags", { token })).status, 200);
    now += 2;
    assert.equal((await raw(emu, "GET", "/api/v2/dags", { token })).status, 401);
  });

  it("answers 403 to a read-only user on every write, 200 on reads", async (t) => {
    const emu = await emulatorFor(t);
    const token = "emulator-viewer-token";
    assert.equal((await raw(emu, "GET", `${LLM_PATH}/openai_batch_id`, { token })).status, 200);
    for (const [method, path, json] of [
      ["PUT", `${LLM_PATH}/k`, { value: 1 }],
      ["PATCH", `${LLM_PATH}/openai_batch_id`, { value: 1 }],
      ["DELETE", `${LLM_PATH}/openai_batch_id`, undefined],
      ["DELETE", LLM_PATH, undefined],
      ["PUT", "/api/v2/assets/1/state-store/k", { value: 1 }],
      ["DELETE", "/api/v2/assets/1/state-store/watermark", undefined],
      ["DELETE", "/api/v2/assets/1/state-store", undefined],
    ] as const) {
      const res = await raw(emu, method, path, { token, json });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.deepEqual(res.body, { detail: "Forbidden" });
    }
    assert.equal(emu.state.getTaskEntry({ dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 }, "openai_batch_id")?.value, '"batch_68f1c2a4e0b48190"');
    assert.equal(emu.state.assetEntries(1).length, 3);
  });
});

describe("emulator: browsing", () => {
  it("lists DAGs sorted by dag_id with total_entries, filters by pattern and paused", async (t) => {
    const emu = await emulatorFor(t);
    const all = await raw(emu, "GET", "/api/v2/dags");
    const body = all.body as { dags: { dag_id: string }[]; total_entries: number };
    assert.equal(body.total_entries, 6);
    const ids = body.dags.map((d) => d.dag_id);
    assert.deepEqual(ids, [...ids].sort());
    const filtered = (await raw(emu, "GET", "/api/v2/dags?dag_id_pattern=ORDER")).body as typeof body;
    assert.deepEqual(filtered.dags.map((d) => d.dag_id), ["orders_daily"]);
    const paused = (await raw(emu, "GET", "/api/v2/dags?paused=true")).body as typeof body;
    assert.deepEqual(paused.dags.map((d) => d.dag_id), ["legacy_variables_dag"]);
  });

  it("lists runs (order_by) and task instances, one per map index; 404 for unknown DAG or run", async (t) => {
    const emu = await emulatorFor(t);
    const runs = (await raw(emu, "GET", `/api/v2/dags/orders_daily/dagRuns?order_by=-run_after`)).body as { dag_runs: { dag_run_id: string; run_after: string }[]; total_entries: number };
    assert.equal(runs.total_entries, 4);
    assert.equal(runs.dag_runs[0].dag_run_id, "manual__2026-05-03T10:15:00+00:00");
    const tis = (await raw(emu, "GET", `/api/v2/dags/partition_backfill/dagRuns/${encodeURIComponent(DEMO.partitions.run)}/taskInstances`)).body as {
      task_instances: { task_id: string; map_index: number; try_number: number; state: string | null }[];
    };
    const mapped = tis.task_instances.filter((ti) => ti.task_id === "process_partition");
    assert.deepEqual(mapped.map((ti) => ti.map_index), [0, 1, 2, 3, 4, 5]);
    assert.equal(mapped[3].state, "up_for_retry");
    assert.equal(mapped[3].try_number, 2);
    assert.equal((await raw(emu, "GET", "/api/v2/dags/nope/dagRuns")).status, 404);
    const noRun = await raw(emu, "GET", "/api/v2/dags/orders_daily/dagRuns/nope/taskInstances");
    assert.equal(noRun.status, 404);
    assert.match(String((noRun.body as Detail).detail), /DagRun .*nope/);
    assert.equal((await raw(emu, "GET", "/api/v2/dags/orders_daily/dagRuns?order_by=bogus")).status, 400);
  });

  it("lists assets with total_entries; unknown routes 404, wrong methods 405", async (t) => {
    const emu = await emulatorFor(t);
    const assets = (await raw(emu, "GET", "/api/v2/assets")).body as { assets: { id: number; name: string; uri: string; group: string }[]; total_entries: number };
    assert.equal(assets.total_entries, 4);
    assert.deepEqual(assets.assets[0], { ...assets.assets[0], id: 1, name: "orders/daily", uri: "s3://warehouse/orders/daily", group: "asset" });
    assert.equal((await raw(emu, "GET", "/api/v2/nothing")).status, 404);
    assert.equal((await raw(emu, "PATCH", "/api/v2/assets/1/state-store/watermark", { json: { value: 1 } })).status, 405);
    assert.equal((await raw(emu, "PUT", LLM_PATH, { json: { value: 1 } })).status, 405);
  });
});

describe("emulator: paging", () => {
  it("defaults to 50, caps limit at maximum_page_limit silently, honours offset", async (t) => {
    const emu = await emulatorFor(t, { seed: "empty" });
    emu.state.addDag({ dag_id: "big" });
    emu.state.addRun({ dag_id: "big", dag_run_id: "r" });
    emu.state.addTaskInstance({ dag_id: "big", dag_run_id: "r", task_id: "t" });
    const scope = { dag_id: "big", run_id: "r", task_id: "t", map_index: -1 };
    for (let i = 0; i < 250; i++) emu.state.setTaskEntry(scope, `k${String(i).padStart(3, "0")}`, i);
    const base = taskStorePath("big", "r", "t");
    type Coll = { task_state_store: { key: string; value: number }[]; total_entries: number };

    const first = (await raw(emu, "GET", base)).body as Coll;
    assert.equal(first.task_state_store.length, 50);
    assert.equal(first.total_entries, 250);
    assert.equal(first.task_state_store[0].key, "k000");

    const capped = (await raw(emu, "GET", `${base}?limit=1000`)).body as Coll;
    assert.equal(capped.task_state_store.length, 100);

    const tail = (await raw(emu, "GET", `${base}?limit=100&offset=240`)).body as Coll;
    assert.deepEqual(tail.task_state_store.map((e) => e.value), [240, 241, 242, 243, 244, 245, 246, 247, 248, 249]);
    assert.equal(tail.total_entries, 250);

    emu.state.config.maximumPageLimit = 20;
    assert.equal(((await raw(emu, "GET", `${base}?limit=30`)).body as Coll).task_state_store.length, 20);

    const none = (await raw(emu, "GET", `${base}?limit=0`)).body as Coll;
    assert.deepEqual([none.task_state_store.length, none.total_entries], [0, 250], "limit 0 is allowed and answers no items");
    emu.state.config.maximumPageLimit = 0;
    assert.equal(((await raw(emu, "GET", base)).body as Coll).task_state_store.length, 0, "min(limit, maximum_page_limit) with a maximum of 0");

    const bad = await raw(emu, "GET", `${base}?limit=-1&offset=x`);
    assert.equal(bad.status, 422);
    assert.deepEqual(issues(bad.body).map((i) => i.loc.join(".")), ["query.limit", "query.offset"]);
  });
});

describe("emulator: task state store", () => {
  it("lists entries sorted by key; an unknown task instance gives an empty list", async (t) => {
    const emu = await emulatorFor(t);
    const res = await raw(emu, "GET", LLM_PATH);
    const body = res.body as { task_state_store: { key: string; expires_at: string | null }[]; total_entries: number };
    const keys = body.task_state_store.map((e) => e.key);
    assert.deepEqual(keys, ["input_file/s3://ml-bucket/batches/2026-05-03.jsonl", "openai_batch_id", "progress 100%", "résumé/état"]);
    assert.equal(body.total_entries, 4);
    const unknown = await raw(emu, "GET", taskStorePath("orders_daily", "nope", "nope"));
    assert.deepEqual(unknown.body, { task_state_store: [], total_entries: 0 });
  });

  it("takes the rest of the path as the key, decoding %2F and literal slashes alike", async (t) => {
    const emu = await emulatorFor(t);
    const key = "input_file/s3://ml-bucket/batches/2026-05-03.jsonl";
    const encoded = await raw(emu, "GET", `${LLM_PATH}/${encodeURIComponent(key)}`);
    assert.equal(encoded.status, 200);
    assert.equal((encoded.body as { key: string }).key, key);
    const literal = await raw(emu, "GET", `${LLM_PATH}/input_file/s3:/${"/"}ml-bucket/batches/2026-05-03.jsonl`);
    assert.equal(literal.status, 200);
  });

  it("GET of an absent key is 404 with the key in the detail", async (t) => {
    const emu = await emulatorFor(t);
    const res = await raw(emu, "GET", `${LLM_PATH}/absent`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: "Task state store key 'absent' not found" });
  });

  it("PUT upserts (204): expires_at default = now + 30 days, null = never, aware datetime kept", async (t) => {
    const now = Date.parse("2026-06-01T12:00:00Z");
    const emu = await emulatorFor(t, { now: () => new Date(now) });
    const put = (key: string, body: unknown) => raw(emu, "PUT", `${LLM_PATH}/${key}`, { json: body });
    const get = async (key: string) => (await raw(emu, "GET", `${LLM_PATH}/${key}`)).body as { value: unknown; expires_at: string | null; updated_at: string };

    const omitted = await put("a", { value: { n: 1 } });
    assert.equal(omitted.status, 204);
    assert.equal(omitted.text, "");
    assert.equal((await get("a")).expires_at, new Date(now + 30 * DAY).toISOString());
    assert.equal((await get("a")).updated_at, new Date(now).toISOString());
    assert.deepEqual((await get("a")).value, { n: 1 });

    assert.equal((await put("b", { value: "x", expires_at: "default" })).status, 204);
    assert.equal((await get("b")).expires_at, new Date(now + 30 * DAY).toISOString());
    assert.equal((await put("c", { value: [1, 2], expires_at: null })).status, 204);
    assert.equal((await get("c")).expires_at, null);
    assert.equal((await put("d", { value: true, expires_at: "2026-07-01T10:00:00+02:00" })).status, 204);
    assert.equal((await get("d")).expires_at, "2026-07-01T08:00:00.000Z");

    assert.equal((await put("a", { value: "replaced", expires_at: null })).status, 204);
    assert.deepEqual(await get("a"), { key: "a", value: "replaced", updated_at: new Date(now).toISOString(), expires_at: null });

    emu.state.config.defaultRetentionDays = 0;
    await put("e", { value: 1 });
    assert.equal((await get("e")).expires_at, null);
    emu.state.config.defaultRetentionDays = -1;
    const negative = await put("f", { value: 1 });
    assert.equal(negative.status, 400);
    assert.match(String((negative.body as Detail).detail), /default_retention_days must be >= 0/);
  });

  it("PUT rejects with 422: naive datetime, junk expiry, unknown field, missing value, null, NaN token, Infinity, non-object body, bad JSON", async (t) => {
    const emu = await emulatorFor(t);
    const put = (body: string) => raw(emu, "PUT", `${LLM_PATH}/k`, { body });
    const cases: [string, string, string][] = [
      ['{"value": 1, "expires_at": "2026-07-01T10:00:00"}', "timezone_aware", "body.expires_at"],
      ['{"value": 1, "expires_at": "tomorrow"}', "literal_error", "body.expires_at"],
      ['{"value": 1, "expires_at": "2026-02-30T10:00:00Z"}', "datetime_from_date_parsing", "body.expires_at"],
      ['{"value": 1, "ttl": 5}', "extra_forbidden", "body.ttl"],
      ['{"expires_at": null}', "missing", "body.value"],
      ['{"value": null}', "value_error", "body.value"],
      ['{"value": NaN}', "value_error", "body.value"],
      ['{"value": {"deep": [1, -Infinity]}}', "value_error", "body.value"],
      ['[1, 2]', "model_attributes_type", "body"],
      ['{"value": ', "json_invalid", "body"],
    ];
    for (const [body, type, loc] of cases) {
      const res = await put(body);
      assert.equal(res.status, 422, body);
      const found = issues(res.body);
      assert.ok(found.some((i) => i.type === type && i.loc.join(".").startsWith(loc)), `${body} → ${JSON.stringify(found)}`);
    }
    assert.match(issues((await put('{"value": null}')).body)[0].msg, /value cannot be null/);
    assert.match(issues((await put('{"value": NaN}')).body)[0].msg, /non-finite/);
    assert.equal(emu.state.getTaskEntry({ dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 }, "k"), undefined);
  });

  it("measures size as Python's json.dumps text in characters; limit configurable, 0 = none", async (t) => {
    const emu = await emulatorFor(t, { maxValueStorageBytes: 20 });
    const put = (value: unknown) => raw(emu, "PUT", `${LLM_PATH}/size`, { json: { value } });
    assert.equal((await put("x".repeat(18))).status, 204); // "xxx…" = 20 characters
    const over = await put("x".repeat(19));
    assert.equal(over.status, 422);
    assert.match(issues(over.body)[0].msg, /exceeds max_value_storage_bytes \(20\)/);
    // [1, 2, 3, 4, 5, 6] is 18 characters in Python (", " separators) though JSON.stringify gives 13
    assert.equal((await put([1, 2, 3, 4, 5, 6])).status, 204);
    assert.equal((await put([1, 2, 3, 4, 5, 6, 7])).status, 422);
    // "é" is written \u00e9 (6 characters): 2 + 3 * 6 = 20
    assert.equal((await put("ééé")).status, 204);
    assert.equal((await put("éééx")).status, 422);
    emu.state.config.maxValueStorageBytes = 0;
    assert.equal((await put("x".repeat(200_000))).status, 204);
  });

  it("PATCH replaces the value (200), keeps expires_at; 404 for an absent key or task instance; only `value` allowed", async (t) => {
    let now = Date.parse("2026-06-01T00:00:00Z");
    const emu = await emulatorFor(t, { now: () => new Date(now) });
    await raw(emu, "PUT", `${LLM_PATH}/p`, { json: { value: 1, expires_at: "2026-09-01T00:00:00Z" } });
    now += 1000;
    const res = await raw(emu, "PATCH", `${LLM_PATH}/p`, { json: { value: { v: 2 } } });
    assert.equal(res.status, 200);
    assert.equal(res.text, "null");
    const entry = (await raw(emu, "GET", `${LLM_PATH}/p`)).body;
    assert.deepEqual(entry, { key: "p", value: { v: 2 }, updated_at: new Date(now).toISOString(), expires_at: "2026-09-01T00:00:00.000Z" });

    const absent = await raw(emu, "PATCH", `${LLM_PATH}/absent`, { json: { value: 1 } });
    assert.equal(absent.status, 404);
    assert.equal(emu.state.getTaskEntry({ dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 }, "absent"), undefined);
    const noTi = await raw(emu, "PATCH", `${taskStorePath(DEMO.llm.dagId, DEMO.llm.run, "ghost")}/p`, { json: { value: 1 } });
    assert.equal(noTi.status, 404);
    assert.match(String((noTi.body as Detail).detail), /^Task instance not found for dag_id='llm_batch_scoring', .*task_id='ghost', map_index=-1$/);
    const extra = await raw(emu, "PATCH", `${LLM_PATH}/p`, { json: { value: 1, expires_at: null } });
    assert.equal(extra.status, 422);
    assert.deepEqual(issues(extra.body).map((i) => i.type), ["extra_forbidden"]);
    const nullValue = await raw(emu, "PATCH", `${LLM_PATH}/p`, { json: { value: null } });
    assert.equal(nullValue.status, 422);
  });

  it("PUT on an unknown task instance or map index is 404 (before body validation)", async (t) => {
    const emu = await emulatorFor(t);
    assert.equal((await raw(emu, "PUT", `${taskStorePath("orders_daily", "nope", "extract_orders")}/k`, { json: { value: 1 } })).status, 404);
    assert.equal((await raw(emu, "PUT", `${MAPPED_PATH}/k?map_index=9`, { json: { value: 1 } })).status, 404);
    assert.equal((await raw(emu, "PUT", `${MAPPED_PATH}/k?map_index=9`, { json: { value: null } })).status, 404);
    assert.equal((await raw(emu, "PUT", `${MAPPED_PATH}/k?map_index=5`, { json: { value: 1 } })).status, 204);
    const bad = await raw(emu, "GET", `${MAPPED_PATH}?map_index=-2`);
    assert.equal(bad.status, 422);
    assert.deepEqual(issues(bad.body)[0].loc, ["query", "map_index"]);
  });

  it("DELETE of a key is 204 and a no-op when absent", async (t) => {
    const emu = await emulatorFor(t);
    const scope = { dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 };
    const res = await raw(emu, "DELETE", `${LLM_PATH}/openai_batch_id`);
    assert.equal(res.status, 204);
    assert.equal(emu.state.getTaskEntry(scope, "openai_batch_id"), undefined);
    assert.equal((await raw(emu, "DELETE", `${LLM_PATH}/openai_batch_id`)).status, 204);
    assert.equal(emu.state.taskEntries(scope).length, 3);
  });

  it("clear removes one map index, or every index with all_map_indices=true", async (t) => {
    const emu = await emulatorFor(t);
    const count = (i: number) =>
      emu.state.taskEntries({ dag_id: DEMO.partitions.dagId, run_id: DEMO.partitions.run, task_id: DEMO.partitions.taskId, map_index: i }).length;
    assert.deepEqual([0, 1, 2, 3, 4].map(count), [2, 2, 2, 2, 2]);
    assert.equal((await raw(emu, "DELETE", `${MAPPED_PATH}?map_index=2`)).status, 204);
    assert.deepEqual([0, 1, 2, 3, 4].map(count), [2, 2, 0, 2, 2]);
    // the mapped task has no map_index=-1 instance: a plain clear is 404, all_map_indices is not
    assert.equal((await raw(emu, "DELETE", MAPPED_PATH)).status, 404);
    assert.equal((await raw(emu, "DELETE", `${MAPPED_PATH}?all_map_indices=true`)).status, 204);
    assert.deepEqual([0, 1, 2, 3, 4].map(count), [0, 0, 0, 0, 0]);
    assert.ok(emu.state.taskEntries({ dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 }).length > 0);
    assert.equal((await raw(emu, "DELETE", `${taskStorePath("orders_daily", "nope", "x")}?all_map_indices=true`)).status, 404);
  });
});

describe("emulator: asset state store", () => {
  it("lists sorted entries with last_updated_by; GET a key; 404 for an unknown asset or key; 422 for a non-integer id", async (t) => {
    const emu = await emulatorFor(t);
    const list = (await raw(emu, "GET", "/api/v2/assets/1/state-store")).body as {
      asset_state_store: { key: string; last_updated_by: { kind: string; task_id: string | null } | null }[];
      total_entries: number;
    };
    assert.deepEqual(list.asset_state_store.map((e) => e.key), ["row_count", "schema_version", "watermark"]);
    assert.equal(list.asset_state_store[2].last_updated_by?.kind, "task");
    assert.equal(list.asset_state_store[2].last_updated_by?.task_id, "load_orders");
    const migrated = await raw(emu, "GET", "/api/v2/assets/3/state-store/migrated_from_variable");
    assert.equal(migrated.status, 200);
    assert.equal((migrated.body as { last_updated_by: unknown }).last_updated_by, null);
    const unknown = await raw(emu, "GET", "/api/v2/assets/99/state-store");
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { detail: "Asset with id 99 not found" });
    assert.equal((await raw(emu, "PUT", "/api/v2/assets/99/state-store/k", { json: { value: 1 } })).status, 404);
    assert.equal((await raw(emu, "GET", "/api/v2/assets/1/state-store/absent")).status, 404);
    const notInt = await raw(emu, "GET", "/api/v2/assets/orders/state-store");
    assert.equal(notInt.status, 422);
    assert.deepEqual(issues(notInt.body)[0].loc, ["path", "asset_id"]);
  });

  it("PUT writes {value} only, records last_updated_by kind api; DELETE key no-op; DELETE all", async (t) => {
    const emu = await emulatorFor(t);
    assert.equal((await raw(emu, "PUT", "/api/v2/assets/2/state-store/a%2Fb", { json: { value: { x: 1 } } })).status, 204);
    const entry = (await raw(emu, "GET", "/api/v2/assets/2/state-store/a%2Fb")).body as { key: string; value: unknown; last_updated_by: unknown };
    assert.equal(entry.key, "a/b");
    assert.deepEqual(entry.value, { x: 1 });
    assert.deepEqual(entry.last_updated_by, { kind: "api", dag_id: null, run_id: null, task_id: null, map_index: null });
    const withExpiry = await raw(emu, "PUT", "/api/v2/assets/2/state-store/k", { json: { value: 1, expires_at: null } });
    assert.equal(withExpiry.status, 422);
    assert.equal(issues(withExpiry.body)[0].type, "extra_forbidden");
    assert.equal((await raw(emu, "PUT", "/api/v2/assets/2/state-store/k", { body: '{"value": Infinity}' })).status, 422);
    assert.equal((await raw(emu, "DELETE", "/api/v2/assets/2/state-store/never-there")).status, 204);
    assert.equal((await raw(emu, "DELETE", "/api/v2/assets/3/state-store")).status, 204);
    assert.equal(emu.state.assetEntries(3).length, 0);
    assert.equal(emu.state.assetEntries(1).length, 3);
  });
});

describe("emulator: fault modes", () => {
  it("delays, answers 500, resets, sends malformed JSON — per path, per method, a number of times", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "status", status: 500 }, { path: "/api/v2/assets", times: 1 });
    const failed = await raw(emu, "GET", "/api/v2/assets");
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body, { detail: "Internal Server Error" });
    assert.equal((await raw(emu, "GET", "/api/v2/assets")).status, 200, "times: 1 applies once");
    assert.equal((await raw(emu, "GET", "/api/v2/dags")).status, 200);

    emu.setFault({ type: "malformed" }, { path: /\/dags$/ });
    const malformed = await raw(emu, "GET", "/api/v2/dags");
    assert.equal(malformed.status, 200);
    assert.throws(() => JSON.parse(malformed.text));
    assert.equal((await raw(emu, "GET", "/api/v2/assets")).status, 200);
    emu.clearFaults();

    emu.setFault({ type: "reset" }, { method: "DELETE" });
    await assert.rejects(raw(emu, "DELETE", `${LLM_PATH}/openai_batch_id`), TypeError);
    assert.ok(emu.state.getTaskEntry({ dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 }, "openai_batch_id"));
    assert.equal((await raw(emu, "GET", "/api/v2/version")).status, 200);
    emu.setFault(null);

    emu.setFault({ type: "delay", ms: 300 }, { path: "/api/v2/version" });
    const started = Date.now();
    assert.equal((await raw(emu, "GET", "/api/v2/version")).status, 200);
    assert.ok(Date.now() - started >= 290, `delayed ${Date.now() - started} ms`);
    const quick = Date.now();
    await raw(emu, "GET", "/api/v2/assets");
    assert.ok(Date.now() - quick < 250, `other paths are not delayed (${Date.now() - quick} ms)`);
  });

  it("records every request, including those a fault answered", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "status", status: 503 });
    await raw(emu, "PUT", `${LLM_PATH}/a%2Fb?map_index=-1`, { json: { value: 1 } });
    const last = emu.requests[emu.requests.length - 1];
    assert.equal(last.method, "PUT");
    assert.equal(last.rawPath, `${LLM_PATH}/a%2Fb`);
    assert.ok(last.path.endsWith("/state-store/a/b"));
    assert.equal(last.query.get("map_index"), "-1");
    assert.equal(last.body, '{"value":1}');
    assert.equal(last.authorization, "Bearer emulator-admin-token");
  });
});

describe("emulator: numbers, expiry as epoch seconds, nesting", () => {
  it("keeps each number as Python does: exact ints, floats written with repr()", async (t) => {
    const emu = await emulatorFor(t);
    const body = '{"value": [9007199254740993, 1.0, -0.0, 1e5, 1.10, 123456789012345678901234567890, 2.5e-7, -0]}';
    assert.equal((await raw(emu, "PUT", `${LLM_PATH}/n`, { body })).status, 204);
    const scope = { dag_id: DEMO.llm.dagId, run_id: DEMO.llm.run, task_id: DEMO.llm.taskId, map_index: -1 };
    assert.equal(emu.state.getTaskEntry(scope, "n")?.value, "[9007199254740993, 1.0, -0.0, 100000.0, 1.1, 123456789012345678901234567890, 2.5e-07, 0]");
    const answer = await raw(emu, "GET", `${LLM_PATH}/n`);
    assert.match(answer.text, /"value":\[9007199254740993,1\.0,-0\.0,100000\.0,1\.1,123456789012345678901234567890,2\.5e-07,0\]/);
    const listed = await raw(emu, "GET", LLM_PATH);
    assert.match(listed.text, /"key":"n","value":\[9007199254740993,1\.0,/);
  });

  it("takes expires_at as seconds since the epoch (milliseconds above 2e10, as pydantic does)", async (t) => {
    const emu = await emulatorFor(t);
    const expiry = async (expires_at: unknown) => {
      assert.equal((await raw(emu, "PUT", `${LLM_PATH}/e`, { json: { value: 1, expires_at } })).status, 204);
      return ((await raw(emu, "GET", `${LLM_PATH}/e`)).body as { expires_at: string }).expires_at;
    };
    assert.equal(await expiry(1798761600), "2027-01-01T00:00:00.000Z");
    assert.equal(await expiry(1798761600.5), "2027-01-01T00:00:00.500Z");
    assert.equal(await expiry(1798761600000), "2027-01-01T00:00:00.000Z");
    assert.equal(await expiry("1798761600"), "2027-01-01T00:00:00.000Z");
  });

  it("answers 400 to a body nested past Python's recursion limit, as FastAPI does", async (t) => {
    const emu = await emulatorFor(t);
    const deep = `{"value": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const answer = await raw(emu, "PUT", `${LLM_PATH}/deep`, { body: deep });
    assert.deepEqual([answer.status, answer.body], [400, { detail: "There was an error parsing the body" }]);
  });

  it("passes newer last_updated_by fields (task instance id, region, try) through", async (t) => {
    const emu = await emulatorFor(t);
    emu.state.setAssetEntry(DEMO.assets.orders, "w", 1, { ...writerOf(), try_number: 3, region_id: "eu", region_index: 0, task_instance_id: "0196-ti" });
    const entry = (await raw(emu, "GET", `/api/v2/assets/${DEMO.assets.orders}/state-store/w`)).body as { last_updated_by: Record<string, unknown> };
    assert.deepEqual(entry.last_updated_by, { ...writerOf(), try_number: 3, region_id: "eu", region_index: 0, task_instance_id: "0196-ti" });
  });
});

function writerOf() {
  return { kind: "task" as const, dag_id: "orders_daily", run_id: "r", task_id: "load", map_index: -1 };
}

describe("emulator: connection faults", () => {
  it("closes the connection without an answer, as a restarted Airflow's kept-alive connection does", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "close" }, { path: "/api/v2/dags", times: 1 });
    await assert.rejects(raw(emu, "GET", "/api/v2/dags"), (err: unknown) => {
      const cause = (err as { cause?: { code?: string } }).cause;
      assert.equal(cause?.code, "UND_ERR_SOCKET");
      return true;
    });
    assert.equal((await raw(emu, "GET", "/api/v2/dags")).status, 200);
  });

  it("answers with a proxy's HTML error page", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "html" }, { times: 1 });
    const page = await raw(emu, "GET", "/api/v2/dags");
    assert.equal(page.status, 502);
    assert.match(page.text, /^<html>[\s\S]*<title>502 Bad Gateway<\/title>/);
  });
});
