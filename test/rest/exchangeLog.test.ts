/**
 * The REST client tells an observer of each exchange (method, path, status, duration, or why no
 * answer came) and nothing else, and the extension's log writes those as lines at the levels of
 * `airflowStateStore.logLevel`, never with a credential or a value.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { exchangeLine, ExtensionLog, settingsLine, type LogChannel } from "../../client/src/log";
import { AirflowClient } from "../../client/src/rest/client";
import type { ExchangeRecord } from "../../client/src/rest/http";
import type { FetchLike } from "../../client/src/rest/types";

const PASSWORD = "s3cret-password";
const VALUE = "a-stored-value-9007199254740993";

/** A fake Airflow: a token for the sign-in, an entry for a GET, 403 for a PUT, a refused connection for /broken. */
const fakeFetch: FetchLike = async (input, init) => {
  const url = new URL(String(input));
  if (url.pathname.startsWith("/broken/")) throw Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
  if (url.pathname === "/auth/token") return new Response(JSON.stringify({ access_token: "token-abc" }), { status: 201, headers: { "content-type": "application/json" } });
  if (init?.method === "PUT") return new Response(JSON.stringify({ detail: "Forbidden" }), { status: 403, headers: { "content-type": "application/json" } });
  return new Response(JSON.stringify({ dags: [], total_entries: 0, value: VALUE }), { status: 200, headers: { "content-type": "application/json" } });
};

function recordingChannel(): LogChannel & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    error: (m) => lines.push(`error ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    info: (m) => lines.push(`info ${m}`),
    debug: (m) => lines.push(`debug ${m}`),
  };
}

describe("the REST client's exchange observer", () => {
  test("sees every exchange, the sign-in included, with no header and no body", async () => {
    const records: ExchangeRecord[] = [];
    const client = new AirflowClient({ baseUrl: "http://airflow.test", auth: { kind: "password", username: "admin", password: PASSWORD }, fetch: fakeFetch, onExchange: (r) => records.push(r) });
    await client.listDags({ limit: 1 });
    await assert.rejects(client.putTaskStateEntry({ dagId: "d", runId: "r", taskId: "t", mapIndex: -1 }, "k", VALUE));
    assert.deepEqual(
      records.map((r) => `${r.method} ${r.target} ${r.status}`),
      ["POST /auth/token 201", "GET /api/v2/dags?limit=1 200", "PUT /api/v2/dags/d/dagRuns/r/taskInstances/t/state-store/k?map_index=-1 403"],
    );
    for (const record of records) {
      assert.ok(record.durationMs >= 0);
      assert.ok(!JSON.stringify(record).includes(PASSWORD) && !JSON.stringify(record).includes(VALUE) && !JSON.stringify(record).includes("token-abc"));
    }
  });

  test("a failed connection is recorded with its reason, and an observer that throws does not fail the request", async () => {
    const records: ExchangeRecord[] = [];
    const broken = new AirflowClient({ baseUrl: "http://airflow.test/broken", fetch: fakeFetch, onExchange: (r) => records.push(r) });
    await assert.rejects(broken.getVersion());
    assert.equal(records[0].status, undefined);
    assert.match(records[0].error?.message ?? "", /Cannot reach Airflow at http:\/\/airflow\.test\/broken \(ECONNREFUSED\)/);
    const throwing = new AirflowClient({ baseUrl: "http://airflow.test", fetch: fakeFetch, onExchange: () => { throw new Error("log is gone"); } });
    assert.equal((await throwing.listDags()).totalEntries, 0);
  });
});

describe("the extension's log", () => {
  const record = (overrides: Partial<ExchangeRecord>): ExchangeRecord => ({ method: "GET", target: "/api/v2/dags?limit=50", durationMs: 12.4, ...overrides });

  test("a successful call is a debug line; an error status and no answer are errors, a 401 a warning", () => {
    assert.deepEqual(exchangeLine("emulator", record({ status: 200 })), { level: "debug", text: "REST emulator: GET /api/v2/dags?limit=50 200 (12 ms)" });
    assert.deepEqual(exchangeLine("emulator", record({ method: "PUT", status: 403 })), { level: "error", text: "REST emulator: PUT /api/v2/dags?limit=50 403 Forbidden (12 ms)" });
    assert.equal(exchangeLine("emulator", record({ status: 401 })).level, "warn");
    const refused = exchangeLine("emulator", record({ error: Object.assign(new Error("Cannot reach Airflow at http://x (ECONNREFUSED)"), { name: "NetworkError" }) as ExchangeRecord["error"] }));
    assert.deepEqual(refused, { level: "error", text: "REST emulator: GET /api/v2/dags?limit=50 failed after 12 ms: Cannot reach Airflow at http://x (ECONNREFUSED)" });
    const cancelled = exchangeLine("emulator", record({ error: Object.assign(new Error("cancelled"), { name: "CancelledError" }) as ExchangeRecord["error"] }));
    assert.equal(cancelled.level, "debug");
  });

  test("writes what the level lets through; errors always", () => {
    const channel = recordingChannel();
    const log = new ExtensionLog(channel, "info");
    log.exchange("emulator", record({ status: 200 }));
    log.info("started");
    log.failure("Saving key k on emulator", new Error("403 Forbidden: Forbidden"));
    log.level = "debug";
    log.exchange("emulator", record({ status: 200 }));
    log.level = "error";
    log.warn("not shown");
    log.info("not shown");
    log.error("shown");
    assert.deepEqual(channel.lines, [
      "info started",
      "error Saving key k on emulator failed: 403 Forbidden: Forbidden",
      "debug REST emulator: GET /api/v2/dags?limit=50 200 (12 ms)",
      "error shown",
    ]);
  });

  test("the settings line shows every setting, environments by name, address, auth and TLS check only", () => {
    const line = settingsLine("airflowStateStore", {
      enable: true,
      rules: { AS103: "warning" },
      environments: [{ name: "prod", baseUrl: "https://user:hunter2@airflow.example.com", auth: "password", username: "admin", verifyTls: false, token: PASSWORD }],
      logLevel: "debug",
    });
    assert.equal(
      line,
      'Settings in effect (airflowStateStore.*): enable true; environments [prod https://airflow.example.com/ (credentials in the URL left out) (auth password, TLS not verified)]; logLevel "debug"; rules {"AS103":"warning"}',
    );
    assert.ok(!line.includes(PASSWORD) && !line.includes("hunter2"));
  });
});
