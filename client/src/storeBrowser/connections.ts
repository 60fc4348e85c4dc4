/**
 * One REST client per configured environment, built from the settings and the secret kept for it,
 * and the gate in front of them: nothing is sent from an untrusted workspace, an environment
 * whose password or token is missing is "signed out" rather than tried without credentials, and
 * no credential is sent while a question of credentialPolicy.ts is still open.
 */
import { AirflowClient } from "../rest/client";
import { supportsStateStore } from "../rest/browse";
import type { ExchangeRecord } from "../rest/http";
import type { SessionInfo } from "../rest/session";
import type { FetchLike, VersionInfo } from "../rest/types";
import { credentialQuestions, MemoryConsents, recordConsent, type ConsentStore, type CredentialQuestion, type QuestionKind } from "./credentialPolicy";
import { environmentIdentity, legacySecretKey, secretKey, type EnvironmentConfig } from "./environments";
import { EnvironmentHealth } from "./health";
import { insecureFetch } from "./insecureFetch";

/** Where passwords and tokens are kept (VS Code's SecretStorage in the editor). */
export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface BrowserSettings {
  environments: EnvironmentConfig[];
  /** Problems found reading the environments setting. */
  problems: string[];
  activeName?: string;
  /** `airflowStateStore.maxValueLength`: longest JSON text sent, 0 = no limit. */
  maxValueLength: number;
  /** Whether the workspace is trusted; an untrusted one sends nothing. */
  trusted: boolean;
}

export type Connection =
  | { kind: "untrusted" }
  | { kind: "no-environment"; problems: string[] }
  /**
   * No credential is sent: none is stored (`reason` says why when one was and is not used), or
   * the user has yet to answer `questions` (then a stored secret is used once they are accepted).
   */
  | { kind: "signed-out"; env: EnvironmentConfig; reason?: string; questions?: CredentialQuestion[] }
  | { kind: "ready"; env: EnvironmentConfig; client: AirflowClient };

export interface ConnectionsOptions {
  /** Replaces the global fetch for environments that verify TLS (tests). */
  fetch?: FetchLike;
  /** Per-request timeout, milliseconds. */
  timeoutMs?: number;
  /** The user's answers to credentialPolicy.ts's questions (default: in memory, none given). */
  consents?: ConsentStore;
  /** Told of every REST exchange of an environment once it ends (the extension's log). */
  onExchange?: (environment: string, record: ExchangeRecord) => void;
}

/** Credentials were about to be sent while a question of credentialPolicy.ts is still open. */
export class CredentialConsentError extends Error {
  constructor(readonly questions: CredentialQuestion[]) {
    super(questions.map((q) => q.message).join(" "));
    this.name = "CredentialConsentError";
  }
}

interface CachedClient {
  identity: string;
  secret: string | undefined;
  maxValueLength: number;
  client: AirflowClient;
}

export class Connections {
  private settings: BrowserSettings = { environments: [], problems: [], maxValueLength: 65535, trusted: false };
  private readonly clients = new Map<string, CachedClient>();
  private readonly versions = new Map<string, Promise<VersionInfo>>();
  /** Reachability and read-only marks, reported by whoever sends requests through these clients. */
  readonly health = new EnvironmentHealth();
  private readonly consents: ConsentStore;

  constructor(
    private readonly secrets: SecretStore,
    private readonly options: ConnectionsOptions = {},
  ) {
    this.consents = options.consents ?? new MemoryConsents();
  }

  update(settings: BrowserSettings): void {
    this.settings = settings;
    const identities = new Set(settings.environments.map(environmentIdentity));
    for (const [name, cached] of this.clients) {
      if (!identities.has(cached.identity) || cached.maxValueLength !== settings.maxValueLength) this.clients.delete(name);
    }
    for (const identity of this.versions.keys()) if (!identities.has(identity)) this.versions.delete(identity);
  }

  get trusted(): boolean {
    return this.settings.trusted;
  }

  get environments(): readonly EnvironmentConfig[] {
    return this.settings.environments;
  }

  /** Entries of the environments setting that were skipped, one sentence each. */
  get problems(): readonly string[] {
    return this.settings.problems;
  }

  get maxValueLength(): number {
    return this.settings.maxValueLength;
  }

  /** The environment named by `activeEnvironment`, else the first one. */
  get active(): EnvironmentConfig | undefined {
    const { environments, activeName } = this.settings;
    return environments.find((e) => e.name === activeName) ?? environments[0];
  }

  find(name: string): EnvironmentConfig | undefined {
    return this.settings.environments.find((e) => e.name === name);
  }

  /** A client for the environment (the active one by default), or why there is none. */
  async connect(env: EnvironmentConfig | undefined = this.active): Promise<Connection> {
    if (!this.settings.trusted) return { kind: "untrusted" };
    if (!env) return { kind: "no-environment", problems: this.settings.problems };
    const key = secretKey(env);
    const stored = key ? await this.storedSecret(env) : { secret: undefined };
    const secret = stored.secret;
    if (key && !secret) return { kind: "signed-out", env, reason: stored.reason };
    const questions = this.questions(env);
    if (questions.length > 0) return { kind: "signed-out", env, questions };
    const identity = environmentIdentity(env);
    const cached = this.clients.get(env.name);
    if (cached && cached.identity === identity && cached.secret === secret && cached.maxValueLength === this.settings.maxValueLength) {
      return { kind: "ready", env, client: cached.client };
    }
    const client = this.createClient(env, secret);
    this.learnRights(env, client.session()); // an API token tells at once, a password's token once signed in
    this.clients.set(env.name, { identity, secret, maxValueLength: this.settings.maxValueLength, client });
    return { kind: "ready", env, client };
  }

  /** `GET /api/v2/version`, asked once per environment until `forget`; a failure is not remembered. */
  version(env: EnvironmentConfig, client: AirflowClient): Promise<VersionInfo> {
    const identity = environmentIdentity(env);
    let pending = this.versions.get(identity);
    if (!pending) {
      pending = client.getVersion();
      this.versions.set(identity, pending);
      pending.catch(() => {
        if (this.versions.get(identity) === pending) this.versions.delete(identity);
      });
    }
    return pending;
  }

  /** Whether the environment's Airflow has the state store API, once its version is known. */
  async supportsStore(env: EnvironmentConfig, client: AirflowClient): Promise<boolean> {
    return supportsStateStore((await this.version(env, client)).version);
  }

  /** Forgets what was learnt about the environment (its version), e.g. on refresh. */
  forget(env: EnvironmentConfig): void {
    this.versions.delete(environmentIdentity(env));
  }

  /**
   * Checks a password or token against the server and keeps it when Airflow accepts it: a password
   * is exchanged for a token, a token must list one DAG. Throws the client's error otherwise
   * (AuthError for rejected credentials, NetworkError when the server cannot be reached).
   */
  async signIn(env: EnvironmentConfig, secret: string): Promise<void> {
    if (!this.settings.trusted) throw new Error("Credentials are not sent from an untrusted workspace.");
    const key = secretKey(env);
    if (!key) return;
    const questions = this.questions(env);
    if (questions.length > 0) throw new CredentialConsentError(questions);
    const client = this.createClient(env, secret);
    if (env.auth === "password") await client.signIn();
    else await client.listDags({ limit: 1 });
    await this.storeSecret(env, secret);
    this.clients.set(env.name, { identity: environmentIdentity(env), secret, maxValueLength: this.settings.maxValueLength, client });
    // What was learnt about the previous user's rights does not carry over; the new token tells anew.
    this.health.signedIn(env, readOnlyRoleOf(client.session()));
  }

  /** Keeps a secret without checking it (the user chose to, e.g. while the server is down). */
  async storeSecret(env: EnvironmentConfig, secret: string): Promise<void> {
    const key = secretKey(env);
    if (key) await this.secrets.store(key, secret);
  }

  /** Deletes the stored secret (also one kept under an earlier release's key) and the session token. */
  async signOut(env: EnvironmentConfig): Promise<void> {
    this.clients.get(env.name)?.client.signOut();
    this.clients.delete(env.name);
    for (const key of [secretKey(env), legacySecretKey(env)]) if (key) await this.secrets.delete(key);
  }

  async hasSecret(env: EnvironmentConfig): Promise<boolean> {
    return secretKey(env) ? (await this.storedSecret(env)).secret !== undefined : true;
  }

  /** What the user must accept before this environment's credentials are sent (credentialPolicy.ts). */
  questions(env: EnvironmentConfig): CredentialQuestion[] {
    return credentialQuestions(env, this.consents);
  }

  /** Records the user's yes to these questions; the environment's credentials may then be sent. */
  async confirm(env: EnvironmentConfig, kinds: readonly QuestionKind[]): Promise<void> {
    await recordConsent(env, kinds, this.consents);
  }

  /**
   * The environment's secret. One kept under an earlier release's key (which did not cover the
   * TLS choice) moves to the current key when the environment verifies TLS: sent that way it goes
   * where and how it was typed for, or more safely. An environment that accepts any certificate
   * does not take it: such a definition may come from a workspace, so the user types it again.
   */
  private async storedSecret(env: EnvironmentConfig): Promise<{ secret: string | undefined; reason?: string }> {
    const key = secretKey(env);
    const legacyKey = legacySecretKey(env);
    if (!key || !legacyKey) return { secret: undefined };
    const secret = await this.secrets.get(key);
    if (secret !== undefined) return { secret };
    const legacy = await this.secrets.get(legacyKey);
    if (legacy === undefined) return { secret: undefined };
    if (!env.verifyTls) {
      return {
        secret: undefined,
        reason:
          `The ${env.auth === "token" ? "token" : "password"} kept by an earlier version is not used for an environment that accepts any TLS certificate ` +
          `(that setting may come from a workspace): sign in again to confirm it.`,
      };
    }
    await this.secrets.store(key, legacy);
    await this.secrets.delete(legacyKey);
    return { secret: legacy };
  }

  private createClient(env: EnvironmentConfig, secret: string | undefined): AirflowClient {
    const auth =
      env.auth === "password"
        ? ({ kind: "password", username: env.username ?? "", password: secret ?? "" } as const)
        : env.auth === "token"
          ? ({ kind: "token", token: secret ?? "" } as const)
          : ({ kind: "none" } as const);
    return new AirflowClient({
      baseUrl: env.baseUrl,
      auth,
      maxValueLength: this.settings.maxValueLength,
      timeoutMs: this.options.timeoutMs,
      fetch: env.verifyTls ? this.options.fetch : insecureFetch,
      onExchange: this.options.onExchange && ((record) => this.options.onExchange?.(env.name, record)),
      onSession: (session) => this.learnRights(env, session),
    });
  }

  /** Marks the environment read-only when the token's role can change no state store; anything else leaves it as it is. */
  private learnRights(env: EnvironmentConfig, session: SessionInfo | undefined): void {
    const role = readOnlyRoleOf(session);
    if (role !== undefined) this.health.readOnlyRole(env, role);
  }
}

/** The token's role when it may only read, else undefined (writable, or not known). */
function readOnlyRoleOf(session: SessionInfo | undefined): string | undefined {
  return session?.readOnly ? session.role : undefined;
}
