/**
 * The lint worker's view of each open document's project: its configuration file (rule selection,
 * severities, exclusions, baseline revision, `airflow-version`) combined with the editor's settings
 * as `airflowStateStore.configurationPreference` says, and the Airflow version its project pins
 * (AS501, AS502). Read from disk next to the lint that uses them, cached per folder by the engine's
 * `ProjectConfiguration`, and read again when the connection thread reports that project or
 * configuration files changed. Untitled documents (no path) have no project: the editor's settings
 * alone apply, and they get no pin.
 */
import { allRules } from "../engine";
import { ConfigurationOverrides, diskProjectFiles, FileConfiguration, ProjectConfiguration, ProjectFiles } from "../engine/project";

interface Used {
  path: string;
  overrides: ConfigurationOverrides;
  /** The configuration the document's last lint saw, serialized. */
  key: string;
}

export class WorkerConfiguration {
  private readonly configuration: ProjectConfiguration;
  /** By document URI. */
  private readonly used = new Map<string, Used>();
  /** Failures already logged: a folder whose files make a reader throw is read again on every lint. */
  private readonly loggedFailures = new Set<string>();

  constructor(
    private readonly logError: (message: string) => void,
    files: ProjectFiles = diskProjectFiles,
  ) {
    this.configuration = new ProjectConfiguration({ ruleCodes: allRules.map((rule) => rule.code), files });
  }

  /** The configuration for a lint of `uri`, remembered so that a change of it later re-lints the document. */
  forLint(uri: string, path: string | undefined, overrides: ConfigurationOverrides): FileConfiguration {
    const configuration = this.resolve(path, overrides);
    if (path !== undefined) this.used.set(uri, { path, overrides, key: keyOf(configuration) });
    return configuration;
  }

  /** The configuration without remembering it (fix-all and the review, whose results are not published). */
  peek(path: string | undefined, overrides: ConfigurationOverrides): FileConfiguration {
    return this.resolve(path, overrides);
  }

  closed(uri: string): void {
    this.used.delete(uri);
  }

  /**
   * Project or configuration files (or folders) were created, changed or deleted: forgets what they
   * could change, and returns the open documents whose configuration or pin is now different from
   * the one their last lint used.
   */
  filesChanged(paths: readonly string[]): string[] {
    let dropped = false;
    for (const changed of paths) if (this.configuration.invalidate(changed)) dropped = true;
    if (!dropped) return [];
    const moved: string[] = [];
    for (const [uri, used] of this.used) if (keyOf(this.resolve(used.path, used.overrides)) !== used.key) moved.push(uri);
    return moved;
  }

  /** A project file the readers trip over must not cost the document its other diagnostics. */
  private resolve(path: string | undefined, overrides: ConfigurationOverrides): FileConfiguration {
    if (path === undefined) {
      return { excluded: false, lint: { ignore: [], severities: { ...overrides.severities } }, baseline: "HEAD", problems: [] };
    }
    const configuration = this.configuration.forFile(path, overrides);
    if (configuration.airflowPinError !== undefined) {
      const message = `Could not read the Airflow version pinned for ${path}: ${configuration.airflowPinError}`;
      if (!this.loggedFailures.has(message)) {
        this.loggedFailures.add(message);
        this.logError(message);
      }
    }
    return configuration;
  }
}

function keyOf(configuration: FileConfiguration): string {
  return JSON.stringify(configuration);
}
