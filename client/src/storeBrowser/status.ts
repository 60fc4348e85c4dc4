/**
 * The status bar item of the store browser: the active environment, labelled as such (the other
 * Airflow item is the version the project pins), its Airflow version, a warning below 3.3, and
 * "offline" once its requests cannot reach Airflow.
 */
import { supportsStateStore } from "../rest/browse";
import type { Connection } from "./connections";
import type { HealthState } from "./health";

export interface StatusData {
  text: string;
  tooltip: string;
  /** What a screen reader says; distinct from the project pin's item. */
  accessibilityLabel: string;
  /** Shown with the warning background. */
  warning: boolean;
  /** A click retries the connection instead of switching environments. */
  retry?: boolean;
}

/**
 * `connection` is the active environment's; `version` its Airflow version when known, or the error
 * that kept it unknown; `health` what its requests found since.
 */
export function statusOf(
  connection: Connection,
  version: { version: string } | { error: string } | undefined,
  health: HealthState = {},
): StatusData | undefined {
  switch (connection.kind) {
    case "untrusted":
      return {
        text: "$(shield) Environment: restricted",
        tooltip: "Airflow State: not connected in an untrusted workspace",
        accessibilityLabel: "Airflow State environment: not connected in an untrusted workspace",
        warning: false,
      };
    case "no-environment":
      return undefined;
    case "signed-out":
      return {
        text: `$(account) Environment ${connection.env.name}: signed out`,
        tooltip: `Airflow State: ${connection.env.name} (${connection.env.baseUrl}), signed out`,
        accessibilityLabel: `Airflow State environment ${connection.env.name}: signed out`,
        warning: false,
      };
    case "ready": {
      const { env } = connection;
      const offline = health.offline ?? (version && "error" in version ? version.error : undefined);
      if (offline) {
        return {
          text: `$(debug-disconnect) Environment ${env.name}: offline`,
          tooltip: `Airflow State: ${env.name} (${env.baseUrl}) is offline: ${offline}. Click to retry.`,
          accessibilityLabel: `Airflow State environment ${env.name} is offline`,
          warning: true,
          retry: true,
        };
      }
      if (!version || "error" in version) {
        return {
          text: `$(sync~spin) Environment ${env.name}`,
          tooltip: `Airflow State: connecting to ${env.baseUrl}…`,
          accessibilityLabel: `Airflow State environment ${env.name}: connecting`,
          warning: false,
        };
      }
      const supported = supportsStateStore(version.version);
      const readOnly = health.readOnly ? " (read-only)" : "";
      return {
        text: `${supported ? "$(server-environment)" : "$(warning)"} Environment ${env.name}: Airflow ${version.version}${readOnly}`,
        tooltip: supported
          ? `Airflow State: the environment ${env.name} (${env.baseUrl}) runs Airflow ${version.version}${readOnly}. Click to switch environment.`
          : `Airflow ${version.version} at ${env.baseUrl} has no state store API: task_state_store, asset_state_store and ResumableJobMixin need Airflow 3.3 or later.`,
        accessibilityLabel: `Airflow State environment ${env.name} runs Airflow ${version.version}${readOnly}`,
        warning: !supported,
      };
    }
  }
}
