/**
 * The nodes of the store browser's tree, as plain data: what each one addresses on the server and
 * which node it hangs under. The VS Code adapter turns them into TreeItems (see presentation.ts).
 */
import type { Asset, AssetStateEntry, Dag, DagRun, TaskInstance, TaskInstanceRef, TaskStateEntry, VersionInfo } from "../rest/types";

/** A command an item runs when clicked, or offers as its action. */
export interface TreeAction {
  command: string;
  title: string;
  args?: unknown[];
}

interface NodeBase {
  /** Stable across refreshes, so the tree keeps what was expanded and selected. */
  readonly id: string;
  readonly parent: StoreNode | undefined;
  /** Shown from an earlier read because the last refresh failed: why it failed. */
  readonly stale?: string;
}

export interface EnvironmentNode extends NodeBase {
  kind: "environment";
  envName: string;
  baseUrl: string;
  version?: VersionInfo;
}

export interface DagsFolderNode extends NodeBase {
  kind: "dags";
  envName: string;
  /** The DAG filter in force, if any. */
  filter?: string;
}

export interface AssetsFolderNode extends NodeBase {
  kind: "assets";
  envName: string;
}

export interface DagNode extends NodeBase {
  kind: "dag";
  envName: string;
  dag: Dag;
}

export interface RunNode extends NodeBase {
  kind: "run";
  envName: string;
  dagId: string;
  run: DagRun;
}

export interface TaskInstanceNode extends NodeBase {
  kind: "taskInstance";
  envName: string;
  ref: Required<TaskInstanceRef>;
  ti: TaskInstance;
}

export interface TaskEntryNode extends NodeBase {
  kind: "taskEntry";
  envName: string;
  ref: Required<TaskInstanceRef>;
  entry: TaskStateEntry;
}

export interface AssetNode extends NodeBase {
  kind: "asset";
  envName: string;
  asset: Asset;
}

export interface AssetEntryNode extends NodeBase {
  kind: "assetEntry";
  envName: string;
  asset: Asset;
  entry: AssetStateEntry;
}

/** The last child of a list that has more pages: clicking it loads the next one. */
export interface LoadMoreNode extends NodeBase {
  kind: "loadMore";
  /** Items shown so far and how many the server has. */
  shown: number;
  total: number;
}

/** An empty or error state: the reason, and what to do about it. */
export interface MessageNode extends NodeBase {
  kind: "message";
  severity: "info" | "warning" | "error";
  text: string;
  /** The longer explanation (tooltip). */
  detail?: string;
  action?: TreeAction;
}

export type StoreNode =
  | EnvironmentNode
  | DagsFolderNode
  | AssetsFolderNode
  | DagNode
  | RunNode
  | TaskInstanceNode
  | TaskEntryNode
  | AssetNode
  | AssetEntryNode
  | LoadMoreNode
  | MessageNode;

export type StoreNodeKind = StoreNode["kind"];

/** Nodes whose children are a paged server collection. */
export type PagedNode = DagsFolderNode | AssetsFolderNode | DagNode | RunNode | TaskInstanceNode | AssetNode;

export function isPaged(node: StoreNode | undefined): node is PagedNode {
  return node !== undefined && ["dags", "assets", "dag", "run", "taskInstance", "asset"].includes(node.kind);
}

/** One path segment of a node id; ids join them with `/`. */
export function idPart(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** The task instance a node belongs to (the node itself or an entry of it). */
export function taskInstanceOf(node: StoreNode): Required<TaskInstanceRef> | undefined {
  return node.kind === "taskInstance" || node.kind === "taskEntry" ? node.ref : undefined;
}

/** The environment a node belongs to. */
export function envNameOf(node: StoreNode): string | undefined {
  for (let current: StoreNode | undefined = node; current; current = current.parent) {
    if ("envName" in current) return current.envName;
  }
  return undefined;
}
