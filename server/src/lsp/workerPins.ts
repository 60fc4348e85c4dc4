/**
 * The lint worker's view of the Airflow version each open document's project pins (AS501, AS502):
 * resolved from disk next to the lint that uses it, cached per folder by the resolver, and re-read
 * when the connection thread reports that project files changed. Untitled documents (no path) have
 * no project and get no pin.
 */
import { AirflowPin, AirflowVersionResolver, diskProjectFiles, ProjectFiles } from "../engine/project";
import { errorText } from "./logger";

interface Used {
  path: string;
  /** The pin the document's last lint saw, serialized: its version, its file and line. */
  key: string;
}

export class WorkerPins {
  private readonly resolver: AirflowVersionResolver;
  /** By document URI. */
  private readonly used = new Map<string, Used>();
  /** Failures already logged: a folder whose files make a reader throw is read again on every lint. */
  private readonly loggedFailures = new Set<string>();

  constructor(
    private readonly logError: (message: string) => void,
    files: ProjectFiles = diskProjectFiles,
  ) {
    this.resolver = new AirflowVersionResolver(files);
  }

  /** The pin for a lint of `uri`, remembered so that a change of it later re-lints the document. */
  forLint(uri: string, path: string | undefined): AirflowPin | undefined {
    if (path === undefined) return undefined;
    const pin = this.resolve(path);
    this.used.set(uri, { path, key: keyOf(pin) });
    return pin;
  }

  /** The pin without remembering it (fix-all, whose diagnostics are not published). */
  peek(path: string | undefined): AirflowPin | undefined {
    return path === undefined ? undefined : this.resolve(path);
  }

  closed(uri: string): void {
    this.used.delete(uri);
  }

  /**
   * Project files (or folders) were created, changed or deleted: forgets what they could change, and
   * returns the open documents whose pin is now different from the one their last lint used.
   */
  filesChanged(paths: readonly string[]): string[] {
    let dropped = false;
    for (const changed of paths) if (this.resolver.invalidate(changed)) dropped = true;
    if (!dropped) return [];
    const moved: string[] = [];
    for (const [uri, used] of this.used) if (keyOf(this.resolve(used.path)) !== used.key) moved.push(uri);
    return moved;
  }

  /** A project file the readers trip over must not cost the document its other diagnostics. */
  private resolve(path: string): AirflowPin | undefined {
    try {
      return this.resolver.pinFor(path);
    } catch (error) {
      const message = `Could not read the Airflow version pinned for ${path}: ${errorText(error)}`;
      if (!this.loggedFailures.has(message)) {
        this.loggedFailures.add(message);
        this.logError(message);
      }
      return undefined;
    }
  }
}

function keyOf(pin: AirflowPin | undefined): string {
  return JSON.stringify(pin ?? null);
}
