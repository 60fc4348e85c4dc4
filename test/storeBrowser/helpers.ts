/** Shared helpers of the store browser tests (not a test file itself). */
import type { TestContext } from "node:test";
import { Connections, type BrowserSettings, type SecretStore } from "../../client/src/storeBrowser/connections";
import { secretKey, type EnvironmentConfig } from "../../client/src/storeBrowser/environments";
import type { StoreNode } from "../../client/src/storeBrowser/nodes";
import { StoreTreeModel, type TreeModelOptions } from "../../client/src/storeBrowser/treeModel";
import { DEMO, startEmulator, type EmulatorHandle, type EmulatorOptions } from "../emulator";

export { DEMO };

export async function emulatorFor(t: TestContext, options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const emu = await startEmulator(options);
  t.after(() => emu.close());
  return emu;
}

/** SecretStorage in memory; `writes` records every store/delete. */
export class MemorySecrets implements SecretStore {
  readonly values = new Map<string, string>();
  readonly writes: string[] = [];
  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.writes.push(`store ${key}`);
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.writes.push(`delete ${key}`);
    this.values.delete(key);
  }
}

export function passwordEnv(emu: EmulatorHandle, name = "local", username = "admin"): EnvironmentConfig {
  return { name, baseUrl: emu.url, auth: "password", username, verifyTls: true };
}

export function settingsWith(environments: EnvironmentConfig[], overrides: Partial<BrowserSettings> = {}): BrowserSettings {
  return { environments, problems: [], maxValueLength: 65535, trusted: true, ...overrides };
}

/** Connections to one emulator environment, signed in as `username` (admin by default). */
export async function signedIn(
  emu: EmulatorHandle,
  options: { username?: string; password?: string; settings?: Partial<BrowserSettings> } = {},
): Promise<{ connections: Connections; secrets: MemorySecrets; env: EnvironmentConfig }> {
  const env = passwordEnv(emu, "local", options.username ?? "admin");
  const secrets = new MemorySecrets();
  secrets.values.set(secretKey(env)!, options.password ?? options.username ?? "admin");
  const connections = new Connections(secrets, { timeoutMs: 5000 });
  connections.update(settingsWith([env], options.settings));
  return { connections, secrets, env };
}

export async function modelFor(emu: EmulatorHandle, options: TreeModelOptions = {}, username?: string): Promise<StoreTreeModel> {
  const { connections } = await signedIn(emu, { username });
  return new StoreTreeModel(connections, options);
}

/** Walks from the root by labels: each step picks the child whose label (per `labelOf`) equals the name. */
export async function pathTo(model: StoreTreeModel, ...names: string[]): Promise<StoreNode> {
  let node: StoreNode | undefined;
  for (const name of names) {
    const children: StoreNode[] = await model.getChildren(node);
    const next: StoreNode | undefined = children.find((c) => labelOf(c) === name);
    if (!next) throw new Error(`No child "${name}" under ${node?.id ?? "the root"}: ${children.map(labelOf).join(", ")}`);
    node = next;
  }
  return node!;
}

/** A short name for a node: what the tree's label shows. */
export function labelOf(node: StoreNode): string {
  switch (node.kind) {
    case "environment":
      return node.envName;
    case "dags":
      return "DAGs";
    case "assets":
      return "Assets";
    case "dag":
      return node.dag.dag_id;
    case "run":
      return node.run.dag_run_id;
    case "taskInstance":
      return node.ref.mapIndex >= 0 ? `${node.ref.taskId} [${node.ref.mapIndex}]` : node.ref.taskId;
    case "taskEntry":
    case "assetEntry":
      return node.entry.key;
    case "asset":
      return node.asset.name;
    case "loadMore":
      return "Load more…";
    case "message":
      return node.text;
  }
}

export function labels(nodes: StoreNode[]): string[] {
  return nodes.map(labelOf);
}
