/**
 * When a password or token may be sent, and what the user is asked first. A workspace's
 * `.vscode/settings.json` can define `airflowStateStore.environments`, so the settings alone must
 * not decide where or how a stored secret goes:
 * - the secret's key covers everything that decides it (auth kind, URL, user, TLS verification),
 *   so a workspace that re-declares an environment differently never receives its secret;
 * - an environment that only a workspace's settings define is confirmed once before credentials
 *   are sent to it;
 * - credentials over plain http:// to anything but this machine are confirmed once too.
 */
import { credentialTarget, readEnvironments, type EnvironmentConfig, type EnvironmentOrigin } from "./environments";

/** What `workspace.getConfiguration().inspect("environments")` answers, as far as it matters here. */
export interface SettingLevels {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type QuestionKind = "workspace-environment" | "plain-http";

export interface CredentialQuestion {
  kind: QuestionKind;
  /** One sentence, asked before anything is sent. */
  message: string;
  detail: string;
  /** The answer that lets the credentials go. */
  accept: string;
}

/** Answers the user gave, kept across sessions (VS Code's global state in the editor). */
export interface ConsentStore {
  has(key: string): boolean;
  add(key: string): Promise<void>;
}

/**
 * An environment counts as the user's when the user's own settings define one with the same
 * credential target (its name does not matter: the secret goes to the same place the same way).
 */
export function environmentOrigin(env: EnvironmentConfig, levels: SettingLevels): EnvironmentOrigin {
  const target = credentialTarget(env);
  return readEnvironments(levels.globalValue).environments.some((own) => credentialTarget(own) === target) ? "user" : "workspace";
}

/** localhost, 127.0.0.0/8 and ::1: traffic that never leaves the machine. */
export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function consentKey(kind: QuestionKind, env: EnvironmentConfig): string {
  return `${kind}:${credentialTarget(env)}`;
}

function secretName(env: EnvironmentConfig): string {
  return env.auth === "token" ? "API token" : `password of ${env.username}`;
}

/** The questions still open before this environment's password or token may be sent; none for auth "none". */
export function credentialQuestions(env: EnvironmentConfig, consents: ConsentStore): CredentialQuestion[] {
  if (env.auth === "none") return [];
  const questions: CredentialQuestion[] = [];
  const what = secretName(env);
  if (env.origin === "workspace" && !consents.has(consentKey("workspace-environment", env))) {
    questions.push({
      kind: "workspace-environment",
      message: `The Airflow environment "${env.name}" is defined by this workspace's settings, not by yours. Send the ${what} to ${env.baseUrl}?`,
      detail:
        `A workspace's .vscode/settings.json can point an environment at any server${env.verifyTls ? "" : " and turn TLS verification off (this one does)"}. ` +
        `Allow it only if you trust where it points. You are asked once for this environment.`,
      accept: "Allow",
    });
  }
  if (new URL(env.baseUrl).protocol === "http:" && !isLoopback(env.baseUrl) && !consents.has(consentKey("plain-http", env))) {
    questions.push({
      kind: "plain-http",
      message: `${env.baseUrl} uses plain http://: the ${what} would cross the network unencrypted. Send it anyway?`,
      detail: "Anyone on the network path can read it. Use https:// if the server offers it. You are asked once for this environment.",
      accept: "Send over http",
    });
  }
  return questions;
}

/** Records that the user accepted these questions for the environment. */
export async function recordConsent(env: EnvironmentConfig, kinds: readonly QuestionKind[], consents: ConsentStore): Promise<void> {
  for (const kind of kinds) await consents.add(consentKey(kind, env));
}

/** Consents in memory: what tests and a session without persistent state use. */
export class MemoryConsents implements ConsentStore {
  readonly keys = new Set<string>();
  has(key: string): boolean {
    return this.keys.has(key);
  }
  async add(key: string): Promise<void> {
    this.keys.add(key);
  }
}
