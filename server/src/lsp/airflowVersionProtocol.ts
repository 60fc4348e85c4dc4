/**
 * `airflowStateStore/airflowVersion`: the notification that tells the client which Airflow version
 * the project of a linted document pins, for the status bar (client/src/airflowVersionStatus.ts).
 * Both ends import this file, so it imports nothing: the client bundle takes only these lines.
 */

export const AIRFLOW_VERSION_METHOD = "airflowStateStore/airflowVersion";

export interface AirflowVersionInfo {
  /** The pin in words: `Airflow 2.10.5`, `Airflow <3.3`, `Astro Runtime 13.0.0 (Airflow 2.11)`. */
  text: string;
  /** Every version the pin allows is older than 3.3, which has no state stores. */
  below33: boolean;
  /** The file the pin is written in (`requirements.txt`, `Dockerfile`, ...), a file URI. */
  sourceUri: string;
  /** 1-based line of the pin in that file, as people count lines. */
  line: number;
}

export interface AirflowVersionParams {
  /** The document, as the client sent it. */
  uri: string;
  /** Null when no pin is known: an untitled document, a project that names no capped Airflow version, or checking is off. */
  pin: AirflowVersionInfo | null;
}
