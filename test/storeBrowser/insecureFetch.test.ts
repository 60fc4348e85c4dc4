/**
 * Environments with `verifyTls: false`: a self-signed HTTPS server in front of the emulator is
 * refused by the default fetch (with a message that points at the setting) and reached through
 * insecureFetch, credentials included.
 */
import assert from "node:assert/strict";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { AirflowClient, NetworkError } from "../../client/src/rest";
import { Connections } from "../../client/src/storeBrowser/connections";
import { secretKey, type EnvironmentConfig } from "../../client/src/storeBrowser/environments";
import { insecureFetch } from "../../client/src/storeBrowser/insecureFetch";
import { problemOf } from "../../client/src/storeBrowser/problems";
import { COMMANDS } from "../../client/src/storeBrowser/commandIds";
import { MemorySecrets, emulatorFor, settingsWith } from "./helpers";

// A throwaway P-256 key and self-signed certificate for 127.0.0.1, made for this test only
// (openssl req -x509 -newkey ec -days 36500 -subj /CN=127.0.0.1). It protects nothing.
const TEST_KEY = [
  "-----BEGIN PRIVATE KEY-----",
  "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/CsKeSPHA3HZHoy7",
  "ESMud6NAVJPDZi4nzc0jDrBHgcuhRANCAAQ4qmcOADJh6CWjDJ8JczIuUUYSeeEc",
  "INItX0cYHDVY5Og9L1sE0Dy2E3Hcuo2oZ9T45NGYjIqs1uAeq74OxYsF",
  "-----END PRIVATE KEY-----",
].join("\n");
const TEST_CERT = [
  "-----BEGIN CERTIFICATE-----",
  "MIIBkTCCATagAwIBAgIUSPnpYcqUZKhhoe0qUW2J2IdI38UwCgYIKoZIzj0EAwIw",
  "FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyOTEwNTg0OVoYDzIxMjYxMTA1",
  "MTA1ODQ5WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO",
  "PQMBBwNCAAQ4qmcOADJh6CWjDJ8JczIuUUYSeeEcINItX0cYHDVY5Og9L1sE0Dy2",
  "E3Hcuo2oZ9T45NGYjIqs1uAeq74OxYsFo2QwYjAdBgNVHQ4EFgQUDfBkPjHaYpJ4",
  "eqaGrzlUbxG9j6gwHwYDVR0jBBgwFoAUDfBkPjHaYpJ4eqaGrzlUbxG9j6gwDwYD",
  "VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC",
  "IQC9ZEV4X8ml3qStnPLE6YePQfDZEJm4SpgJr652UUCU3AIhANJYudyXowJu7/cc",
  "o+sLiKvb8ssKfaE0sFt2OepWHVYx",
  "-----END CERTIFICATE-----",
].join("\n");

/** An HTTPS server with the self-signed certificate that forwards every request to `target`. */
async function selfSignedProxy(t: TestContext, target: string): Promise<string> {
  const server = https.createServer({ key: TEST_KEY, cert: TEST_CERT }, (req, res) => {
    const upstream = http.request(target + req.url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("verifyTls: false", () => {
  it("the default fetch refuses the certificate, and the tree says which setting helps", async (t) => {
    const emu = await emulatorFor(t);
    const url = await selfSignedProxy(t, emu.url);
    const error = await new AirflowClient({ baseUrl: url, timeoutMs: 5000 }).getVersion().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof NetworkError, String(error));
    const problem = problemOf(error, "the DAGs", "test", { command: COMMANDS.refresh, title: "Retry" });
    assert.match(problem.text, /^The server's TLS certificate is not trusted \((DEPTH_ZERO_SELF_SIGNED_CERT|CERT_NOT_YET_VALID)\)$/);
    assert.match(problem.detail ?? "", /"verifyTls": false/);
    assert.equal(emu.requests.length, 0);
  });

  it("insecureFetch reaches the server: sign-in, JSON bodies, statuses and headers come through", async (t) => {
    const emu = await emulatorFor(t);
    const url = await selfSignedProxy(t, emu.url);
    const env: EnvironmentConfig = { name: "tls", baseUrl: url, auth: "password", username: "admin", verifyTls: false };
    const secrets = new MemorySecrets();
    secrets.values.set(secretKey(env)!, "admin");
    const connections = new Connections(secrets, { timeoutMs: 5000 });
    connections.update(settingsWith([env]));
    const connection = await connections.connect();
    assert.equal(connection.kind, "ready");
    if (connection.kind !== "ready") return;
    assert.equal((await connection.client.getVersion()).version, "3.3.0");
    assert.equal((await connection.client.listDags()).totalEntries, 6);
    const ti = { dagId: "spark_nightly", runId: "scheduled__2026-05-03T02:00:00+00:00", taskId: "submit_spark_job" };
    await connection.client.putTaskStateEntry(ti, "via/tls", { ok: "é" });
    assert.deepEqual((await connection.client.getTaskStateEntry(ti, "via/tls")).value, { ok: "é" });
    assert.ok(emu.requests.some((r) => r.method === "POST" && r.path === "/auth/token"));
  });

  it("insecureFetch honours cancellation and sends plain http through the global fetch", async (t) => {
    const emu = await emulatorFor(t);
    const url = await selfSignedProxy(t, emu.url);
    emu.setFault({ type: "delay", ms: 2000 }, { path: "/api/v2/version" });
    const controller = new AbortController();
    const pending = insecureFetch(`${url}/api/v2/version`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, (e: unknown) => e instanceof Error && e.name === "AbortError");
    emu.clearFaults();
    const plain = await insecureFetch(`${emu.url}/api/v2/version`);
    assert.equal(plain.status, 200);
    const auth = { Authorization: "Bearer emulator-admin-token" };
    const missing = await insecureFetch(`${url}/api/v2/dags/spark_nightly/dagRuns/x/taskInstances/y/state-store`, { method: "DELETE", headers: auth });
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Task instance not found/);
    const run = encodeURIComponent("scheduled__2026-05-03T02:00:00+00:00");
    const deleted = await insecureFetch(`${url}/api/v2/dags/spark_nightly/dagRuns/${run}/taskInstances/submit_spark_job/state-store/spark_job_id`, { method: "DELETE", headers: auth });
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), "");
  });
});
