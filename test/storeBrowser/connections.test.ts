/** Environments from settings, their secrets, sign-in and the untrusted-workspace gate. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuthError } from "../../client/src/rest";
import { Connections } from "../../client/src/storeBrowser/connections";
import { activeEnvironment, readEnvironments, secretKey, toSetting } from "../../client/src/storeBrowser/environments";
import { MemorySecrets, emulatorFor, passwordEnv, settingsWith, signedIn } from "./helpers";

describe("environments setting", () => {
  it("reads valid entries and reports each skipped one", () => {
    const { environments, problems } = readEnvironments([
      { name: "prod", baseUrl: "https://airflow.example.com/", auth: "password", username: "ops" },
      { name: "mwaa", baseUrl: "https://x.example.com", auth: "token", verifyTls: false },
      { name: "local", baseUrl: "http://127.0.0.1:28080" },
      { name: "prod", baseUrl: "http://other" },
      { baseUrl: "http://x" },
      { name: "bad", baseUrl: "ftp://x" },
      { name: "nouser", baseUrl: "http://x", auth: "password" },
      { name: "kind", baseUrl: "http://x", auth: "kerberos" },
      "text",
    ]);
    assert.deepEqual(environments, [
      { name: "prod", baseUrl: "https://airflow.example.com", auth: "password", username: "ops", verifyTls: true },
      { name: "mwaa", baseUrl: "https://x.example.com", auth: "token", username: undefined, verifyTls: false },
      { name: "local", baseUrl: "http://127.0.0.1:28080", auth: "none", username: undefined, verifyTls: true },
    ]);
    assert.deepEqual(problems, [
      'Environment "prod" is defined twice; the first definition is used.',
      "Environment 5 has no name.",
      'Environment "bad": The Airflow URL must start with http:// or https://, got "ftp://x".',
      'Environment "nouser": auth "password" needs a username.',
      'Environment "kind": auth must be "password", "token" or "none".',
      "Environment 9 is not an object.",
    ]);
    assert.deepEqual(readEnvironments({}).problems, ["airflowStateStore.environments must be an array of environments."]);
    assert.deepEqual(toSetting(environments[1]), { name: "mwaa", baseUrl: "https://x.example.com", auth: "token", verifyTls: false });
    assert.equal(activeEnvironment(environments, "local")?.name, "local");
    assert.equal(activeEnvironment(environments, "gone")?.name, "prod");
  });

  it("keys a secret by URL and user, so a renamed URL never receives the old password", () => {
    const env = { name: "prod", baseUrl: "https://a.example.com", auth: "password" as const, username: "ops", verifyTls: true };
    assert.notEqual(secretKey(env), secretKey({ ...env, baseUrl: "https://evil.example.com" }));
    assert.notEqual(secretKey(env), secretKey({ ...env, username: "admin" }));
    assert.equal(secretKey({ ...env, name: "renamed" }), secretKey(env));
    assert.equal(secretKey({ ...env, auth: "none" }), undefined);
  });
});

describe("connections", () => {
  it("signs in only with credentials Airflow accepts, and keeps them in the secret store", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const connections = new Connections(secrets);
    const env = passwordEnv(emu);
    connections.update(settingsWith([env]));
    assert.equal((await connections.connect()).kind, "signed-out");
    await assert.rejects(connections.signIn(env, "wrong"), (e: unknown) => e instanceof AuthError && e.reason === "invalid-credentials");
    assert.deepEqual(secrets.writes, [], "a rejected password is not kept");
    await connections.signIn(env, "admin");
    assert.deepEqual(secrets.writes, [`store ${secretKey(env)}`]);
    const ready = await connections.connect();
    assert.equal(ready.kind, "ready");
    if (ready.kind === "ready") assert.equal((await ready.client.listDags()).totalEntries, 6);
    await connections.signOut(env);
    assert.equal((await connections.connect()).kind, "signed-out");
    assert.equal(secrets.values.size, 0);
  });

  it("checks a static token by listing a DAG", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const connections = new Connections(secrets);
    const env = { name: "managed", baseUrl: emu.url, auth: "token" as const, verifyTls: true };
    connections.update(settingsWith([env]));
    await assert.rejects(connections.signIn(env, "nope"), (e: unknown) => e instanceof AuthError && e.reason === "token-rejected");
    await connections.signIn(env, "emulator-viewer-token");
    assert.equal(secrets.values.get(secretKey(env)!), "emulator-viewer-token");
    assert.ok(emu.requests.some((r) => r.path === "/api/v2/dags" && r.query.get("limit") === "1"));
  });

  it("learns from the viewer's token that it may only read, before any write is tried", async (t) => {
    const emu = await emulatorFor(t);
    const { connections, env } = await signedIn(emu, { username: "viewer" });
    const ready = await connections.connect();
    assert.equal(ready.kind, "ready");
    assert.equal(connections.health.of(env).readOnly, undefined, "nothing is known before the token");
    if (ready.kind === "ready") await ready.client.listDags({ limit: 1 }); // signs in with the stored password
    assert.equal(connections.health.of(env).readOnlyRole, "viewer");
    assert.ok(!emu.requests.some((r) => r.method !== "GET" && r.path !== "/auth/token"), "no write was sent");

    const admin = await signedIn(emu);
    const adminReady = await admin.connections.connect();
    if (adminReady.kind === "ready") await adminReady.client.listDags({ limit: 1 });
    assert.deepEqual(admin.connections.health.of(admin.env), {}, "admin may write");

    const fresh = new Connections(new MemorySecrets());
    fresh.update(settingsWith([env]));
    await fresh.signIn(env, "viewer");
    assert.equal(fresh.health.of(env).readOnlyRole, "viewer", "known on sign-in");
  });

  it("reads an API token's role when the client is made; an opaque token leaves the environment writable", async (t) => {
    const emu = await emulatorFor(t);
    const login = await fetch(`${emu.url}/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "viewer", password: "viewer" }) });
    const viewerJwt = ((await login.json()) as { access_token: string }).access_token;
    const jwtEnv = { name: "managed", baseUrl: emu.url, auth: "token" as const, verifyTls: true };
    const opaqueEnv = { ...jwtEnv, name: "opaque" };
    const secrets = new MemorySecrets();
    secrets.values.set(secretKey(jwtEnv)!, viewerJwt);
    const connections = new Connections(secrets);
    connections.update(settingsWith([jwtEnv, opaqueEnv]));
    const before = emu.requests.length;
    assert.equal((await connections.connect(jwtEnv)).kind, "ready");
    assert.equal(connections.health.of(jwtEnv).readOnlyRole, "viewer");
    assert.equal(emu.requests.length, before, "read from the token, not asked");
    await connections.signIn(opaqueEnv, "emulator-viewer-token");
    assert.equal(connections.health.of(opaqueEnv).readOnly, undefined, "the refused-write path still catches it");
  });

  it("sends nothing, not even a sign-in, from an untrusted workspace", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const env = passwordEnv(emu);
    secrets.values.set(secretKey(env)!, "admin");
    const connections = new Connections(secrets);
    connections.update(settingsWith([env], { trusted: false }));
    assert.deepEqual(await connections.connect(), { kind: "untrusted" });
    await assert.rejects(connections.signIn(env, "admin"), /untrusted workspace/);
    assert.equal(emu.requests.length, 0);
  });

  it("builds a new client when the environment's settings change, and drops the old one's secret use", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const env = passwordEnv(emu);
    secrets.values.set(secretKey(env)!, "admin");
    const connections = new Connections(secrets);
    connections.update(settingsWith([env]));
    const first = await connections.connect();
    const again = await connections.connect();
    assert.ok(first.kind === "ready" && again.kind === "ready" && first.client === again.client, "one client per environment");
    connections.update(settingsWith([{ ...env, baseUrl: "http://127.0.0.1:9" }]));
    assert.equal((await connections.connect()).kind, "signed-out", "the password typed for the old URL is not used for the new one");
    connections.update(settingsWith([env], { maxValueLength: 10 }));
    const limited = await connections.connect();
    assert.ok(limited.kind === "ready" && limited.client.maxValueLength === 10);
  });

  it("asks for the version once per environment until forgotten; failures are retried", async (t) => {
    const emu = await emulatorFor(t, { version: "3.2.0" });
    const { connections, env } = await signedIn(emu);
    const ready = await connections.connect();
    assert.equal(ready.kind, "ready");
    if (ready.kind !== "ready") return;
    emu.setFault({ type: "status", status: 503 }, { path: "/api/v2/version", times: 1 });
    await assert.rejects(connections.version(env, ready.client));
    assert.equal(await connections.supportsStore(env, ready.client), false);
    await connections.version(env, ready.client);
    assert.equal(emu.requests.filter((r) => r.path === "/api/v2/version").length, 2);
    connections.forget(env);
    await connections.version(env, ready.client);
    assert.equal(emu.requests.filter((r) => r.path === "/api/v2/version").length, 3);
  });
});
