/**
 * PEP 508 requirement strings (`apache-airflow[celery]==2.10.5; python_version >= "3.9"`), read as
 * far as pinning goes: the name, and the version specifier as written.
 */

export interface Requirement {
  /** Normalised as PEP 503 does: lower case, runs of `-_.` as one `-`. */
  name: string;
  /** The version specifier as written, without parentheses (`==2.10.5`, `>=2.8,<3.3`); empty when none. */
  specifier: string;
  /** A direct reference (`name @ https://...`): the version is not written. */
  url: boolean;
}

const REQUIREMENT = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(.*)$/s;

export function parseRequirement(text: string): Requirement | undefined {
  const match = REQUIREMENT.exec(text);
  if (!match) return undefined;
  const name = normalizeName(match[1]);
  let rest = match[2].trim();
  if (rest.startsWith("@")) return { name, specifier: "", url: true };
  const marker = rest.indexOf(";");
  if (marker !== -1) rest = rest.slice(0, marker).trim();
  if (rest.startsWith("(") && rest.endsWith(")")) rest = rest.slice(1, -1).trim();
  // What is left must look like a specifier set (or be empty); anything else is not a requirement.
  if (rest !== "" && !/^[<>=!~]/.test(rest)) return undefined;
  return { name, specifier: rest, url: false };
}

export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/**
 * The distributions whose version is Airflow's: `apache-airflow`, and `apache-airflow-core`, which
 * Airflow 3 releases with the same version number. (`apache-airflow-task-sdk` has its own numbering.)
 */
export function isAirflowDistribution(name: string): boolean {
  const normalized = normalizeName(name);
  return normalized === "apache-airflow" || normalized === "apache-airflow-core";
}
