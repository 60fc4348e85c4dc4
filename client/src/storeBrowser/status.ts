/** The status bar item: the active environment and its Airflow version, a warning below 3.3. */
import { supportsStateStore } from "../rest/browse";
import type { Connection } from "./connections";

export interface StatusData {
  text: string;
  tooltip: string;
  /** Shown with the warning background. */
  warning: boolean;
}

/**
 * `connection` is the active environment's; `version` its Airflow version when known, or the error
 * that kept it unknown.
 */
export function statusOf(connection: Connection, version: { version: string } | { error: string } | undefined): StatusData | undefined {
  switch (connection.kind) {
    case "untrusted":
      return { text: "$(shield) Airflow", tooltip: "Airflow State: not connected in an untrusted workspace", warning: false };
    case "no-environment":
      return undefined;
    case "signed-out":
      return { text: `$(account) ${connection.env.name}`, tooltip: `Airflow State: ${connection.env.name} (${connection.env.baseUrl}), signed out`, warning: false };
    case "ready": {
      const { env } = connection;
      if (!version) return { text: `$(sync~spin) ${env.name}`, tooltip: `Airflow State: connecting to ${env.baseUrl}…`, warning: false };
      if ("error" in version) return { text: `$(debug-disconnect) ${env.name}`, tooltip: `Airflow State: ${env.baseUrl}\n${version.error}`, warning: true };
      const supported = supportsStateStore(version.version);
      return {
        text: `${supported ? "$(server-environment)" : "$(warning)"} ${env.name} · Airflow ${version.version}`,
        tooltip: supported
          ? `Airflow State: ${env.name} (${env.baseUrl}), Airflow ${version.version}. Click to switch environment.`
          : `Airflow ${version.version} at ${env.baseUrl} has no state store API: task_state_store, asset_state_store and ResumableJobMixin need Airflow 3.3 or later.`,
        warning: !supported,
      };
    }
  }
}
