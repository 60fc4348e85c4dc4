/**
 * Airflow environments as the `airflowStateStore.environments` setting describes them: reading the
 * setting (every problem reported, never thrown), validating what the user types when adding one,
 * and where each one's secret lives.
 */
import { normalizeBaseUrl } from "../rest/http";

export type AuthKind = "password" | "token" | "none";

/** Where an environment's definition comes from: the user's own settings, or only a workspace's (see credentialPolicy.ts). */
export type EnvironmentOrigin = "user" | "workspace";

export interface EnvironmentConfig {
  /** Unique, shown in the tree and the status bar. */
  name: string;
  /** e.g. `https://airflow.example.com` (normalised: no trailing slash). */
  baseUrl: string;
  auth: AuthKind;
  /** For `auth: "password"`. */
  username?: string;
  /** false: accept any TLS certificate (self-signed test servers). Default true. */
  verifyTls: boolean;
  /** Set by the editor from where the setting is defined; undefined counts as the user's own. */
  origin?: EnvironmentOrigin;
}

export interface EnvironmentsReading {
  environments: EnvironmentConfig[];
  /** One sentence per entry that was skipped, e.g. `Environment 2 has no baseUrl.` */
  problems: string[];
}

const AUTH_KINDS: readonly AuthKind[] = ["password", "token", "none"];

/** Reads the setting's value; entries that cannot be used are skipped with a problem each. */
export function readEnvironments(raw: unknown): EnvironmentsReading {
  const environments: EnvironmentConfig[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { environments, problems };
  if (!Array.isArray(raw)) return { environments, problems: ["airflowStateStore.environments must be an array of environments."] };
  raw.forEach((item, index) => {
    const where = `Environment ${index + 1}`;
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      problems.push(`${where} is not an object.`);
      return;
    }
    const entry = item as Record<string, unknown>;
    const name = typeof entry.name === "string" ? entry.name.trim() : "";
    if (!name) {
      problems.push(`${where} has no name.`);
      return;
    }
    const label = `Environment "${name}"`;
    if (environments.some((e) => e.name === name)) {
      problems.push(`${label} is defined twice; the first definition is used.`);
      return;
    }
    const urlProblem = baseUrlProblem(entry.baseUrl);
    if (urlProblem) {
      problems.push(`${label}: ${urlProblem}`);
      return;
    }
    const auth = entry.auth === undefined ? (typeof entry.username === "string" && entry.username ? "password" : "none") : entry.auth;
    if (!AUTH_KINDS.includes(auth as AuthKind)) {
      problems.push(`${label}: auth must be "password", "token" or "none".`);
      return;
    }
    const username = typeof entry.username === "string" ? entry.username.trim() : "";
    if (auth === "password" && !username) {
      problems.push(`${label}: auth "password" needs a username.`);
      return;
    }
    if (entry.verifyTls !== undefined && typeof entry.verifyTls !== "boolean") {
      problems.push(`${label}: verifyTls must be true or false.`);
      return;
    }
    environments.push({
      name,
      baseUrl: normalizeBaseUrl(entry.baseUrl as string),
      auth: auth as AuthKind,
      username: auth === "password" ? username : undefined,
      verifyTls: entry.verifyTls !== false,
    });
  });
  return { environments, problems };
}

/** Why a base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.trim()) return "baseUrl is missing (e.g. http://localhost:8080).";
  try {
    normalizeBaseUrl(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why a new environment name cannot be used, or undefined when it can. */
export function nameProblem(name: string, existing: readonly EnvironmentConfig[]): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return "Give the environment a name, e.g. production.";
  if (existing.some((e) => e.name === trimmed)) return `An environment named "${trimmed}" already exists.`;
  return undefined;
}

/** The active environment: the one named by the setting, else the first. */
export function activeEnvironment(environments: readonly EnvironmentConfig[], activeName: unknown): EnvironmentConfig | undefined {
  if (typeof activeName === "string" && activeName) {
    const named = environments.find((e) => e.name === activeName);
    if (named) return named;
  }
  return environments[0];
}

/** What is written into the setting for an environment (defaults left out). */
export function toSetting(env: EnvironmentConfig): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: env.name, baseUrl: env.baseUrl, auth: env.auth };
  if (env.auth === "password") entry.username = env.username;
  if (!env.verifyTls) entry.verifyTls = false;
  return entry;
}

/** Everything that decides where and how a secret is sent: auth kind, URL, user and TLS verification. */
export function credentialTarget(env: EnvironmentConfig): string {
  return JSON.stringify([env.auth, env.baseUrl, env.auth === "password" ? env.username ?? "" : "", env.verifyTls]);
}

/**
 * The SecretStorage key of an environment's password or token. It covers the whole credential
 * target, not only the environment's name, so a setting that re-declares an existing name with
 * another server or with TLS verification off (a workspace's settings can) never receives the
 * secret typed for the first one.
 */
export function secretKey(env: EnvironmentConfig): string | undefined {
  if (env.auth === "none") return undefined;
  return `airflowStateStore:v2:${credentialTarget(env)}`;
}

/** The key earlier releases used: auth kind, URL and user, without the TLS choice (see Connections' migration). */
export function legacySecretKey(env: EnvironmentConfig): string | undefined {
  if (env.auth === "none") return undefined;
  return `airflowStateStore:${env.auth}:${env.baseUrl}:${env.auth === "password" ? env.username ?? "" : ""}`;
}

/** Equal settings give equal identities; a changed URL, auth, user or TLS choice gives a new one. */
export function environmentIdentity(env: EnvironmentConfig): string {
  return JSON.stringify([env.name, env.baseUrl, env.auth, env.username ?? "", env.verifyTls]);
}
