/**
 * What the session token says about the signed-in user, read from the JWT's payload without
 * verifying its signature: a hint for the UI (which actions to offer), never a security decision;
 * Airflow still checks every request.
 *
 * Only Airflow's simple auth manager puts the user's permissions in the token: its `role` claim,
 * one of VIEWER < USER < OP < ADMIN (matched case-insensitively, as Airflow does). Writing a task
 * state store needs DAG edit rights (USER or above), an asset state store asset edit rights (OP or
 * above), so VIEWER is the one role that can change neither. The FAB auth manager's token carries
 * only the user's id, Keycloak's its own tokens (permissions are asked of Keycloak per request),
 * and `/ui/auth/menus` lists what a user may see, not change: none of them tells up front.
 */

export interface SessionInfo {
  /** The `sub` claim (the username for the simple auth manager), when it is a string. */
  subject?: string;
  /** The `role` claim, as the token gives it, when it is a string. */
  role?: string;
  /** True only when the role is one that can change no state store; an absent or unknown role is false. */
  readOnly: boolean;
}

/** Simple auth manager roles that may read but change neither store. */
const READ_ONLY_ROLES = new Set(["VIEWER"]);

/** The payload of a JWT as an object, or undefined when the token is not a JWT with a JSON object payload. */
export function tokenClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[1])) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    return payload !== null && typeof payload === "object" && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** What the token says about its user; undefined when it is not a JWT (e.g. an opaque API key). */
export function sessionOf(token: string): SessionInfo | undefined {
  const claims = tokenClaims(token);
  if (!claims) return undefined;
  const subject = typeof claims.sub === "string" ? claims.sub : undefined;
  const role = typeof claims.role === "string" ? claims.role : undefined;
  return { subject, role, readOnly: role !== undefined && READ_ONLY_ROLES.has(role.trim().toUpperCase()) };
}
