/** Users, HS256 JWTs issued by `POST /auth/token`, and long-lived API tokens. */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type Role = "admin" | "viewer";

export interface EmulatorUser {
  username: string;
  password: string;
  /** `viewer` may only read: every PUT / PATCH / DELETE answers 403. */
  role: Role;
}

export const DEFAULT_USERS: EmulatorUser[] = [
  { username: "admin", password: "admin", role: "admin" },
  { username: "viewer", password: "viewer", role: "viewer" },
];

/** Static bearer tokens, as managed deployments hand out: token → username. */
export const DEFAULT_API_TOKENS: Record<string, string> = {
  "emulator-admin-token": "admin",
  "emulator-viewer-token": "viewer",
};

export type TokenCheck = { ok: true; user: EmulatorUser } | { ok: false; reason: "missing" | "invalid" | "expired" };

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString("base64url");
}

export class TokenIssuer {
  private secret = randomBytes(32);
  /** Tokens issued before the last `expireAll()` are expired. */
  private generation = 0;

  constructor(
    readonly users: EmulatorUser[],
    readonly apiTokens: Record<string, string>,
    private readonly ttlMs: () => number,
    private readonly now: () => Date,
  ) {}

  findUser(username: string): EmulatorUser | undefined {
    return this.users.find((u) => u.username === username);
  }

  /** The user for these credentials, or undefined. */
  authenticate(username: unknown, password: unknown): EmulatorUser | undefined {
    if (typeof username !== "string" || typeof password !== "string") return undefined;
    const user = this.findUser(username);
    if (!user) return undefined;
    const a = Buffer.from(user.password);
    const b = Buffer.from(password);
    return a.length === b.length && timingSafeEqual(a, b) ? user : undefined;
  }

  issue(user: EmulatorUser): string {
    const nowMs = this.now().getTime();
    const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    const payload = b64url(
      JSON.stringify({
        // Airflow's simple auth manager: the username and the configured role, beside the standard claims.
        sub: user.username,
        role: user.role,
        iat: Math.floor(nowMs / 1000),
        nbf: Math.floor(nowMs / 1000),
        exp: (nowMs + this.ttlMs()) / 1000,
        gen: this.generation,
        jti: randomBytes(8).toString("hex"),
      }),
    );
    return `${header}.${payload}.${this.sign(`${header}.${payload}`)}`;
  }

  /** A new signing key, as after a change of Airflow's JWT secret: every token issued so far no longer verifies. */
  rotateSecret(): void {
    this.secret = randomBytes(32);
  }

  /** Makes every token issued so far expired (API tokens are not affected). */
  expireAll(): void {
    this.generation++;
  }

  check(authorization: string | undefined): TokenCheck {
    if (!authorization) return { ok: false, reason: "missing" };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return { ok: false, reason: "missing" };
    const token = m[1];
    const apiUser = this.apiTokens[token];
    if (apiUser !== undefined && Object.prototype.hasOwnProperty.call(this.apiTokens, token)) {
      const user = this.findUser(apiUser);
      return user ? { ok: true, user } : { ok: false, reason: "invalid" };
    }
    const parts = token.split(".");
    if (parts.length !== 3) return { ok: false, reason: "invalid" };
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: "invalid" };
    let payload: { sub?: string; exp?: number; gen?: number };
    try {
      payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as typeof payload;
    } catch {
      return { ok: false, reason: "invalid" };
    }
    if (payload.gen !== this.generation || typeof payload.exp !== "number" || payload.exp * 1000 <= this.now().getTime()) {
      return { ok: false, reason: "expired" };
    }
    const user = payload.sub ? this.findUser(payload.sub) : undefined;
    return user ? { ok: true, user } : { ok: false, reason: "invalid" };
  }

  private sign(input: string): string {
    return createHmac("sha256", this.secret).update(input).digest("base64url");
  }
}
