/**
 * The connection thread's side of the Airflow version pins and the project configuration (the worker
 * resolves them, workerConfiguration.ts): which file events can change a pin or a configuration, the
 * watchers that report them, and the notification that tells the client each linted document's pin
 * for its status bar.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { FileChangeType, FileEvent, FileSystemWatcher } from "vscode-languageserver";
import { AirflowPin, CONFIGURATION_FILE_NAMES, describePin, isConfigurationFileName, isPinFileName } from "../engine/project";
import type { AirflowVersionInfo, AirflowVersionParams } from "./airflowVersionProtocol";
import type { Logger } from "./logger";
import { filePathOf } from "./workerWorkspace";

/** The files a pin (engine/project/airflowVersion.ts) or the configuration (engine/project/configuration.ts) can be read from, watched for every kind of change. */
export const PIN_FILE_WATCHERS: FileSystemWatcher[] = [
  ...new Set(["**/requirements*.txt", "**/constraints*.txt", "**/pyproject.toml", "**/setup.cfg", "**/setup.py", "**/Dockerfile", ...CONFIGURATION_FILE_NAMES.map((name) => `**/${name}`)]),
].map((globPattern) => ({ globPattern }));

/**
 * The paths among file events that can change a pin: project files by name, and anything deleted
 * (a deleted folder is reported alone, not the requirements file that was in it).
 */
export function projectFileChanges(changes: readonly FileEvent[]): string[] {
  const paths: string[] = [];
  for (const change of changes) {
    const file = filePathOf(change.uri);
    if (file && (change.type === FileChangeType.Deleted || isPinFileName(path.basename(file)) || isConfigurationFileName(path.basename(file)))) paths.push(file);
  }
  return paths;
}

export function airflowVersionInfo(pin: AirflowPin): AirflowVersionInfo {
  return { text: describePin(pin), below33: pin.below33, sourceUri: pathToFileURL(pin.source.path).href, line: pin.source.line };
}

/**
 * Sends `airflowStateStore/airflowVersion` after a document's first lint and whenever its pin
 * changes, not after every keystroke's lint.
 */
export class AirflowVersionNotifier {
  /** What was last sent per document, serialized. */
  private readonly sent = new Map<string, string>();

  constructor(
    private readonly send: (params: AirflowVersionParams) => void,
    private readonly log?: Logger,
  ) {}

  linted(uri: string, pin: AirflowPin | undefined): void {
    const params: AirflowVersionParams = { uri, pin: pin ? airflowVersionInfo(pin) : null };
    const key = JSON.stringify(params.pin);
    if (this.sent.get(uri) === key) return;
    this.sent.set(uri, key);
    if (pin) this.log?.info(`${describePin(pin)} pinned in ${pin.source.path}, line ${pin.source.line}, for ${uri}${pin.below33 ? ": below 3.3, which has no state stores" : ""}.`);
    else this.log?.debug(`No Airflow version pin found for ${uri}: AS501 and AS502 stay silent.`);
    this.send(params);
  }

  /** The document was closed; the client forgets it too. Reopened, it is sent again. */
  forget(uri: string): void {
    this.sent.delete(uri);
  }
}
