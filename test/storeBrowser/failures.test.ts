/** What a failed request means (offline, read-only, sign in again, refused) and what the user is told. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AirflowClient, ForbiddenError, NetworkError, NotFoundError, TimeoutError, UnprocessableEntityError, AirflowHttpError } from "../../client/src/rest";
import { EntryDocumentError, type EntryAddress } from "../../client/src/storeBrowser/entryDocument";
import { failedSaveNotice, describeEntry } from "../../client/src/storeBrowser/entrySave";
import type { EnvironmentConfig } from "../../client/src/storeBrowser/environments";
import { classifyFailure, failureNotice, readOnlyMessage } from "../../client/src/storeBrowser/failures";
import { EnvironmentHealth } from "../../client/src/storeBrowser/health";
import { startEmulator } from "../emulator";
import { DEMO, emulatorFor } from "./helpers";

const VIEWER: EnvironmentConfig = { name: "staging", baseUrl: "http://127.0.0.1:1", auth: "password", username: "viewer", verifyTls: true };
const SPARK = { dagId: DEMO.spark.dagId, runId: DEMO.spark.run, taskId: DEMO.spark.taskId, mapIndex: -1 };
const CURSOR: EntryAddress = { store: "task", env: "staging", ...SPARK, key: "cursor" };

describe("failures", () => {
  it("tells an outage from a refusal, a read-only user from a stale sign-in", async () => {
    assert.equal(classifyFailure(new NetworkError("Cannot reach Airflow at http://x (ECONNREFUSED)", "ECONNREFUSED"), false).kind, "offline");
    assert.equal(classifyFailure(new TimeoutError(30000, "GET", "/api/v2/dags"), false).kind, "offline");
    assert.equal(classifyFailure(new NetworkError("certificate", "DEPTH_ZERO_SELF_SIGNED_CERT"), false).kind, "other", "a certificate is a setting, not an outage");
    const forbidden = new ForbiddenError(403, "Forbidden", "PUT", "/x");
    assert.equal(classifyFailure(forbidden, true).kind, "read-only");
    assert.equal(classifyFailure(forbidden, false).kind, "refused", "a read that is refused does not make the environment read-only");
    assert.equal(classifyFailure(new ForbiddenError(403, "Invalid JWT token", "PUT", "/x"), true).kind, "sign-in");
    assert.equal(classifyFailure(new NotFoundError(404, "gone", "GET", "/x"), false).kind, "not-found");
    assert.equal(classifyFailure(new UnprocessableEntityError([{ loc: ["body", "value"], msg: "bad" }], "PUT", "/x"), true).kind, "invalid");
    assert.deepEqual(classifyFailure(new AirflowHttpError(500, "database is locked", "PUT", "/x"), true), {
      kind: "refused",
      reason: "Airflow answered 500 Internal Server Error: database is locked",
    });
  });

  it("a viewer's refused write is reported as read-only access, naming the user and the environment", async (t) => {
    const emu = await emulatorFor(t);
    const client = new AirflowClient({ baseUrl: emu.url, auth: { kind: "password", username: "viewer", password: "viewer" }, timeoutMs: 5000 });
    const error = await client.putTaskStateEntry(SPARK, "k", 1).then(() => undefined, (e: unknown) => e);
    const notice = failureNotice(`add "k" to ${SPARK.dagId}`, VIEWER, error, true);
    assert.equal(notice.failure.kind, "read-only");
    assert.equal(notice.retryable, false);
    assert.match(notice.message, /^Could not add "k" to spark_nightly: viewer can read but not change state stores on staging\. \(Airflow answered 403 Forbidden: Forbidden\)$/);
    assert.equal(readOnlyMessage({ name: "prod", auth: "token" }), "This API token can read but not change state stores on prod.");
  });

  it("an unreachable server is named with a hint and can be retried", async () => {
    const emu = await startEmulator();
    const url = emu.url;
    await emu.close();
    const client = new AirflowClient({ baseUrl: url, auth: { kind: "none" }, timeoutMs: 5000 });
    const error = await client.deleteTaskStateEntry(SPARK, "k").then(() => undefined, (e: unknown) => e);
    const notice = failureNotice('delete "k" from spark_nightly / r / submit_spark_job', VIEWER, error, true);
    assert.equal(notice.failure.kind, "offline");
    assert.equal(notice.retryable, true);
    assert.match(notice.message, /^Could not delete "k" from spark_nightly \/ r \/ submit_spark_job on staging: Cannot reach Airflow at .* \(ECONNREFUSED\)\. Check that Airflow's API server is running/);
  });
});

describe("environment health", () => {
  it("marks an environment offline until a request reaches it, and tells listeners only of changes", () => {
    const health = new EnvironmentHealth();
    const heard: string[] = [];
    health.onDidChange((name) => heard.push(name));
    health.failed(VIEWER, { kind: "offline", reason: "Cannot reach Airflow" });
    health.failed(VIEWER, { kind: "offline", reason: "Cannot reach Airflow" });
    assert.equal(health.of(VIEWER).offline, "Cannot reach Airflow");
    assert.deepEqual(heard, ["staging"]);
    health.failed(VIEWER, { kind: "not-found", reason: "gone" });
    assert.equal(health.of(VIEWER).offline, undefined, "an answer, even a 404, means Airflow is reachable");
    assert.deepEqual(heard, ["staging", "staging"]);
  });

  it("keeps the read-only mark until the user signs in again; another user or URL starts afresh", () => {
    const health = new EnvironmentHealth();
    health.failed(VIEWER, { kind: "read-only", reason: "403 Forbidden" });
    health.reached(VIEWER);
    assert.equal(health.of(VIEWER).readOnly, "403 Forbidden");
    assert.deepEqual(health.of({ ...VIEWER, username: "admin" }), {});
    health.signedIn(VIEWER);
    assert.equal(health.of(VIEWER).readOnly, undefined);
    assert.deepEqual(health.of(undefined), {});
  });

  it("marks read-only up front from the token's role, and a new sign-in replaces what the old one said", () => {
    const health = new EnvironmentHealth();
    const heard: string[] = [];
    health.onDidChange((name) => heard.push(name));
    health.readOnlyRole(VIEWER, "viewer");
    health.readOnlyRole(VIEWER, "viewer");
    assert.deepEqual(health.of(VIEWER), { readOnly: 'the role "viewer" may only read', readOnlyRole: "viewer" });
    assert.deepEqual(heard, ["staging"]);
    health.signedIn(VIEWER);
    assert.equal(health.of(VIEWER).readOnly, undefined, "signed in again as a user who may write");
    assert.equal(health.of(VIEWER).readOnlyRole, undefined);
    health.signedIn(VIEWER, "VIEWER");
    assert.equal(health.of(VIEWER).readOnlyRole, "VIEWER");
    assert.deepEqual(heard, ["staging", "staging", "staging"]);
  });
});

describe("failed saves of an opened entry", () => {
  it("say which entry, on which environment, and why, in the extension's words", () => {
    assert.equal(describeEntry(CURSOR), '"cursor" of spark_nightly / scheduled__2026-05-03T02:00:00+00:00 / submit_spark_job');
    assert.equal(describeEntry({ store: "asset", env: "e", assetId: 1, assetName: "orders/daily", key: "watermark" }), '"watermark" of asset orders/daily');
    const server = failedSaveNotice(CURSOR, VIEWER, new AirflowHttpError(500, "database is locked", "PATCH", "/x"));
    assert.equal(
      server.message,
      '"cursor" of spark_nightly / scheduled__2026-05-03T02:00:00+00:00 / submit_spark_job was not saved on staging: Airflow answered 500 Internal Server Error: database is locked. Your text is kept in the editor.',
    );
    assert.equal(server.retryable, true);
    assert.doesNotMatch(server.message, /airflow-state:|FileSystemError/);
  });

  it("offer no Retry for a value that cannot be sent as typed, or for a user who may not write", () => {
    const value = failedSaveNotice(CURSOR, VIEWER, new EntryDocumentError("Unexpected token } in JSON at line 8, column 3."));
    assert.equal(value.retryable, false);
    assert.equal(value.failure, undefined, "nothing was sent: the environment is not marked");
    assert.match(value.message, /was not saved on staging: Unexpected token \} in JSON at line 8, column 3\. Your text is kept/);
    const readOnly = failedSaveNotice(CURSOR, VIEWER, new ForbiddenError(403, "Forbidden", "PATCH", "/x"));
    assert.equal(readOnly.retryable, false);
    assert.equal(readOnly.failure?.kind, "read-only");
    assert.match(readOnly.message, /was not saved on staging: viewer can read but not change state stores on staging\. Your text is kept/);
  });
});
