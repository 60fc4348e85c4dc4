/** The store browser's settings and secrets as VS Code keeps them. */
import * as vscode from "vscode";
import type { BrowserSettings, SecretStore } from "../connections";
import { environmentOrigin, type ConsentStore } from "../credentialPolicy";
import { readEnvironments, toSetting, type EnvironmentConfig } from "../environments";
import { DEFAULT_MAX_VALUE_LENGTH } from "../../rest/validate";

export const SECTION = "airflowStateStore";

export function readBrowserSettings(): BrowserSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const { environments, problems } = readEnvironments(config.get("environments"));
  // Where each environment is defined decides whether the user is asked before credentials go to it.
  const levels = config.inspect("environments") ?? {};
  for (const env of environments) env.origin = environmentOrigin(env, levels);
  const maxValueLength = config.get<number>("maxValueLength", DEFAULT_MAX_VALUE_LENGTH);
  return {
    environments,
    problems,
    activeName: config.get<string>("activeEnvironment") || undefined,
    maxValueLength: Number.isInteger(maxValueLength) && maxValueLength >= 0 ? maxValueLength : DEFAULT_MAX_VALUE_LENGTH,
    trusted: vscode.workspace.isTrusted,
  };
}

/** Auto-refresh interval in milliseconds, 0 = off. */
export function autoRefreshMs(): number {
  const seconds = vscode.workspace.getConfiguration(SECTION).get<number>("autoRefresh", 0);
  return typeof seconds === "number" && seconds > 0 ? Math.max(5, seconds) * 1000 : 0;
}

export function codeLensEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>("codeLens.enable", true);
}

export function secretStoreOf(secrets: vscode.SecretStorage): SecretStore {
  return {
    get: (key) => Promise.resolve(secrets.get(key)),
    store: (key, value) => Promise.resolve(secrets.store(key, value)),
    delete: (key) => Promise.resolve(secrets.delete(key)),
  };
}

/** The user's answers to credentialPolicy.ts's questions, kept in the extension's global (not per-workspace) state. */
export function consentStoreOf(state: vscode.Memento): ConsentStore {
  const KEY = "airflowStateStore.credentialConsents";
  const keys = () => state.get<string[]>(KEY, []);
  return {
    has: (key) => keys().includes(key),
    add: async (key) => {
      if (!keys().includes(key)) await state.update(KEY, [...keys(), key]);
    },
  };
}

/** Where a setting is written: the workspace when it defines the value already, else the user settings. */
function targetOf(key: string): vscode.ConfigurationTarget {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect(key);
  if (inspected?.workspaceFolderValue !== undefined) return vscode.ConfigurationTarget.WorkspaceFolder;
  if (inspected?.workspaceValue !== undefined) return vscode.ConfigurationTarget.Workspace;
  return vscode.ConfigurationTarget.Global;
}

export async function addEnvironmentSetting(env: EnvironmentConfig): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const target = targetOf("environments");
  const inspected = config.inspect<unknown[]>("environments");
  const current =
    target === vscode.ConfigurationTarget.Global ? inspected?.globalValue : target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.workspaceFolderValue;
  await config.update("environments", [...(Array.isArray(current) ? current : []), toSetting(env)], target);
}

/** Removes the environment from every settings level that defines it. */
export async function removeEnvironmentSetting(name: string): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const inspected = config.inspect<unknown[]>("environments");
  const levels: [unknown[] | undefined, vscode.ConfigurationTarget][] = [
    [inspected?.globalValue, vscode.ConfigurationTarget.Global],
    [inspected?.workspaceValue, vscode.ConfigurationTarget.Workspace],
    [inspected?.workspaceFolderValue, vscode.ConfigurationTarget.WorkspaceFolder],
  ];
  for (const [value, target] of levels) {
    if (!Array.isArray(value)) continue;
    const kept = value.filter((e) => !(e && typeof e === "object" && (e as { name?: unknown }).name === name));
    if (kept.length !== value.length) await config.update("environments", kept, target);
  }
}

export async function setActiveEnvironment(name: string): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update("activeEnvironment", name, targetOf("activeEnvironment"));
}
