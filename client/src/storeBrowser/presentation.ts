/**
 * How each node reads in the tree, as plain data the VS Code adapter copies into a TreeItem:
 * label, description, tooltip, icon (a codicon id and a theme color id), context value for menus,
 * and the command a click runs.
 */
import { supportsStateStore } from "../rest/browse";
import { COMMANDS } from "./commandIds";
import {
  expiryText,
  isExpired,
  taskInstanceDescription,
  taskInstanceLabel,
  updatedText,
  valuePreview,
  writerText,
} from "./format";
import type { HealthState } from "./health";
import type { StoreNode, TreeAction } from "./nodes";

export interface TreeItemData {
  label: string;
  description?: string;
  tooltip?: string;
  /** Codicon id, e.g. `database`. */
  icon?: string;
  /** Theme color id for the icon, e.g. `testing.iconPassed`. */
  iconColor?: string;
  collapsible: "none" | "collapsed" | "expanded";
  /** `when` clauses of package.json's menus match these (`viewItem == taskEntry`). */
  contextValue: string;
  command?: TreeAction;
  /** A link at the end of the tooltip (e.g. Retry). */
  tooltipAction?: TreeAction;
}

/**
 * `health` is what the environment's requests found (offline, read-only); it marks the
 * environment node. An item kept from before a failed refresh says so on its own line.
 */
export function treeItemOf(node: StoreNode, now: Date, health: HealthState = {}): TreeItemData {
  const item = itemOf(node, now, health);
  if (!node.stale) return item;
  return {
    ...item,
    description: ["not refreshed", item.description].filter(Boolean).join(" · "),
    tooltip: `${item.tooltip ?? item.label}\n\nNot refreshed: ${node.stale}`,
    iconColor: "disabledForeground",
  };
}

function environmentItem(node: Extract<StoreNode, { kind: "environment" }>, health: HealthState): TreeItemData {
  const version = node.version?.version;
  const old = version !== undefined && !supportsStateStore(version);
  const lines = [`${node.envName}: ${node.baseUrl}`];
  if (version) lines.push(`Airflow ${version}${old ? " (no state store API: needs 3.3 or later)" : ""}`);
  if (health.offline) lines.push(`Offline: ${health.offline}`);
  if (health.readOnlyRole) lines.push(`Read-only: the sign-in's role "${health.readOnlyRole}" may read but not change state stores.`);
  else if (health.readOnly) lines.push(`Read-only: Airflow refused a write from this user (${health.readOnly}); entries can be read, not changed.`);
  const description = [health.offline ? "offline" : version ? `Airflow ${version}` : node.baseUrl, health.readOnly ? "read-only" : undefined].filter(Boolean).join(" · ");
  return {
    label: node.envName,
    description,
    tooltip: lines.join("\n"),
    icon: health.offline ? "debug-disconnect" : old ? "warning" : health.readOnly ? "lock" : "server-environment",
    iconColor: health.offline ? "list.errorForeground" : old ? "list.warningForeground" : undefined,
    collapsible: "expanded",
    contextValue: "environment",
    tooltipAction: health.offline ? { command: COMMANDS.refresh, title: "Retry" } : undefined,
  };
}

function itemOf(node: StoreNode, now: Date, health: HealthState): TreeItemData {
  switch (node.kind) {
    case "environment":
      return environmentItem(node, health);
    case "dags":
      return {
        label: "DAGs",
        description: node.filter ? `filter: ${node.filter}` : undefined,
        icon: node.filter ? "filter" : "type-hierarchy",
        collapsible: "collapsed",
        contextValue: node.filter ? "dagsFolder.filtered" : "dagsFolder",
      };
    case "assets":
      return { label: "Assets", icon: "database", collapsible: "collapsed", contextValue: "assetsFolder" };
    case "dag": {
      const dag = node.dag;
      const display = dag.dag_display_name && dag.dag_display_name !== dag.dag_id ? dag.dag_display_name : undefined;
      return {
        label: dag.dag_id,
        description: [dag.is_paused ? "paused" : undefined, display].filter(Boolean).join(" · ") || undefined,
        tooltip: [dag.dag_id, display, dag.description ?? undefined, dag.is_paused ? "Paused" : undefined].filter(Boolean).join("\n"),
        icon: "type-hierarchy-sub",
        iconColor: dag.is_paused ? "disabledForeground" : undefined,
        collapsible: "collapsed",
        contextValue: "dag",
      };
    }
    case "run": {
      const run = node.run;
      return {
        label: run.dag_run_id,
        description: [run.state, run.run_type].filter(Boolean).join(" · "),
        tooltip: [`Run ${run.dag_run_id}`, `state: ${run.state}`, run.logical_date ? `logical date: ${run.logical_date}` : undefined, run.run_after ? `run after: ${run.run_after}` : undefined]
          .filter(Boolean)
          .join("\n"),
        ...stateIcon(run.state),
        collapsible: "collapsed",
        contextValue: "run",
      };
    }
    case "taskInstance": {
      const ti = node.ti;
      const mapped = node.ref.mapIndex >= 0;
      return {
        label: taskInstanceLabel(ti),
        description: taskInstanceDescription(ti),
        tooltip: [
          `${node.ref.dagId} / ${node.ref.runId}`,
          `task ${ti.task_id}${mapped ? `, map index ${ti.map_index}` : ""}`,
          `state: ${ti.state ?? "no status"}, try ${ti.try_number}`,
          ti.operator ? `operator: ${ti.operator}` : undefined,
        ]
          .filter(Boolean)
          .join("\n"),
        ...stateIcon(ti.state),
        collapsible: "collapsed",
        contextValue: mapped ? "taskInstance.mapped" : "taskInstance",
      };
    }
    case "taskEntry": {
      const entry = node.entry;
      const expired = isExpired(entry.expires_at, now);
      return {
        label: entry.key,
        description: `${valuePreview(entry.value)} · ${expiryText(entry.expires_at, now)}`,
        tooltip: entryTooltip(entry.key, valuePreview(entry.value, 400), [
          `${updatedText(entry.updated_at, now)} (${entry.updated_at})`,
          entry.expires_at === null ? "never expires" : `${expiryText(entry.expires_at, now)} (${entry.expires_at})`,
          expired ? "Expired: `airflow state-store clean` removes it." : undefined,
        ]),
        icon: expired ? "history" : "key",
        iconColor: expired ? "disabledForeground" : undefined,
        collapsible: "none",
        contextValue: "taskEntry",
        command: { command: COMMANDS.editEntry, title: "Edit Value", args: [node] },
      };
    }
    case "asset":
      return {
        label: node.asset.name,
        description: node.asset.uri !== node.asset.name ? node.asset.uri : undefined,
        tooltip: `Asset ${node.asset.id}: ${node.asset.name}\n${node.asset.uri}${node.asset.group ? `\ngroup: ${node.asset.group}` : ""}`,
        icon: "database",
        collapsible: "collapsed",
        contextValue: "asset",
      };
    case "assetEntry": {
      const entry = node.entry;
      return {
        label: entry.key,
        description: `${valuePreview(entry.value)} · ${writerText(entry.last_updated_by)}`,
        tooltip: entryTooltip(entry.key, valuePreview(entry.value, 400), [
          `${updatedText(entry.updated_at, now)} (${entry.updated_at})`,
          `last written by ${writerText(entry.last_updated_by)}`,
        ]),
        icon: "key",
        collapsible: "none",
        contextValue: "assetEntry",
        command: { command: COMMANDS.editEntry, title: "Edit Value", args: [node] },
      };
    }
    case "loadMore":
      return {
        label: "Load more…",
        description: `${node.shown} of ${node.total}`,
        icon: "ellipsis",
        collapsible: "none",
        contextValue: "loadMore",
        command: { command: COMMANDS.loadMore, title: "Load more", args: [node] },
      };
    case "message":
      return {
        label: node.text,
        description: node.action?.title,
        tooltip: node.detail ? `${node.text}\n\n${node.detail}` : node.text,
        icon: node.severity === "error" ? "error" : node.severity === "warning" ? "warning" : "info",
        iconColor: node.severity === "error" ? "list.errorForeground" : node.severity === "warning" ? "list.warningForeground" : undefined,
        collapsible: "none",
        contextValue: "message",
        command: node.action,
      };
  }
}

function entryTooltip(key: string, preview: string, lines: (string | undefined)[]): string {
  return [key, preview, ...lines].filter(Boolean).join("\n");
}

/** The icon for a run or task instance state. */
function stateIcon(state: string | null | undefined): Pick<TreeItemData, "icon" | "iconColor"> {
  switch (state) {
    case "success":
      return { icon: "pass", iconColor: "testing.iconPassed" };
    case "failed":
    case "upstream_failed":
      return { icon: "error", iconColor: "testing.iconFailed" };
    case "running":
    case "restarting":
      return { icon: "sync", iconColor: "charts.blue" };
    case "queued":
    case "scheduled":
    case "deferred":
    case "up_for_reschedule":
      return { icon: "clock", iconColor: "charts.yellow" };
    case "up_for_retry":
      return { icon: "debug-restart", iconColor: "charts.orange" };
    case "skipped":
    case "removed":
      return { icon: "debug-step-over", iconColor: "disabledForeground" };
    default:
      return { icon: "circle-outline" };
  }
}
