/**
 * The store browser's tree without VS Code: environment → DAGs → recent runs → task instances →
 * entries, and environment → assets → entries. Every list is read a page at a time (a "Load more…"
 * node fetches the next), kept until refreshed, and replaced by a message node with the reason and
 * an action when it is empty or fails. Listeners hear which node's children changed.
 */
import type { AirflowClient } from "../rest/client";
import { supportsStateStore } from "../rest/browse";
import type { AssetStateEntry, Page, TaskInstanceRef, TaskStateEntry } from "../rest/types";
import { COMMANDS } from "./commandIds";
import type { EntryAddress } from "./entryDocument";
import type { Connections } from "./connections";
import { isActiveState } from "./format";
import {
  idPart,
  isPaged,
  type AssetEntryNode,
  type AssetNode,
  type AssetsFolderNode,
  type DagNode,
  type DagsFolderNode,
  type EnvironmentNode,
  type LoadMoreNode,
  type MessageNode,
  type PagedNode,
  type RunNode,
  type StoreNode,
  type TaskEntryNode,
  type TaskInstanceNode,
  type TreeAction,
} from "./nodes";
import { classifyFailure } from "./failures";
import { connectionProblem, problemOf, type Problem } from "./problems";

export interface TreeModelOptions {
  /** `limit` asked for each page (the server may cap it lower). Default 100. */
  pageSize?: number;
  /** `limit` for DAG runs, most recent first. Default 25. */
  runPageSize?: number;
  /** A refresh reloads at most this many pages of a list it had paged through. Default 10. */
  maxReloadPages?: number;
}

/** A paged list of children as far as it has been read. */
interface ChildList {
  items: StoreNode[];
  total: number;
  nextOffset: number;
  hasMore: boolean;
  problem?: Problem;
  /** The items are from before a refresh that failed (the problem says why). */
  stale?: boolean;
  /** A page being read; later readers wait for it. */
  pending?: Promise<void>;
}

export type LocateResult = { node: TaskInstanceNode } | { reason: string };

type ChangeListener = (node: StoreNode | undefined) => void;

/** Lists are searched this many pages deep when revealing a task instance. */
const MAX_LOCATE_PAGES = 50;

export class StoreTreeModel {
  private readonly lists = new Map<string, ChildList>();
  private readonly nodes = new Map<string, StoreNode>();
  private readonly listeners = new Set<ChangeListener>();
  private roots: Promise<StoreNode[]> | undefined;
  private dagIdFilter: string | undefined;
  private readonly pageSize: number;
  private readonly runPageSize: number;
  private readonly maxReloadPages: number;

  constructor(
    private readonly connections: Connections,
    options: TreeModelOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 100;
    this.runPageSize = options.runPageSize ?? 25;
    this.maxReloadPages = options.maxReloadPages ?? 10;
  }

  onDidChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The current node with this id (nodes are replaced when their parent is re-read). */
  current<T extends StoreNode>(node: T): T {
    return (this.nodes.get(node.id) as T | undefined) ?? node;
  }

  getParent(node: StoreNode): StoreNode | undefined {
    return node.parent;
  }

  get dagFilter(): string | undefined {
    return this.dagIdFilter;
  }

  /** Shows only DAGs whose id contains `pattern` (Airflow's `dag_id_pattern`; `%` and `_` are wildcards). */
  setDagFilter(pattern: string | undefined): void {
    const next = pattern?.trim() || undefined;
    if (next === this.dagIdFilter) return;
    this.dagIdFilter = next;
    // Only the DAG lists are read again; the assets stay as they are.
    this.dropLists((id) => /^env\/[^/]+\/dags(\/|$)/.test(id));
    const env = [...this.nodes.values()].find((n) => n.kind === "environment");
    if (env) this.fire(env);
    else {
      this.roots = undefined;
      this.fire(undefined);
    }
  }

  async getChildren(node?: StoreNode): Promise<StoreNode[]> {
    if (!node) return (this.roots ??= this.readRoots());
    switch (node.kind) {
      case "environment":
        return this.environmentChildren(node);
      case "taskEntry":
      case "assetEntry":
      case "loadMore":
      case "message":
        return [];
      default: {
        const list = await this.list(node);
        return this.present(node, list);
      }
    }
  }

  /** Reads the next page of the list the "Load more…" node ends. */
  async loadMore(more: LoadMoreNode): Promise<void> {
    const parent = more.parent;
    if (!isPaged(parent)) return;
    const list = this.lists.get(parent.id);
    if (!list) return;
    await this.readPage(parent, list);
    this.fire(parent);
  }

  /**
   * Reads a node's children again (all nodes when undefined), keeping as many pages as were shown,
   * up to `maxReloadPages`.
   */
  async refresh(node?: StoreNode): Promise<void> {
    if (!node) {
      const env = this.connections.active;
      if (env) this.connections.forget(env);
      this.roots = undefined;
      this.dropLists(() => true);
      this.fire(undefined);
      return;
    }
    const target = this.current(node);
    if (target.kind === "environment") {
      const env = this.connections.find(target.envName);
      if (env) this.connections.forget(env);
      this.roots = undefined;
      this.dropLists(() => true);
      this.fire(undefined);
      return;
    }
    if (!isPaged(target)) {
      if (target.parent) await this.refresh(target.parent);
      return;
    }
    const old = this.lists.get(target.id);
    const shown = old ? old.items.length : 0;
    this.dropLists((id) => id.startsWith(`${target.id}/`));
    this.lists.delete(target.id);
    const list = await this.list(target);
    for (let pages = 1; pages < this.maxReloadPages && list.hasMore && !list.problem && list.items.length < shown; pages++) {
      await this.readPage(target, list);
    }
    if (list.problem && list.items.length === 0 && old && old.items.length > 0 && !old.problem) this.keepStale(list, old, list.problem.text);
    this.fire(target);
  }

  /** The environment's node is drawn again (its health changed: offline, read-only). */
  environmentChanged(envName: string): void {
    const node = [...this.nodes.values()].find((n) => n.kind === "environment" && n.envName === envName);
    if (node) this.fire(node);
  }

  /** Task instances and runs that may still change and whose children are shown, for auto-refresh. */
  activeNodes(isExpanded: (node: StoreNode) => boolean = () => true): StoreNode[] {
    const found: StoreNode[] = [];
    for (const id of this.lists.keys()) {
      const node = this.nodes.get(id);
      if (!node || !isExpanded(node)) continue;
      if ((node.kind === "taskInstance" && isActiveState(node.ti.state)) || (node.kind === "run" && isActiveState(node.run.state))) {
        // A run being refreshed re-reads its task instances; their entries follow when shown again.
        if (node.kind === "taskInstance" && found.some((f) => f.id === node.parent?.id)) continue;
        found.push(node);
      }
    }
    return found;
  }

  /** Replaces an entry in place after it was written, without re-reading its list. */
  replaceTaskEntry(node: TaskEntryNode, entry: TaskStateEntry): void {
    this.replaceEntry(node, { ...this.current(node), entry });
  }

  replaceAssetEntry(node: AssetEntryNode, entry: AssetStateEntry): void {
    this.replaceEntry(node, { ...this.current(node), entry });
  }

  /** The shown node of the entry a document addresses, if its list has been read. */
  findEntry(address: EntryAddress): TaskEntryNode | AssetEntryNode | undefined {
    for (const node of this.nodes.values()) {
      if (node.kind === "taskEntry" && address.store === "task") {
        const r = node.ref;
        if (node.envName === address.env && node.entry.key === address.key && r.dagId === address.dagId && r.runId === address.runId && r.taskId === address.taskId && r.mapIndex === address.mapIndex) {
          return node;
        }
      } else if (node.kind === "assetEntry" && address.store === "asset") {
        if (node.envName === address.env && node.entry.key === address.key && node.asset.id === address.assetId) return node;
      }
    }
    return undefined;
  }

  /** Drops a deleted entry from its list. */
  removeEntry(node: TaskEntryNode | AssetEntryNode): void {
    const parent = node.parent;
    const list = parent && this.lists.get(parent.id);
    if (!parent || !list) return;
    const index = list.items.findIndex((n) => n.id === node.id);
    if (index < 0) return;
    list.items.splice(index, 1);
    list.total = Math.max(0, list.total - 1);
    list.nextOffset = Math.max(0, list.nextOffset - 1);
    this.nodes.delete(node.id);
    this.fire(this.current(parent));
  }

  /**
   * Opens the way to a task instance: the DAG, its run and the task instance are read (paging as
   * far as needed) so that the tree can reveal the node.
   */
  async locateTaskInstance(ref: Required<TaskInstanceRef>): Promise<LocateResult> {
    const roots = await this.getChildren();
    const env = roots.find((n): n is EnvironmentNode => n.kind === "environment");
    if (!env) return { reason: "No Airflow environment is connected." };
    const dags = (await this.getChildren(env)).find((n): n is DagsFolderNode => n.kind === "dags");
    if (!dags) return { reason: `${env.envName} could not be read.` };
    const dag = await this.findChild(dags, (n): n is DagNode => n.kind === "dag" && n.dag.dag_id === ref.dagId);
    if (!dag) {
      const filtered = this.dagIdFilter ? ` with the DAG filter "${this.dagIdFilter}"` : "";
      return { reason: `DAG ${ref.dagId} is not listed on ${env.envName}${filtered}.` };
    }
    const run = await this.findChild(dag, (n): n is RunNode => n.kind === "run" && n.run.dag_run_id === ref.runId);
    if (!run) return { reason: `Run ${ref.runId} of ${ref.dagId} was not found.` };
    const ti = await this.findChild(
      run,
      (n): n is TaskInstanceNode => n.kind === "taskInstance" && n.ref.taskId === ref.taskId && n.ref.mapIndex === ref.mapIndex,
    );
    if (!ti) return { reason: `Task ${ref.taskId}${ref.mapIndex >= 0 ? ` [${ref.mapIndex}]` : ""} is not in run ${ref.runId}.` };
    return { node: ti };
  }

  // ---- reading ----

  private async readRoots(): Promise<StoreNode[]> {
    this.dropLists(() => true);
    const connection = await this.connections.connect();
    // Nothing configured and nothing skipped: the view shows its welcome content instead.
    if (connection.kind === "no-environment" && connection.problems.length === 0) return [];
    if (connection.kind !== "ready") return [this.message(undefined, 0, connectionProblem(connection))];
    const { env, client } = connection;
    const node: EnvironmentNode = { kind: "environment", id: `env/${idPart(env.name)}`, parent: undefined, envName: env.name, baseUrl: env.baseUrl };
    try {
      node.version = await this.connections.version(env, client);
      this.connections.health.reached(env);
    } catch (error) {
      // The environment's children say why; the node itself still names the environment.
      this.connections.health.failed(env, classifyFailure(error, false));
    }
    this.remember(node);
    const roots: StoreNode[] = [node];
    const skipped = this.connections.problems;
    if (skipped.length) {
      roots.push(
        this.message(undefined, 1, {
          severity: "warning",
          text: `${skipped.length} environment setting${skipped.length === 1 ? " was" : "s were"} skipped: ${skipped[0]}`,
          detail: skipped.join("\n"),
          action: { command: COMMANDS.openSettings, title: "Open settings" },
        }),
      );
    }
    return roots;
  }

  private async environmentChildren(node: EnvironmentNode): Promise<StoreNode[]> {
    const connection = await this.connections.connect(this.connections.find(node.envName));
    if (connection.kind !== "ready") return [this.message(node, 0, connectionProblem(connection))];
    const retry: TreeAction = { command: COMMANDS.refresh, title: "Retry", args: [node] };
    let version = node.version;
    if (!version) {
      try {
        version = await this.connections.version(connection.env, connection.client);
        this.connections.health.reached(connection.env);
      } catch (error) {
        this.connections.health.failed(connection.env, classifyFailure(error, false));
        return [this.message(node, 0, problemOf(error, "the Airflow version", node.envName, retry))];
      }
    }
    const children: StoreNode[] = [];
    if (!supportsStateStore(version.version)) {
      children.push(
        this.message(node, 0, {
          severity: "warning",
          text: `Airflow ${version.version} has no state store API: it needs Airflow 3.3 or later`,
          detail: "Below 3.3, task_state_store, asset_state_store and ResumableJobMixin are unavailable; DAGs and runs can still be browsed.",
        }),
      );
    }
    const dags: DagsFolderNode = { kind: "dags", id: `${node.id}/dags`, parent: node, envName: node.envName, filter: this.dagIdFilter };
    const assets: AssetsFolderNode = { kind: "assets", id: `${node.id}/assets`, parent: node, envName: node.envName };
    children.push(this.remember(dags), this.remember(assets));
    return children;
  }

  /** The node's list, reading its first page if it has none yet. */
  private async list(node: PagedNode): Promise<ChildList> {
    let list = this.lists.get(node.id);
    if (!list) {
      list = { items: [], total: 0, nextOffset: 0, hasMore: false };
      this.lists.set(node.id, list);
      void this.readPage(node, list); // sets list.pending before its first await
    }
    while (list.pending) await list.pending;
    return list;
  }

  /** Appends the next page to `list` (one read at a time per list). */
  private async readPage(node: PagedNode, list: ChildList): Promise<void> {
    while (list.pending) await list.pending;
    if (list.problem) {
      list.problem = undefined;
      list.hasMore = list.items.length > 0 && list.nextOffset < list.total;
    }
    const read = (async () => {
      const connection = await this.connections.connect(this.connections.find(node.envName));
      if (connection.kind !== "ready") {
        list.problem = connectionProblem(connection);
        return;
      }
      try {
        const page = await this.fetchPage(connection.client, node, list.nextOffset);
        for (const item of page.items) {
          if (list.items.some((n) => n.id === item.id)) continue; // shifted by a write between pages
          list.items.push(this.remember(item));
        }
        list.total = page.totalEntries;
        list.nextOffset = page.nextOffset;
        list.hasMore = page.hasMore;
        list.stale = false;
        this.connections.health.reached(connection.env);
      } catch (error) {
        this.connections.health.failed(connection.env, classifyFailure(error, false));
        list.problem = problemOf(error, describeList(node), node.envName, { command: COMMANDS.refresh, title: "Retry", args: [node] });
      }
    })();
    list.pending = read;
    try {
      await read;
    } finally {
      if (list.pending === read) list.pending = undefined;
    }
  }

  private async fetchPage(client: AirflowClient, node: PagedNode, offset: number): Promise<Page<StoreNode>> {
    const limit = this.pageSize;
    switch (node.kind) {
      case "dags": {
        const page = await client.listDags({ limit, offset, dagIdPattern: this.dagIdFilter });
        return mapPage(page, (dag): DagNode => ({ kind: "dag", id: `${node.id}/${idPart(dag.dag_id)}`, parent: node, envName: node.envName, dag }));
      }
      case "dag": {
        const page = await client.listDagRuns(node.dag.dag_id, { limit: this.runPageSize, offset, orderBy: "-run_after" });
        return mapPage(page, (run): RunNode => ({ kind: "run", id: `${node.id}/${idPart(run.dag_run_id)}`, parent: node, envName: node.envName, dagId: node.dag.dag_id, run }));
      }
      case "run": {
        const page = await client.listTaskInstances(node.dagId, node.run.dag_run_id, { limit, offset });
        return mapPage(page, (ti): TaskInstanceNode => {
          const ref = { dagId: node.dagId, runId: node.run.dag_run_id, taskId: ti.task_id, mapIndex: ti.map_index ?? -1 };
          return { kind: "taskInstance", id: `${node.id}/${idPart(ti.task_id)}/${ref.mapIndex}`, parent: node, envName: node.envName, ref, ti };
        });
      }
      case "taskInstance": {
        const page = await client.listTaskStateEntries(node.ref, { limit, offset });
        return mapPage(page, (entry): TaskEntryNode => ({ kind: "taskEntry", id: `${node.id}/k/${idPart(entry.key)}`, parent: node, envName: node.envName, ref: node.ref, entry }));
      }
      case "assets": {
        const page = await client.listAssets({ limit, offset });
        return mapPage(page, (asset): AssetNode => ({ kind: "asset", id: `${node.id}/${asset.id}`, parent: node, envName: node.envName, asset }));
      }
      case "asset": {
        const page = await client.listAssetStateEntries(node.asset.id, { limit, offset });
        return mapPage(page, (entry): AssetEntryNode => ({ kind: "assetEntry", id: `${node.id}/k/${idPart(entry.key)}`, parent: node, envName: node.envName, asset: node.asset, entry }));
      }
    }
  }

  /** The children shown for a list: its items and "Load more…", or a message when there are none. */
  private present(node: PagedNode, list: ChildList): StoreNode[] {
    const shown: StoreNode[] = [...list.items];
    if (list.problem && list.stale) return [this.message(node, 0, { ...list.problem, text: `Not refreshed: ${list.problem.text}` }), ...shown];
    if (list.problem) {
      shown.push(this.message(node, 0, list.problem));
      return shown;
    }
    if (list.items.length === 0) return [this.message(node, 0, emptyProblem(node, this.dagIdFilter))];
    if (list.hasMore) {
      const more: LoadMoreNode = { kind: "loadMore", id: `${node.id}/more`, parent: node, shown: list.items.length, total: list.total };
      shown.push(this.remember(more));
    }
    return shown;
  }

  /** Reads pages of `parent` until a child satisfies `wanted`. */
  private async findChild<T extends StoreNode>(parent: PagedNode, wanted: (node: StoreNode) => node is T): Promise<T | undefined> {
    const list = await this.list(parent);
    for (let pages = 0; ; pages++) {
      const found = list.items.find(wanted);
      if (found) return found;
      if (!list.hasMore || list.problem || pages >= MAX_LOCATE_PAGES) return undefined;
      await this.readPage(parent, list);
      this.fire(parent);
    }
  }

  // ---- bookkeeping ----

  /** A refresh that failed keeps what was shown before, each item marked with the reason. */
  private keepStale(list: ChildList, old: ChildList, reason: string): void {
    list.items = old.items.map((item) => this.remember({ ...item, stale: reason }));
    list.total = old.total;
    list.nextOffset = old.nextOffset;
    list.hasMore = false;
    list.stale = true;
  }

  private replaceEntry<T extends TaskEntryNode | AssetEntryNode>(old: T, next: T): void {
    const parent = old.parent;
    const list = parent && this.lists.get(parent.id);
    if (!parent || !list) return;
    const index = list.items.findIndex((n) => n.id === old.id);
    if (index < 0) return;
    list.items[index] = this.remember(next);
    this.fire(this.current(parent));
  }

  private message(parent: StoreNode | undefined, index: number, problem: Problem): MessageNode {
    return this.remember({ kind: "message", id: `${parent ? parent.id : "root"}/message/${index}`, parent, ...problem });
  }

  private remember<T extends StoreNode>(node: T): T {
    this.nodes.set(node.id, node);
    return node;
  }

  private dropLists(matches: (id: string) => boolean): void {
    for (const id of [...this.lists.keys()]) if (matches(id)) this.lists.delete(id);
    for (const id of [...this.nodes.keys()]) if (matches(id)) this.nodes.delete(id);
  }

  private fire(node: StoreNode | undefined): void {
    for (const listener of this.listeners) listener(node);
  }
}

function mapPage<T>(page: Page<T>, toNode: (item: T) => StoreNode): Page<StoreNode> {
  return { ...page, items: page.items.map(toNode) };
}

function describeList(node: PagedNode): string {
  switch (node.kind) {
    case "dags":
      return "the DAGs";
    case "dag":
      return `the runs of ${node.dag.dag_id}`;
    case "run":
      return `the task instances of ${node.run.dag_run_id}`;
    case "taskInstance":
      return `the state store of ${node.ref.taskId}`;
    case "assets":
      return "the assets";
    case "asset":
      return `the state store of asset ${node.asset.name}`;
  }
}

function emptyProblem(node: PagedNode, filter: string | undefined): Problem {
  switch (node.kind) {
    case "dags":
      return filter
        ? { severity: "info", text: `No DAG id matches "${filter}"`, action: { command: COMMANDS.clearDagFilter, title: "Clear filter" } }
        : { severity: "info", text: "No DAGs", detail: "Airflow lists a DAG once its dag processor has parsed the file." };
    case "dag":
      return { severity: "info", text: "No runs yet" };
    case "run":
      return { severity: "info", text: "No task instances" };
    case "taskInstance":
      return { severity: "info", text: "No state store entries", action: { command: COMMANDS.addEntry, title: "Add entry…", args: [node] } };
    case "assets":
      return { severity: "info", text: "No assets" };
    case "asset":
      return { severity: "info", text: "No state store entries", action: { command: COMMANDS.addEntry, title: "Add entry…", args: [node] } };
  }
}
