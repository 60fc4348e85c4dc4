/**
 * What the user is told when an opened entry could not be saved: which entry, on which
 * environment, why (the value check's reason or Airflow's), and whether sending it again can help.
 * The text itself is never dropped: the editor keeps it until it is sent or reverted.
 */
import { taskInstanceLabel } from "./format";
import { EntryDocumentError, type EntryAddress } from "./entryDocument";
import type { EnvironmentConfig } from "./environments";
import { canRetry, classifyFailure, readOnlyMessage, type Failure } from "./failures";

export interface SaveFailure {
  /** The notification's text. */
  message: string;
  /** The reason alone (the tab's tooltip). */
  reason: string;
  /** Retry is offered only when sending the same text again can succeed. */
  retryable: boolean;
  /** What the failure says about the environment; undefined for a value that was never sent. */
  failure?: Failure;
}

/** `"cursor" of orders_daily / manual__… / extract_orders` or `"watermark" of asset orders/daily`. */
export function describeEntry(address: EntryAddress): string {
  if (address.store === "asset") return `"${address.key}" of asset ${address.assetName}`;
  return `"${address.key}" of ${address.dagId} / ${address.runId} / ${taskInstanceLabel({ task_id: address.taskId, map_index: address.mapIndex })}`;
}

export function failedSaveNotice(address: EntryAddress, env: EnvironmentConfig | undefined, error: unknown): SaveFailure {
  const what = `${describeEntry(address)} was not saved on ${address.env}`;
  const kept = "Your text is kept in the editor.";
  if (error instanceof EntryDocumentError) {
    return { message: `${what}: ${error.message.replace(/\.\s*$/, "")}. ${kept}`, reason: error.message, retryable: false };
  }
  const failure = classifyFailure(error, true);
  if (failure.kind === "read-only" && env) {
    return { message: `${what}: ${readOnlyMessage(env)} ${kept}`, reason: readOnlyMessage(env), retryable: false, failure };
  }
  return { message: `${what}: ${failure.reason}. ${kept}`, reason: failure.reason, retryable: canRetry(failure), failure };
}
