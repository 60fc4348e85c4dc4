/** Authentication: password sign-in, one silent re-login on a 401, static tokens, none. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { AirflowClient, AirflowHttpError, AuthError, CancelledError, ForbiddenError, InvalidResponseError } from "../../client/src/rest";
import { SPARK_TI, adminClient, emulatorFor, plain, received } from "./helpers";

const logins = (emu: Parameters<typeof received>[0]) => received(emu, "POST", "/auth/token");

describe("auth: username and password", () => {
  it("signs in lazily on the first call, sends the bearer token, and reuses it", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    assert.equal(client.authKind, "password");
    await client.listDags();
    await client.listAssets();
    await client.getTaskStateEntry(SPARK_TI, "spark_job_id");
    assert.equal(logins(emu), 1);
    const login = emu.requests[0];
    assert.equal(login.method, "POST");
    assert.deepEqual(JSON.parse(login.body), { username: "admin", password: "admin" });
    const calls = emu.requests.slice(1);
    assert.equal(calls.length, 3);
    for (const call of calls) assert.match(call.authorization ?? "", /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(new Set(calls.map((c) => c.authorization)).size, 1);
  });

  it("reports a wrong password as a clear AuthError without retrying or calling the API", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "password", username: "admin", password: "wrong" } });
    await assert.rejects(client.signIn(), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.ok(err instanceof AirflowHttpError);
      assert.equal(err.reason, "invalid-credentials");
      assert.equal(err.status, 401);
      assert.equal(err.detail, "Invalid credentials");
      assert.equal(err.message, `Sign-in to ${emu.url} as "admin" failed: Invalid credentials. Check the username and password.`);
      return true;
    });
    await assert.rejects(client.listDags(), (err: unknown) => err instanceof AuthError && err.reason === "invalid-credentials");
    assert.equal(logins(emu), 2);
    assert.equal(received(emu, "GET", "/api/v2/dags"), 0);
  });

  it("re-logs in exactly once when the token has expired, then retries the request once", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await client.listDags();
    const firstToken = emu.requests[1].authorization;
    emu.expireTokens();
    emu.clearRequests();
    const page = await client.listAssets();
    assert.equal(page.totalEntries, 4);
    assert.deepEqual(
      emu.requests.map((r) => `${r.method} ${r.path}`),
      ["GET /api/v2/assets", "POST /auth/token", "GET /api/v2/assets"],
    );
    assert.equal(emu.requests[0].authorization, firstToken);
    assert.notEqual(emu.requests[2].authorization, firstToken);
  });

  it("renews a token that outlived its lifetime without the caller noticing", async (t) => {
    const emu = await emulatorFor(t, { tokenTtlMs: 100 });
    const client = adminClient(emu);
    await client.putTaskStateEntry(SPARK_TI, "k", 1);
    await sleep(150);
    await client.patchTaskStateEntry(SPARK_TI, "k", 2);
    assert.equal(plain((await client.getTaskStateEntry(SPARK_TI, "k")).value), 2);
    assert.equal(logins(emu), 2);
    assert.equal(received(emu, "PATCH", "/state-store/k"), 2);
  });

  it("gives up with an AuthError when the 401 persists after one re-login", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    emu.setFault({ type: "status", status: 401, detail: "Token Expired" }, { path: "/api/v2/dags" });
    await assert.rejects(client.listDags(), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.equal(err.reason, "token-rejected");
      assert.equal(err.status, 401);
      assert.match(err.message, /still rejects the session after signing in again as "admin" \(401 Token Expired\)/);
      return true;
    });
    assert.equal(logins(emu), 2, "the first sign-in and exactly one renewal");
    assert.equal(received(emu, "GET", "/api/v2/dags"), 2, "the request and exactly one retry");
  });

  it("shares one re-login between concurrent requests that all got a 401", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu, { maxConcurrency: 4 });
    await client.signIn();
    emu.expireTokens();
    emu.setFault({ type: "delay", ms: 40 }, { path: "/api/v2/assets", times: 4 });
    const pages = await Promise.all([1, 2, 3, 4].map(() => client.listAssets()));
    assert.deepEqual(pages.map((p) => p.totalEntries), [4, 4, 4, 4]);
    assert.equal(logins(emu), 2);
    assert.equal(received(emu, "GET", "/api/v2/assets"), 8);
  });

  it("does not sign in again for a 401 that arrives after another request already renewed the token", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu, { maxConcurrency: 4 });
    await client.signIn();
    emu.expireTokens();
    // three slow requests carry the old token; their 401 comes back after the fast one renewed it
    emu.setFault({ type: "delay", ms: 120 }, { path: "/api/v2/dags", times: 3 });
    const slow = [1, 2, 3].map(() => client.listDags());
    assert.equal((await client.listAssets()).totalEntries, 4);
    assert.equal(logins(emu), 2);
    const pages = await Promise.all(slow);
    assert.deepEqual(pages.map((p) => p.totalEntries), [6, 6, 6]);
    assert.equal(logins(emu), 2, "the slow requests reused the renewed token");
    assert.equal(received(emu, "GET", "/api/v2/dags"), 6);
  });

  it("signOut forgets the token; signIn surfaces errors of the token endpoint", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await client.listDags();
    client.signOut();
    await client.listDags();
    assert.equal(logins(emu), 2);
    emu.setFault({ type: "status", status: 500 }, { path: "/auth/token", times: 1 });
    await assert.rejects(client.signIn(), (err: unknown) => err instanceof AirflowHttpError && !(err instanceof AuthError) && err.status === 500);
    emu.setFault({ type: "malformed", status: 201 }, { path: "/auth/token", times: 1 });
    await assert.rejects(client.signIn(), InvalidResponseError);
    await client.signIn();
    assert.equal((await client.listDags()).totalEntries, 6);
  });

  it("lets a caller cancel while waiting for a shared sign-in, without failing the others", async (t) => {
    const emu = await emulatorFor(t);
    emu.setFault({ type: "delay", ms: 150 }, { path: "/auth/token", times: 1 });
    const client = adminClient(emu);
    const controller = new AbortController();
    const cancelled = client.listDags({ signal: controller.signal });
    const other = client.listAssets();
    setTimeout(() => controller.abort(), 30);
    await assert.rejects(cancelled, CancelledError);
    assert.equal((await other).totalEntries, 4);
    assert.equal(logins(emu), 1);
    assert.equal(received(emu, "GET", "/api/v2/dags"), 0);
  });
});

describe("auth: static token and none", () => {
  it("sends a static bearer token as is and never calls /auth/token", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "token", token: "emulator-viewer-token" } });
    assert.equal(client.authKind, "token");
    assert.equal((await client.listDags()).totalEntries, 6);
    assert.equal(emu.requests[0].authorization, "Bearer emulator-viewer-token");
    assert.equal(logins(emu), 0);
  });

  it("reports a rejected static token as AuthError without retrying", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "token", token: "revoked" } });
    await assert.rejects(client.listDags(), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.equal(err.reason, "token-rejected");
      assert.equal(err.status, 403);
      assert.match(err.message, /^The API token is not valid \(403 Invalid JWT token\): Airflow cannot verify it.*Set a new token\.$/);
      return true;
    });
    assert.equal(emu.requests.length, 1);
  });

  it("without credentials, a 401 becomes AuthError 'not-authenticated'; the version still works", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: emu.url });
    assert.equal((await client.getVersion()).version, "3.3.0");
    await assert.rejects(client.listAssets(), (err: unknown) => err instanceof AuthError && err.reason === "not-authenticated" && /requires authentication/.test(err.message));
    assert.equal(emu.requests.length, 2);
  });
});

describe("auth: tokens Airflow cannot verify (403 Invalid JWT token), empty credentials", () => {
  it("signs in again once and repeats the request after the JWT secret changed", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await client.listDags();
    emu.rotateJwtSecret();
    emu.clearRequests();
    assert.equal((await client.listAssets()).totalEntries, 4);
    assert.deepEqual(
      emu.requests.map((r) => `${r.method} ${r.path}`),
      ["GET /api/v2/assets", "POST /auth/token", "GET /api/v2/assets"],
    );
  });

  it("gives up after one renewal when Airflow still cannot verify the new token", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    emu.setFault({ type: "status", status: 403, detail: "Invalid JWT token" }, { path: "/api/v2/dags" });
    await assert.rejects(client.listDags(), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.equal(err.reason, "token-rejected");
      assert.match(err.message, /still rejects the session after signing in again as "admin" \(403 Invalid JWT token\)/);
      return true;
    });
    assert.equal(logins(emu), 2);
    assert.equal(received(emu, "GET", "/api/v2/dags"), 2);
  });

  it("does not sign in again for a 403 Forbidden: that is a missing permission", async (t) => {
    const emu = await emulatorFor(t);
    const viewer = new AirflowClient({ baseUrl: emu.url, auth: { kind: "password", username: "viewer", password: "viewer" } });
    await assert.rejects(viewer.putTaskStateEntry(SPARK_TI, "k", 1), (err: unknown) => err instanceof ForbiddenError && !(err instanceof AuthError));
    assert.equal(logins(emu), 1);
    assert.equal(received(emu, "PUT", "/state-store/k"), 1);
  });

  it("says a static token Airflow cannot verify is not valid and asks for a new one, without retrying", async (t) => {
    const emu = await emulatorFor(t);
    const token = emu.issueToken("admin");
    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "token", token } });
    await client.listDags();
    emu.rotateJwtSecret();
    await assert.rejects(client.listDags(), (err: unknown) => err instanceof AuthError && err.status === 403 && /^The API token is not valid \(403 Invalid JWT token\).*Set a new token\.$/.test(err.message));
    emu.expireTokens();
    const expired = new AirflowClient({ baseUrl: emu.url, auth: { kind: "token", token: emu.issueToken("admin") } });
    emu.expireTokens();
    await assert.rejects(expired.listDags(), (err: unknown) => err instanceof AuthError && err.status === 401 && /\(401 Token Expired\): it may have expired or been revoked\. Set a new token\./.test(err.message));
    assert.equal(logins(emu), 0);
  });

  it("reports empty credentials as Airflow's 400 answer", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "password", username: "admin", password: "" } });
    await assert.rejects(client.signIn(), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.equal(err.reason, "invalid-credentials");
      assert.equal(err.status, 400);
      assert.equal(err.message, `Sign-in to ${emu.url} as "admin" failed: Username and password must be provided. Check the username and password.`);
      return true;
    });
  });
});
