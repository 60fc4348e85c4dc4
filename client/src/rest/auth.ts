/**
 * Authentication: username/password exchanged for a JWT at `POST /auth/token` (renewed once,
 * silently, when a request gets a 401 because the token expired), a static bearer token
 * (managed deployments), or none.
 */
import { AuthError, CancelledError, InvalidResponseError } from "./errors";
import { errorDetail, errorFromResponse, parseJson, type HttpResponse, type HttpTransport } from "./http";
import type { AuthConfig, RequestOptions } from "./types";

export interface Authenticator {
  readonly kind: AuthConfig["kind"];
  /** The `Authorization` header for the next request; may sign in first. */
  authorization(options?: RequestOptions): Promise<string | undefined>;
  /**
   * Called once after a 401 with the header that was rejected. Resolves true when the request
   * should be retried (a new token was obtained, or another request already renewed it).
   */
  renewAfter401(rejected: string | undefined, options?: RequestOptions): Promise<boolean>;
  /** The error for a 401 that is final. */
  rejected(res: HttpResponse, afterRenewal: boolean): AuthError;
  /** Forgets any token obtained by signing in. */
  signOut(): void;
}

export function createAuthenticator(config: AuthConfig | undefined, transport: HttpTransport): Authenticator {
  switch (config?.kind ?? "none") {
    case "password": {
      const c = config as Extract<AuthConfig, { kind: "password" }>;
      return new PasswordAuthenticator(transport, c.username, c.password);
    }
    case "token":
      return new StaticTokenAuthenticator((config as Extract<AuthConfig, { kind: "token" }>).token);
    default:
      return new NoAuthenticator();
  }
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
  if (res.status === 401 || res.status === 403) {
    const detail = errorDetail(res);
    const why = typeof detail === "string" && detail ? detail : "invalid credentials";
    throw new AuthError(
      "invalid-credentials",
      `Sign-in to ${transport.baseUrl} as "${username}" failed: ${why}. Check the username and password.`,
      res.status,
      detail,
      res.method,
      res.target,
    );
  }
  if (res.status < 200 || res.status >= 300) throw errorFromResponse(res);
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

  async renewAfter401(rejected: string | undefined, options: RequestOptions = {}): Promise<boolean> {
    if (this.token !== undefined && rejected !== `Bearer ${this.token}`) return true; // already renewed by another request
    this.token = undefined;
    await this.signIn(options);
    return true;
  }

  rejected(res: HttpResponse, afterRenewal: boolean): AuthError {
    const detail = errorDetail(res);
    const message = afterRenewal
      ? `Airflow still answers 401 after signing in again as "${this.username}" (${describe(detail)}).`
      : `Airflow rejected the session of "${this.username}" (${describe(detail)}).`;
    return new AuthError("token-rejected", message, res.status, detail, res.method, res.target);
  }

  signOut(): void {
    this.token = undefined;
  }
}

export class StaticTokenAuthenticator implements Authenticator {
  readonly kind = "token" as const;
  constructor(private readonly token: string) {}

  async authorization(): Promise<string> {
    return `Bearer ${this.token}`;
  }

  async renewAfter401(): Promise<boolean> {
    return false;
  }

  rejected(res: HttpResponse): AuthError {
    const detail = errorDetail(res);
    return new AuthError(
      "token-rejected",
      `Airflow rejected the API token (${describe(detail)}): it may have expired or been revoked. Set a new token.`,
      res.status,
      detail,
      res.method,
      res.target,
    );
  }

  signOut(): void {}
}

export class NoAuthenticator implements Authenticator {
  readonly kind = "none" as const;
  async authorization(): Promise<undefined> {
    return undefined;
  }
  async renewAfter401(): Promise<boolean> {
    return false;
  }
  rejected(res: HttpResponse): AuthError {
    const detail = errorDetail(res);
    return new AuthError(
      "not-authenticated",
      `Airflow requires authentication (${describe(detail)}): configure a username and password or an API token.`,
      res.status,
      detail,
      res.method,
      res.target,
    );
  }
  signOut(): void {}
}

function describe(detail: unknown): string {
  if (typeof detail === "string" && detail) return detail;
  return "401 Unauthorized";
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
