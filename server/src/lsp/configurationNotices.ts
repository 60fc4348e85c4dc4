/**
 * Tells the user about a configuration file with problems: each problem in the log, with the file,
 * line and key, and one notification per file until its problems change (a file fixed and broken
 * again is announced again), however many documents it covers or how often they are linted.
 */
import { ConfigurationProblem, describeConfigurationProblem, UNUSED_CONFIGURATION } from "../engine/project";
import { Logger } from "./logger";

export class ConfigurationNotices {
  /** Per configuration file, the problems last announced, serialized. */
  private readonly announced = new Map<string, string>();

  constructor(
    private readonly log: Logger,
    private readonly notify: (message: string) => void,
  ) {}

  report(file: string, problems: readonly ConfigurationProblem[]): void {
    if (problems.length === 0) {
      if (this.announced.delete(file)) this.log.info(`${file}: the configuration has no problems now and is used.`);
      return;
    }
    const key = JSON.stringify(problems);
    if (this.announced.get(file) === key) return;
    this.announced.set(file, key);
    for (const problem of problems) this.log.error(`Configuration problem: ${describeConfigurationProblem(problem)}`);
    this.log.error(`${file}: ${UNUSED_CONFIGURATION}.`);
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more; see the Airflow State Store output)` : "";
    this.notify(`Airflow State Store: ${describeConfigurationProblem(problems[0])}${more}. ${capitalized(UNUSED_CONFIGURATION)}.`);
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
