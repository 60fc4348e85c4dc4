/**
 * The writes the browser offers (add, delete, clear) and the confirmations that name exactly what
 * they remove. The VS Code commands ask the questions and call these.
 */
import type { AirflowClient } from "../rest/client";
import type { JsonValue, TaskInstanceRef, TaskStateEntry } from "../rest/types";
import type { EntryAddress } from "./entryDocument";
import { taskInstanceLabel, valueText } from "./format";
import type { AssetEntryNode, AssetNode, TaskEntryNode, TaskInstanceNode } from "./nodes";

/** Where a new entry goes: a task instance or an asset. */
export type EntryOwner = TaskInstanceNode | AssetNode;

export interface NewEntry {
  key: string;
  value: JsonValue;
  /** Task entries only: `"default"`, `null` (never) or an aware date-time. */
  expiresAt?: "default" | null | string;
}

export async function addEntry(client: AirflowClient, owner: EntryOwner, entry: NewEntry): Promise<void> {
  if (owner.kind === "asset") await client.putAssetStateEntry(owner.asset.id, entry.key, entry.value);
  else await client.putTaskStateEntry(owner.ref, entry.key, entry.value, { expiresAt: entry.expiresAt === undefined ? "default" : entry.expiresAt });
}

/**
 * Gives an entry a new expiry: its current value is read and written back with it (the REST API
 * sets an expiry only together with a value). Answers the entry as stored.
 */
export async function setEntryExpiry(client: AirflowClient, ref: Required<TaskInstanceRef>, key: string, expiresAt: "default" | null | string): Promise<TaskStateEntry> {
  const current = await client.getTaskStateEntry(ref, key);
  await client.putTaskStateEntry(ref, key, current.value, { expiresAt });
  return client.getTaskStateEntry(ref, key);
}

export async function deleteEntry(client: AirflowClient, node: TaskEntryNode | AssetEntryNode): Promise<void> {
  if (node.kind === "assetEntry") await client.deleteAssetStateEntry(node.asset.id, node.entry.key);
  else await client.deleteTaskStateEntry(node.ref, node.entry.key);
}

export async function clearEntries(client: AirflowClient, owner: EntryOwner, allMapIndices: boolean): Promise<void> {
  if (owner.kind === "asset") await client.clearAssetStateStore(owner.asset.id);
  else await client.clearTaskStateStore(owner.ref, { allMapIndices });
}

/** `orders_daily / scheduled__… / load_orders [2]` */
export function taskInstanceName(ref: Required<TaskInstanceRef>): string {
  return `${ref.dagId} / ${ref.runId} / ${taskInstanceLabel({ task_id: ref.taskId, map_index: ref.mapIndex })}`;
}

export interface Confirmation {
  message: string;
  detail: string;
  /** The buttons, each with what it does; the dialog's Cancel is added by VS Code. */
  choices: { label: string; allMapIndices: boolean }[];
}

export function confirmDelete(node: TaskEntryNode | AssetEntryNode): Confirmation {
  const where = node.kind === "assetEntry" ? `asset "${node.asset.name}"` : taskInstanceName(node.ref);
  return {
    message: `Delete "${node.entry.key}" from the state store of ${where}?`,
    detail:
      node.kind === "assetEntry"
        ? "Every DAG reading this asset's store sees it gone. This cannot be undone."
        : "The task gets its default value the next time it reads the key. This cannot be undone.",
    choices: [{ label: "Delete", allMapIndices: false }],
  };
}

/**
 * Clearing a task instance names it; for a mapped one the user picks this map index or every
 * index of the task in that run. `entryCount` is how many entries the list showed, when known.
 */
export function confirmClear(owner: EntryOwner, entryCount?: number): Confirmation {
  const count = entryCount === undefined ? "all entries" : `all ${entryCount} entr${entryCount === 1 ? "y" : "ies"}`;
  if (owner.kind === "asset") {
    return {
      message: `Clear ${count} of asset "${owner.asset.name}"?`,
      detail: "The asset store is shared by every DAG run that uses the asset (watermarks, offsets). This cannot be undone.",
      choices: [{ label: "Clear", allMapIndices: false }],
    };
  }
  const name = taskInstanceName(owner.ref);
  if (owner.ref.mapIndex < 0) {
    return {
      message: `Clear ${count} of ${name}?`,
      detail: "A retry of this task instance starts without its saved state (job ids, cursors). This cannot be undone.",
      choices: [{ label: "Clear", allMapIndices: false }],
    };
  }
  return {
    message: `Clear the state store of ${name}?`,
    detail:
      `"Clear map index ${owner.ref.mapIndex}" removes ${count} of this index only; "Clear all map indices" removes the entries of every ` +
      `index of ${owner.ref.taskId} in this run. This cannot be undone.`,
    choices: [
      { label: `Clear map index ${owner.ref.mapIndex}`, allMapIndices: false },
      { label: "Clear all map indices", allMapIndices: true },
    ],
  };
}

/** What "Copy Value" puts on the clipboard. */
export function copiedValue(node: TaskEntryNode | AssetEntryNode): string {
  return valueText(node.entry.value);
}

/** The document address of an entry node. */
export function addressOf(node: TaskEntryNode | AssetEntryNode): EntryAddress {
  return node.kind === "assetEntry"
    ? { store: "asset", env: node.envName, assetId: node.asset.id, assetName: node.asset.name, key: node.entry.key }
    : { store: "task", env: node.envName, ...node.ref, key: node.entry.key };
}
