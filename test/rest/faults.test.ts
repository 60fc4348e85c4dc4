/** Fault modes, timeouts, cancellation and the concurrency bound. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AirflowClient,
  AirflowHttpError,
  AuthError,
  CancelledError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  SignInError,
  TimeoutError,
} from "../../client/src/rest";
import { startEmulator } from "../emulator";
import { SPARK_TI, adminClient, emulatorFor, plain, received } from "./helpers";

function tokenClient(url: string, options: Partial<ConstructorParameters<typeof AirflowClient>[0]> = {}): AirflowClient {
  return new AirflowClient({ baseUrl: url, auth: { kind: "token", token: "emulator-admin-token" }, timeoutMs: 5000, ...options });
}

describe("faults: server errors and broken responses", () => {
  it("a 500 becomes AirflowHttpError with status and detail (not a subclass)", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "status", status: 500 }, { path: "/api/v2/dags" });
    await assert.rejects(tokenClient(emu.url).listDags(), (err: unknown) => {
      assert.ok(err instanceof AirflowHttpError);
      assert.equal(err.constructor, AirflowHttpError);
      assert.equal(err.status, 500);
      assert.equal(err.detail, "Internal Server Error");
      assert.equal(err.message, "500 Internal Server Error: Internal Server Error");
      return true;
    });
  });

  it("an error body that is not JSON still gives a typed error with the text as detail", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "malformed", status: 404 }, { path: "/api/v2/assets" });
    await assert.rejects(tokenClient(emu.url).listAssets(), (err: unknown) => err instanceof NotFoundError && err.detail.startsWith('{"total_entries": 3'));
  });

  it("a connection reset twice becomes NetworkError with the socket error code (after one retry of the PUT)", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "reset" }, { method: "PUT" });
    const client = tokenClient(emu.url);
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", 1), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.ok(err.code === "ECONNRESET" || err.code === "UND_ERR_SOCKET", `code ${err.code}`);
      assert.match(err.message, /connection to Airflow at .* failed during PUT .*state-store\/k/);
      return true;
    });
    assert.equal(received(emu, "PUT", "/state-store/k"), 2);
    emu.clearFaults();
    await client.putTaskStateEntry(SPARK_TI, "k", 1);
    assert.equal(plain((await client.getTaskStateEntry(SPARK_TI, "k")).value), 1);
  });

  it("a server that is not there becomes NetworkError ECONNREFUSED", async () => {
    const emu = await startEmulator();
    const url = emu.url;
    await emu.close();
    await assert.rejects(tokenClient(url).listDags(), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.equal(err.code, "ECONNREFUSED");
      assert.equal(err.message, `Cannot reach Airflow at ${url} (ECONNREFUSED)`);
      return true;
    });
  });

  it("malformed JSON on a success becomes InvalidResponseError (entries, lists, version)", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "malformed" });
    const client = tokenClient(emu.url);
    for (const call of [() => client.getTaskStateEntry(SPARK_TI, "spark_job_id"), () => client.listTaskStateEntries(SPARK_TI), () => client.getVersion(), () => client.listAssetStateEntries(1)]) {
      await assert.rejects(call(), (err: unknown) => err instanceof InvalidResponseError && err.status === 200 && /not valid JSON/.test(err.message));
    }
  });
});

describe("faults: timeouts and cancellation", () => {
  it("times out a slow request with TimeoutError (client default and per-call override)", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "delay", ms: 2000 }, { path: "/api/v2/dags" });
    const started = Date.now();
    await assert.rejects(tokenClient(emu.url, { timeoutMs: 60 }).listDags(), (err: unknown) => {
      assert.ok(err instanceof TimeoutError);
      assert.equal(err.timeoutMs, 60);
      assert.equal(err.message, "GET /api/v2/dags timed out after 60 ms");
      return true;
    });
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    await assert.rejects(tokenClient(emu.url).listDags({ timeoutMs: 50 }), (err: unknown) => err instanceof TimeoutError && err.timeoutMs === 50);
    assert.equal((await tokenClient(emu.url, { timeoutMs: 60 }).listAssets()).totalEntries, 4, "other paths are not delayed");
  });

  it("starts the timeout when the request gets a concurrency slot, not while it waits", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "delay", ms: 70 }, { path: "/api/v2/assets" });
    const client = tokenClient(emu.url, { maxConcurrency: 1, timeoutMs: 150 });
    const pages = await Promise.all([1, 2, 3, 4].map(() => client.listAssets()));
    assert.equal(pages.length, 4);
    assert.equal(emu.state.maxInFlight, 1);
  });

  it("cancels an in-flight request with CancelledError", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "delay", ms: 2000 }, { path: "/api/v2/assets/1/state-store" });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 30);
    await assert.rejects(tokenClient(emu.url).listAssetStateEntries(1, { signal: controller.signal }), CancelledError);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    assert.equal(received(emu, "GET", "/api/v2/assets/1/state-store"), 1);
  });

  it("an already aborted signal sends nothing", async (t) => {
    const emu = await emulatorFor(t);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(tokenClient(emu.url).putTaskStateEntry(SPARK_TI, "k", 1, { signal: controller.signal }), CancelledError);
    assert.equal(emu.requests.length, 0);
  });

  it("cancels a request still waiting for a concurrency slot; it never reaches the server", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "delay", ms: 150 }, { path: "/api/v2/dags" });
    const client = tokenClient(emu.url, { maxConcurrency: 1 });
    const first = client.listDags();
    const controller = new AbortController();
    const queued = client.listAssets({ signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(client.queuedRequests, 1);
    controller.abort();
    await assert.rejects(queued, CancelledError);
    assert.equal(client.queuedRequests, 0);
    assert.equal((await first).totalEntries, 6);
    assert.equal(received(emu, "GET", "/api/v2/assets"), 0);
    assert.equal((await client.listAssets()).totalEntries, 4, "the slot was released");
  });
});

describe("faults: bounded concurrency", () => {
  async function peak(t: Parameters<typeof emulatorFor>[0], maxConcurrency: number | undefined, requests: number): Promise<{ server: number; client: number }> {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "delay", ms: 60 }, { path: "/api/v2/assets" });
    const client = tokenClient(emu.url, maxConcurrency === undefined ? {} : { maxConcurrency });
    let clientPeak = 0;
    const calls = Array.from({ length: requests }, () => client.listAssets());
    const sampler = setInterval(() => (clientPeak = Math.max(clientPeak, client.inFlightRequests)), 5);
    await Promise.all(calls);
    clearInterval(sampler);
    assert.equal(received(emu, "GET", "/api/v2/assets"), requests);
    return { server: emu.state.maxInFlight, client: clientPeak };
  }

  it("keeps at most 4 requests in flight by default", async (t) => {
    const { server, client } = await peak(t, undefined, 10);
    assert.equal(server, 4);
    assert.ok(client <= 4 && client >= 1);
  });

  it("honours a configured bound (2) and lets more through with a larger one (8)", async (t) => {
    assert.equal((await peak(t, 2, 7)).server, 2);
    assert.equal((await peak(t, 8, 8)).server, 8);
  });
});

describe("faults: a restarted Airflow, a proxy in front of it, a failing sign-in", () => {
  it("sends an idempotent request again, once, when its kept-alive connection was closed (UND_ERR_SOCKET)", async (t) => {
    const emu = await emulatorFor(t);
    const client = tokenClient(emu.url);
    await client.listDags();
    for (const [method, call] of [
      ["GET", () => client.listDags()],
      ["PUT", () => client.putTaskStateEntry(SPARK_TI, "k", 1)],
      ["DELETE", () => client.deleteTaskStateEntry(SPARK_TI, "k")],
    ] as const) {
      emu.clearRequests();
      emu.setFault({ type: "close" }, { method, times: 1 });
      await call();
      assert.equal(emu.requests.filter((r) => r.method === method).length, 2, `${method}: the request and its one retry`);
    }
  });

  it("does not send a PATCH again (it may have reached Airflow) and says the connection broke", async (t) => {
    const emu = await emulatorFor(t);
    const client = tokenClient(emu.url);
    emu.setFault({ type: "close" }, { method: "PATCH", times: 1 });
    await assert.rejects(client.patchTaskStateEntry(SPARK_TI, "spark_job_id", "x"), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.equal(err.code, "UND_ERR_SOCKET");
      assert.match(err.message, /^The connection to Airflow at .* failed during PATCH /);
      return true;
    });
    assert.equal(received(emu, "PATCH", "/state-store/spark_job_id"), 1);
  });

  it("reports a refused retry as 'Cannot reach Airflow at …'", async () => {
    const codes = ["UND_ERR_SOCKET", "ECONNREFUSED"];
    const calls: string[] = [];
    const fetchStub: typeof fetch = async () => {
      const code = codes[calls.length] ?? "ECONNREFUSED";
      calls.push(code);
      throw new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
    };
    const client = tokenClient("http://airflow.internal:8080", { fetch: fetchStub });
    await assert.rejects(client.listDags(), (err: unknown) => err instanceof NetworkError && err.message === "Cannot reach Airflow at http://airflow.internal:8080 (ECONNREFUSED)");
    assert.deepEqual(calls, ["UND_ERR_SOCKET", "ECONNREFUSED"], "one retry, no more");
  });

  it("summarises a proxy's HTML error page instead of pasting it", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "html", status: 502 }, { path: "/api/v2/dags" });
    await assert.rejects(tokenClient(emu.url).listDags(), (err: unknown) => {
      assert.ok(err instanceof AirflowHttpError);
      assert.equal(err.status, 502);
      assert.equal(
        err.message,
        `502 Bad Gateway: an HTML page titled "502 Bad Gateway", not Airflow's JSON: a proxy or gateway in front of Airflow may have answered`,
      );
      assert.doesNotMatch(err.message, /<|nginx/);
      return true;
    });
    emu.setFault({ type: "html", status: 200 }, { path: "/api/v2/assets" });
    await assert.rejects(tokenClient(emu.url).listAssets(), (err: unknown) => {
      assert.ok(err instanceof InvalidResponseError);
      assert.match(err.message, /with an HTML page titled "200 Bad Gateway"/);
      assert.doesNotMatch(err.bodySnippet, /</);
      return true;
    });
  });

  it("says that the sign-in failed when /auth/token answers 500", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "status", status: 500 }, { path: "/auth/token" });
    await assert.rejects(adminClient(emu).listDags(), (err: unknown) => {
      assert.ok(err instanceof SignInError && err instanceof AirflowHttpError && !(err instanceof AuthError));
      assert.equal(err.status, 500);
      assert.equal(
        err.message,
        `Sign-in to ${emu.url} as "admin" failed: Airflow answered 500 Internal Server Error (Internal Server Error). The credentials were not checked.`,
      );
      return true;
    });
    assert.equal(received(emu, "GET", "/api/v2/dags"), 0);
  });
});

describe("faults: an answer nested too deep", () => {
  it("refuses to read a value nested deeper than 1000 levels, with that reason", async () => {
    const body = `{"key": "k", "value": ${"[".repeat(5000)}${"]".repeat(5000)}, "updated_at": "2026-05-03T00:00:00Z", "expires_at": null}`;
    const fetchStub: typeof fetch = async () => new Response(body, { status: 200, headers: { "Content-Type": "application/json" } });
    await assert.rejects(tokenClient("http://airflow.internal:8080", { fetch: fetchStub }).getTaskStateEntry(SPARK_TI, "k"), (err: unknown) => {
      assert.ok(err instanceof InvalidResponseError);
      assert.match(err.message, /holds a value nested deeper than 1000 levels; it is not read/);
      return true;
    });
  });
});
