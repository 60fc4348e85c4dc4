/** What the session token says about its user: the simple auth manager's role, read without verifying. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AirflowClient, sessionOf, tokenClaims, type SessionInfo } from "../../client/src/rest";
import { adminClient, emulatorFor, viewerClient } from "./helpers";

/** An unsigned token with this payload (the signature is never looked at). */
function jwt(payload: unknown): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "HS512", typ: "JWT" })}.${part(payload)}.c2lnbmF0dXJl`;
}

describe("session token claims", () => {
  it("takes VIEWER, in any case, as the one role that changes no state store", () => {
    for (const role of ["viewer", "VIEWER", "Viewer"]) {
      assert.deepEqual(sessionOf(jwt({ sub: "peter", role, exp: 1 })), { subject: "peter", role, readOnly: true });
    }
    // USER may write task state stores (DAG edit rights), OP and ADMIN both stores.
    for (const role of ["user", "OP", "admin", "ADMIN"]) assert.equal(sessionOf(jwt({ sub: "bob", role }))?.readOnly, false, role);
  });

  it("leaves a token without a known role writable: other auth managers, unknown roles, odd claims", () => {
    const writable = (token: string): SessionInfo | undefined => {
      const session = sessionOf(token);
      assert.notEqual(session?.readOnly, true, token);
      return session;
    };
    assert.deepEqual(writable(jwt({ id: 7 })), { subject: undefined, role: undefined, readOnly: false }, "FAB: only the user's id");
    writable(jwt({ user_id: "u1", name: "ann", access_token: "x", refresh_token: "y" })); // Keycloak
    writable(jwt({ sub: "x", role: "auditor" }));
    writable(jwt({ sub: "x", role: null }));
    writable(jwt({ sub: "x", role: ["VIEWER"] }));
    assert.equal(writable("emulator-viewer-token"), undefined, "an opaque API key says nothing");
    assert.equal(writable("a.b.c"), undefined, "a payload that is not JSON");
    assert.equal(writable(jwt(["VIEWER"])), undefined, "a payload that is not an object");
    assert.equal(writable("a.%%%.c"), undefined);
    assert.equal(tokenClaims(jwt({ sub: "s" }))?.sub, "s");
  });

  it("knows the emulator's viewer and admin once signed in, and tells each new token", async (t) => {
    const emu = await emulatorFor(t);
    const told: (SessionInfo | undefined)[] = [];
    const viewer = viewerClient(emu, { onSession: (s) => told.push(s) });
    assert.equal(viewer.session(), undefined, "nothing is known before signing in");
    await viewer.signIn();
    assert.deepEqual(viewer.session(), { subject: "viewer", role: "viewer", readOnly: true });
    assert.deepEqual(told, [viewer.session()]);
    emu.expireTokens();
    await viewer.listDags(); // renews the expired token silently
    assert.equal(told.length, 2);

    const admin = adminClient(emu);
    await admin.listDags();
    assert.deepEqual(admin.session(), { subject: "admin", role: "admin", readOnly: false });
  });

  it("reads an API token at once, without a request", () => {
    const client = new AirflowClient({ baseUrl: "http://127.0.0.1:9", auth: { kind: "token", token: jwt({ sub: "ci", role: "VIEWER" }) } });
    assert.equal(client.session()?.readOnly, true);
    assert.equal(new AirflowClient({ baseUrl: "http://127.0.0.1:9" }).session(), undefined);
  });
});
