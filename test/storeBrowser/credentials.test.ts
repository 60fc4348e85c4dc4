/** Where a stored password or token may go: keys that cover the whole target, workspace-defined environments, plain http, migration. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Connections, CredentialConsentError } from "../../client/src/storeBrowser/connections";
import { credentialQuestions, environmentOrigin, isLoopback, MemoryConsents } from "../../client/src/storeBrowser/credentialPolicy";
import { legacySecretKey, secretKey, type EnvironmentConfig } from "../../client/src/storeBrowser/environments";
import { connectionProblem } from "../../client/src/storeBrowser/problems";
import { MemorySecrets, emulatorFor, passwordEnv, settingsWith } from "./helpers";

const PROD: EnvironmentConfig = { name: "prod", baseUrl: "https://airflow.example.com", auth: "password", username: "ops", verifyTls: true };
const USER_LEVEL = { globalValue: [{ name: "prod", baseUrl: "https://airflow.example.com", auth: "password", username: "ops" }] };

describe("credential policy", () => {
  it("keys a secret by everything that decides where and how it is sent", () => {
    const key = secretKey(PROD);
    assert.notEqual(key, secretKey({ ...PROD, verifyTls: false }), "a workspace turning TLS verification off gets another key");
    assert.notEqual(key, secretKey({ ...PROD, baseUrl: "https://evil.example.com" }));
    assert.notEqual(key, secretKey({ ...PROD, username: "admin" }));
    assert.notEqual(key, secretKey({ ...PROD, auth: "token", username: undefined }));
    assert.equal(key, secretKey({ ...PROD, name: "renamed", origin: "workspace" }), "the name and origin do not decide where it goes");
    assert.equal(secretKey({ ...PROD, auth: "none" }), undefined);
  });

  it("tells an environment the user defined from one that only a workspace's settings define", () => {
    assert.equal(environmentOrigin(PROD, USER_LEVEL), "user");
    assert.equal(environmentOrigin({ ...PROD, name: "other-name" }, USER_LEVEL), "user", "same target under another name");
    assert.equal(environmentOrigin({ ...PROD, verifyTls: false }, USER_LEVEL), "workspace", "the user's environment re-declared with verifyTls false");
    assert.equal(environmentOrigin({ ...PROD, baseUrl: "https://evil.example.com" }, USER_LEVEL), "workspace");
    assert.equal(environmentOrigin(PROD, { workspaceValue: USER_LEVEL.globalValue }), "workspace");
    assert.equal(environmentOrigin(PROD, { globalValue: "junk" }), "workspace");
  });

  it("asks once before credentials go to a workspace-defined environment or over plain http", async () => {
    const consents = new MemoryConsents();
    assert.deepEqual(credentialQuestions(PROD, consents), [], "the user's own https environment");
    const planted = { ...PROD, verifyTls: false, origin: "workspace" as const };
    const [question] = credentialQuestions(planted, consents);
    assert.equal(question.kind, "workspace-environment");
    assert.match(question.message, /"prod" is defined by this workspace's settings, not by yours\. Send the password of ops to https:\/\/airflow\.example\.com\?/);
    assert.match(question.detail, /turn TLS verification off \(this one does\)/);
    const http = { ...PROD, baseUrl: "http://airflow.internal:8080" };
    assert.deepEqual(credentialQuestions(http, consents).map((q) => q.kind), ["plain-http"]);
    assert.deepEqual(credentialQuestions({ ...http, auth: "none" }, consents), [], "nothing secret is sent");
    for (const local of ["http://127.0.0.1:28080", "http://localhost:8080", "http://[::1]:8080", "http://airflow.localhost"]) {
      assert.ok(isLoopback(local), local);
      assert.deepEqual(credentialQuestions({ ...PROD, baseUrl: local }, consents), [], local);
    }
    assert.ok(!isLoopback("http://127.example.com"));
  });
});

describe("connections: the credential gate", () => {
  function gated(secrets: MemorySecrets, env: EnvironmentConfig, consents = new MemoryConsents()) {
    const connections = new Connections(secrets, { timeoutMs: 5000, consents });
    connections.update(settingsWith([env]));
    return connections;
  }

  it("does not send a stored password to the user's environment re-declared by a workspace with verifyTls false", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const own = passwordEnv(emu);
    secrets.values.set(secretKey(own)!, "admin");
    const connections = gated(secrets, { ...own, verifyTls: false, origin: "workspace" });
    const connection = await connections.connect();
    assert.equal(connection.kind, "signed-out");
    assert.equal(connection.kind === "signed-out" && connection.questions, undefined, "not even a question: no secret is stored for this target");
    assert.equal(emu.requests.length, 0);
  });

  it("holds a stored secret of a workspace-defined environment back until the user allows it, once", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const env = { ...passwordEnv(emu), origin: "workspace" as const };
    secrets.values.set(secretKey(env)!, "admin");
    const consents = new MemoryConsents();
    const connections = gated(secrets, env, consents);
    const held = await connections.connect();
    assert.ok(held.kind === "signed-out" && held.questions?.[0].kind === "workspace-environment");
    if (held.kind === "signed-out") assert.match(connectionProblem(held).text, /^Confirm before credentials are sent to local$/);
    await assert.rejects(connections.signIn(env, "admin"), CredentialConsentError);
    assert.equal(emu.requests.length, 0, "nothing was sent before the answer");
    await connections.confirm(env, ["workspace-environment"]);
    const ready = await connections.connect();
    assert.equal(ready.kind, "ready");
    if (ready.kind === "ready") assert.equal((await ready.client.listDags()).totalEntries, 6);
    assert.equal(gated(secrets, env, consents).questions(env).length, 0, "asked once: the answer is kept");
  });

  it("holds credentials for plain http to another machine until the user accepts the warning", async () => {
    const secrets = new MemorySecrets();
    const env: EnvironmentConfig = { name: "lan", baseUrl: "http://airflow.internal:8080", auth: "token", verifyTls: true };
    secrets.values.set(secretKey(env)!, "token");
    const connections = gated(secrets, env);
    const held = await connections.connect();
    assert.ok(held.kind === "signed-out" && held.questions?.map((q) => q.kind).join() === "plain-http");
    await assert.rejects(connections.signIn(env, "token"), /plain http:\/\/: the API token would cross the network unencrypted/);
    await connections.confirm(env, ["plain-http"]);
    assert.equal((await connections.connect()).kind, "ready");
  });
});

describe("connections: secrets kept by an earlier version", () => {
  it("moves a password to the current key for the same environment when it verifies TLS", async (t) => {
    const emu = await emulatorFor(t);
    const secrets = new MemorySecrets();
    const env = passwordEnv(emu);
    secrets.values.set(legacySecretKey(env)!, "admin");
    const connections = new Connections(secrets, { timeoutMs: 5000 });
    connections.update(settingsWith([env]));
    const ready = await connections.connect();
    assert.equal(ready.kind, "ready");
    if (ready.kind === "ready") assert.equal((await ready.client.listDags()).totalEntries, 6);
    assert.deepEqual([...secrets.values.keys()], [secretKey(env)]);
  });

  it("does not use it for an environment that accepts any certificate, and says why", async () => {
    const secrets = new MemorySecrets();
    const env: EnvironmentConfig = { ...PROD, verifyTls: false };
    secrets.values.set(legacySecretKey(env)!, "pw");
    const connections = new Connections(secrets);
    connections.update(settingsWith([env]));
    const connection = await connections.connect();
    assert.equal(connection.kind, "signed-out");
    if (connection.kind !== "signed-out") return;
    assert.match(connection.reason ?? "", /kept by an earlier version is not used for an environment that accepts any TLS certificate/);
    assert.match(connectionProblem(connection).detail ?? "", /sign in again to confirm it/);
    assert.equal(secrets.values.get(legacySecretKey(env)!), "pw", "left where it was");
    await connections.signOut(env);
    assert.equal(secrets.values.size, 0, "signing out removes it too");
  });
});
