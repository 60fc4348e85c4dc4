/**
 * Astro Runtime image versions and the Airflow versions they ship.
 *
 * Astronomer's runtime docs state the two formats: Airflow 3 runtimes are versioned
 * `<Airflow major>.<Airflow minor>-<runtime patch>` (`3.0-1` ships Airflow 3.0, `3.3-2` ships 3.3), and
 * Airflow 2 runtimes `major.minor.patch` (`13.0.0`). So an Airflow 2 format tag is always below 3.3,
 * whatever the table below says; the table only names the Airflow minor version for messages.
 */

/**
 * Airflow 2 runtime major → the Airflow minor version of that line. Checked against Astronomer's own
 * pages: 3 (3.0.4 ships 2.1.1), 4 (4.2.9 ships 2.2.5), 6 (6.3.0 ships 2.4.3), 8 (8.5.0 ships 2.6.2).
 * From release history but not checked against a source here: 5, 7, 9, 10, 11, 12 and 13 (13.x ships
 * Airflow 2.11). Majors not listed are reported as "Airflow 2".
 */
const AIRFLOW_2_RUNTIMES: ReadonlyMap<number, string> = new Map([
  [3, "2.1"],
  [4, "2.2"],
  [5, "2.3"],
  [6, "2.4"],
  [7, "2.5"],
  [8, "2.6"],
  [9, "2.7"],
  [10, "2.8"],
  [11, "2.9"],
  [12, "2.10"],
  [13, "2.11"],
]);

export interface AstroRuntime {
  /** The runtime version from the tag: `13.0.0`, `3.0-1`. */
  runtime: string;
  /** The Airflow version it ships: `2.11`, `3.0`, or `2` when only the major is known. */
  airflow: string;
  /** The Airflow release as numbers, as far as known: [2, 11], [3, 0], [2]. */
  airflowRelease: number[];
}

/** Reads an Astro Runtime image tag (`13.0.0`, `12.6.0-base`, `3.0-1`, `3.1-2-python-3.12`); undefined when it names no version. */
export function astroRuntimeOf(tag: string): AstroRuntime | undefined {
  const airflow3 = /^(\d+)\.(\d+)-(\d+)(?:-.*)?$/.exec(tag);
  if (airflow3) {
    const release = [Number(airflow3[1]), Number(airflow3[2])];
    return { runtime: `${airflow3[1]}.${airflow3[2]}-${airflow3[3]}`, airflow: release.join("."), airflowRelease: release };
  }
  const airflow2 = /^(\d+)\.(\d+)\.(\d+)(?:-.*)?$/.exec(tag);
  if (airflow2) {
    const airflow = AIRFLOW_2_RUNTIMES.get(Number(airflow2[1])) ?? "2";
    return { runtime: `${airflow2[1]}.${airflow2[2]}.${airflow2[3]}`, airflow, airflowRelease: airflow.split(".").map(Number) };
  }
  return undefined;
}
