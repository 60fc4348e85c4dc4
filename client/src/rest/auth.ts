/**
 * Authentication: username/password exchanged for a JWT at `POST /auth/token` (renewed once,
 * silently, when Airflow rejects the session: 401 for an expired token, 403 "Invalid JWT token"
 * for one it cannot verify, e.g. after its JWT secret changed), a static bearer token (managed
 * deployments), or none.
 */
import { AuthError, CancelledError, formatDetail, InvalidResponseError, SignInError, statusText } from "./errors";
import { errorDetail, parseJson, type HttpResponse, type HttpTransport } from "./http";
import type { AuthConfig, RequestOptions } from "./types";

export interface Authenticator {
  readonly kind: AuthConfig["kind"];
  /** The `Authorization` header for the next request; may sign in first. */
  authorization(options?: RequestOptions): Promise<string | undefined>;
  /**
   * Called once after Airflow rejected the session (see `sessionRejected`) with the header that was
   * sent. Resolves true when the request should be retried (a new token was obtained, or another
   * request already renewed it).
   */
  renewAfterRejection(rejected: string | undefined, options?: RequestOptions): Promise<boolean>;
  /** The error for a rejection that is final. */
  rejected(res: HttpResponse, afterRenewal: boolean): AuthError;
  /** Forgets any token obtained by signing in. */
  signOut(): void;
  /** The bearer token sent now (after signing in, for password auth), if any. */
  currentToken(): string | undefined;
}

/**
 * `onToken` is told each token obtained by signing in (the first one and every renewal), so what
 * the token says about its user is known before anything else is asked.
 */
export function createAuthenticator(config: AuthConfig | undefined, transport: HttpTransport, onToken?: (token: string) => void): Authenticator {
  switch (config?.kind ?? "none") {
    case "password": {
      const c = config as Extract<AuthConfig, { kind: "password" }>;
      return new PasswordAuthenticator(transport, c.username, c.password, onToken);
    }
    case "token":
      return new StaticTokenAuthenticator((config as Extract<AuthConfig, { kind: "token" }>).token);
    default:
      return new NoAuthenticator();
  }
}

/** The detail Airflow sends with a 403 for a token it cannot verify (as opposed to "Forbidden"). */
const INVALID_TOKEN = "invalid jwt token";

function isInvalidToken(res: HttpResponse): boolean {
  const detail = errorDetail(res);
  return res.status === 403 && typeof detail === "string" && detail.trim().toLowerCase() === INVALID_TOKEN;
}

/** Whether Airflow refused the credentials of a request: 401, or 403 "Invalid JWT token" (not a missing permission). */
export function sessionRejected(res: HttpResponse): boolean {
  return res.status === 401 || isInvalidToken(res);
}

/** Exchanges a username and password for an access token (`POST /auth/token` → 201 `{access_token}`). */
export async function requestToken(
  transport: HttpTransport,
  username: string,
  password: string,
  options: RequestOptions = {},
): Promise<string> {
  const res = await transport.send({
    method: "POST",
    path: "/auth/token",
    json: { username, password },
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
  const failed = `Sign-in to ${transport.baseUrl} as "${username}" failed`;
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    // 400 is Airflow's answer to an empty username or password, 401 to wrong ones.
    const detail = errorDetail(res);
    const why = typeof detail === "string" && detail ? detail.replace(/\.$/, "") : "invalid credentials";
    throw new AuthError("invalid-credentials", `${failed}: ${why}. Check the username and password.`, res.status, detail, res.method, res.target);
  }
  if (res.status < 200 || res.status >= 300) {
    const detail = errorDetail(res);
    const text = formatDetail(detail);
    throw new SignInError(
      res.status,
      detail,
      res.method,
      res.target,
      `${failed}: Airflow answered ${res.status} ${statusText(res.status)}${text ? ` (${text})` : ""}. The credentials were not checked.`,
    );
  }
  const body = parseJson(res) as { access_token?: unknown } | null;
  if (!body || typeof body.access_token !== "string" || !body.access_token) {
    throw new InvalidResponseError(`POST /auth/token answered without an access_token`, res.status, res.text);
  }
  return body.access_token;
}

export class PasswordAuthenticator implements Authenticator {
  readonly kind = "password" as const;
  private token: string | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly transport: HttpTransport,
    private readonly username: string,
    private readonly password: string,
    private readonly onToken?: (token: string) => void,
  ) {}

  async authorization(options: RequestOptions = {}): Promise<string> {
    const token = this.token ?? (await this.signIn(options));
    return `Bearer ${token}`;
  }

  /**
   * Signs in (or joins a sign-in already under way). The shared sign-in is not tied to one caller's
   * signal: a caller that cancels stops waiting, the others still get the token.
   */
  signIn(options: RequestOptions = {}): Promise<string> {
    if (!this.pending) {
      const login = requestToken(this.transport, this.username, this.password, { timeoutMs: options.timeoutMs });
      this.pending = login.then(
        (token) => {
          this.token = token;
          this.pending = undefined;
          this.onToken?.(token);
          return token;
        },
        (err: unknown) => {
          this.pending = undefined;
          throw err;
        },
      );
      // Every caller may have cancelled; the failure is still reported to whoever waits.
      this.pending.catch(() => undefined);
    }
    return raceAbort(this.pending, options.signal);
  }

  async renewAfterRejection(rejected: string | undefined, options: RequestOptions = {}): Promise<boolean> {
    if (this.token !== undefined && rejected !== `Bearer ${this.token}`) return true; // already renewed by another request
    this.token = undefined;
    await this.signIn(options);
    return true;
  }

  rejected(res: HttpResponse, afterRenewal: boolean): AuthError {
    const detail = errorDetail(res);
    const message = afterRenewal
      ? `Airflow still rejects the session after signing in again as "${this.username}" (${describe(res, detail)}).`
      : `Airflow rejected the session of "${this.username}" (${describe(res, detail)}).`;
    return new AuthError("token-rejected", message, res.status, detail, res.method, res.target);
  }

  signOut(): void {
    this.token = undefined;
  }

  currentToken(): string | undefined {
    return this.token;
  }
}

export class StaticTokenAuthenticator implements Authenticator {
  readonly kind = "token" as const;
  constructor(private readonly token: string) {}

  async authorization(): Promise<string> {
    return `Bearer ${this.token}`;
  }

  async renewAfterRejection(): Promise<boolean> {
    return false;
  }

  rejected(res: HttpResponse): AuthError {
    const detail = errorDetail(res);
    const why = isInvalidToken(res)
      ? "Airflow cannot verify it: it is malformed or was signed with another key (issued by another deployment, or before Airflow's JWT secret changed)"
      : "it may have expired or been revoked";
    return new AuthError(
      "token-rejected",
      `The API token is not valid (${describe(res, detail)}): ${why}. Set a new token.`,
      res.status,
      detail,
      res.method,
      res.target,
    );
  }

  signOut(): void {}

  currentToken(): string {
    return this.token;
  }
}

export class NoAuthenticator implements Authenticator {
  readonly kind = "none" as const;
  async authorization(): Promise<undefined> {
    return undefined;
  }
  async renewAfterRejection(): Promise<boolean> {
    return false;
  }
  rejected(res: HttpResponse): AuthError {
    const detail = errorDetail(res);
    return new AuthError(
      "not-authenticated",
      `Airflow requires authentication (${describe(res, detail)}): configure a username and password or an API token.`,
      res.status,
      detail,
      res.method,
      res.target,
    );
  }
  signOut(): void {}
  currentToken(): undefined {
    return undefined;
  }
}

function describe(res: HttpResponse, detail: unknown): string {
  if (typeof detail === "string" && detail) return `${res.status} ${detail}`;
  return `${res.status} ${statusText(res.status)}`;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
