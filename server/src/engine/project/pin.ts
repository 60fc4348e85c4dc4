/**
 * What a project says about its Airflow version: the pin the rules and the front ends see, and the
 * mentions the file readers collect before one of them is chosen.
 */
import * as path from "node:path";
import { admitsOnlyBelow, Constraint, exactVersion, isCapped, parsePoetryConstraint, parseSpecifierSet } from "./pep440";

/** The release that introduced the state stores and `ResumableJobMixin`. */
export const STATE_STORE_RELEASE: readonly number[] = [3, 3];

export interface PinSource {
  /** The file that holds the pin (an included requirements file when the pin is there). */
  path: string;
  /** 1-based line of the pin in that file. */
  line: number;
}

export interface AirflowPin {
  /**
   * The version or constraint as written: `2.10.5` for an exact pin or an image tag's version,
   * `<3.3`, `~=3.2.0`, `>=2.8,<3.3`, `^2.10`; for an Astro Runtime image, the runtime's version
   * (`13.0.0`, `3.0-1`) with the Airflow version it ships in `astroRuntime`.
   */
  version: string;
  /** Whether every Airflow version the pin allows is older than 3.3, which has no state stores. */
  below33: boolean;
  source: PinSource;
  /** Set when the pin is an Astro Runtime image. */
  astroRuntime?: {
    /** The Airflow version the runtime ships: `2.11`, `3.0`, or just `2` where only the major is known. */
    airflow: string;
  };
}

/** `Airflow 2.10.5`, `Airflow <3.3`, `Astro Runtime 13.0.0 (Airflow 2.11)`: the pin in words, for messages and the status bar. */
export function describePin(pin: AirflowPin): string {
  return pin.astroRuntime ? `Astro Runtime ${pin.version} (Airflow ${pin.astroRuntime.airflow})` : `Airflow ${pin.version}`;
}

/**
 * Where the pin comes from, for a diagnostic on `fromFile`: "the project pins Airflow 2.10.5
 * (../requirements.txt:3)", "the project's image is Astro Runtime 13.0.0, which ships Airflow 2.11
 * (Dockerfile:1)". The path is relative to the linted file's folder when that is known.
 */
export function pinStatement(pin: AirflowPin, fromFile?: string): string {
  const file = fromFile && path.isAbsolute(pin.source.path) ? path.relative(path.dirname(fromFile), pin.source.path) : pin.source.path;
  const where = `${file}:${pin.source.line}`;
  return pin.astroRuntime
    ? `the project's image is Astro Runtime ${pin.version}, which ships Airflow ${pin.astroRuntime.airflow} (${where})`
    : `the project pins Airflow ${pin.version} (${where})`;
}

/**
 * A place where a project file names Airflow. `pin` is undefined when it does so without capping the
 * version (`apache-airflow`, `apache-airflow>=3.0`, `FROM apache/airflow:latest`): the project uses
 * Airflow, but which version is not known.
 */
export interface AirflowMention {
  source: PinSource;
  pin?: AirflowPin;
}

/** A mention of Airflow with a PEP 440 specifier (`==2.10.5`, `<3.3`, or empty). */
export function specifierMention(specifier: string, source: PinSource): AirflowMention {
  return constraintMention(specifier.trim() === "" ? undefined : parseSpecifierSet(specifier), specifier, source);
}

/** A mention of Airflow with a Poetry constraint (`^2.10`, `2.10.5`, `~3.2`). */
export function poetryMention(constraint: string, source: PinSource): AirflowMention {
  return constraintMention(parsePoetryConstraint(constraint), constraint, source);
}

/** A mention of one exact Airflow version (an image tag, an official constraints file). */
export function exactMention(version: string, source: PinSource): AirflowMention {
  return constraintMention(parseSpecifierSet(`==${version}`), `==${version}`, source);
}

function constraintMention(constraint: Constraint | undefined, written: string, source: PinSource): AirflowMention {
  if (!constraint || !isCapped(constraint)) return { source };
  const version = exactVersion(constraint) ?? written.split(",").map((part) => part.trim()).join(",");
  return { source, pin: { version, below33: admitsOnlyBelow(constraint, STATE_STORE_RELEASE), source } };
}
