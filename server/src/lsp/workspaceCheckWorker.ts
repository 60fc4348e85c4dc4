/**
 * A thread that checks files of the workspace from disk, as the CLI checks them: each file is read
 * when its check comes, and the modules it imports are read and summarised the first time a rule
 * asks for one of their classes (a lazily loaded workspace index, so only what is imported is
 * parsed). On Linux the thread lowers its own scheduling priority: when the machine is busy, the
 * open documents' lint worker and the connection thread come first.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { parentPort } from "node:worker_threads";
import { Consulted, enabledRules, lint, PythonDocument, WorkspaceIndex } from "../engine";
import type { ConfigurationOverrides } from "../engine/project";
import { GitBaselines } from "../engine/project/git";
import { readSourceFileSync } from "../cli/files";
import { hasStarImport, loadModule } from "../cli/workspace";
import { MAX_LINTED_CHARACTERS } from "./diagnostics";
import { errorText } from "./logger";
import type { CheckedDiagnostic, FromCheckThread, ToCheckThread } from "./workspaceCheckMessages";
import { WorkerConfiguration } from "./workerConfiguration";

type Checked = Omit<Extract<FromCheckThread, { type: "checked" }>, "type" | "id">;

/**
 * `nice` 5: enough for the scheduler to favour the interactive threads. Measured in the workspace
 * bench on 2 cores, alternating: nice 10 published the workspace in 1.99–2.09× the CLI's time and
 * a one-off check in up to 3.9×; nice 5 in 1.36–1.51× and 0.99–1.49×, with the open document's
 * keystroke latency while checking / alone the same within noise (p95 1.27–1.30 against 1.30–1.50).
 */
const BACKGROUND_NICENESS = 5;

export function runWorkspaceCheckWorker(): void {
  const port = parentPort;
  if (!port) throw new Error("runWorkspaceCheckWorker must run in a worker thread");
  const post = (message: FromCheckThread) => port.postMessage(message);
  const log = (message: string) => post({ type: "log", message });
  lowerThreadPriority();
  const index = new WorkspaceIndex({ load: loadModule });
  const configurations = new WorkerConfiguration(log);
  /** What each file's last check consulted, so that a change of it makes the file stale. */
  const consultedBy = new Map<string, Consulted>();
  let baselines: GitBaselines | undefined;

  async function check(uri: string, path: string, overrides: ConfigurationOverrides): Promise<Checked> {
    // As the lint worker does: the project's configuration file, combined with the editor's settings.
    const configuration = configurations.forLint(uri, path, overrides);
    if (configuration.excluded) return { diagnostics: [] };
    const source = readSourceFileSync(path);
    if ("error" in source) return { diagnostics: undefined, problem: source.error };
    if (source.text.length > MAX_LINTED_CHARACTERS) return { diagnostics: undefined, problem: `${source.text.length} characters is over the limit of ${MAX_LINTED_CHARACTERS}` };
    const document = new PythonDocument(uri, source.text);
    // As the CLI does: a star import's names come from the other module, which the index must know first.
    if (hasStarImport(source.text)) index.update(path, source.text);
    const options = configuration.lint;
    const needsBaseline = enabledRules(options).flatMap((rule) => (rule.inputs?.baseline ? [rule.inputs.baseline] : []));
    const baselineText =
      baselines && document.isRelevant() && needsBaseline.some((need) => need(source.text)) ? await baselines.committedText(path, configuration.baseline) : undefined;
    const consulted: Consulted = new Set();
    const diagnostics = lint(document, {
      ...options,
      path,
      baselineText,
      workspace: index.recording(consulted),
      airflowPin: configuration.airflowPin,
      onRuleError: (rule, error) => log(`Rule ${rule.code} failed on ${path}; the other rules still ran.\n${errorText(error)}`),
    }).map(({ code, severity, message, range, related }): CheckedDiagnostic => ({ code, severity, message, range, ...(related ? { related } : {}) }));
    consultedBy.set(uri, consulted);
    return { diagnostics };
  }

  function filesChanged(paths: readonly string[]): void {
    const stale = new Set(configurations.filesChanged(paths));
    for (const changed of paths) {
      // Dropped from the index, a module is read again from disk the next time it is asked for.
      index.remove(changed);
      const below = changed.endsWith(".py") ? undefined : changed + (changed.endsWith("/") ? "" : "/");
      for (const [uri, consulted] of consultedBy) {
        if (consulted.has(changed) || (below && [...consulted].some((file) => file.startsWith(below)))) stale.add(uri);
      }
    }
    if (stale.size > 0) post({ type: "stale", uris: [...stale] });
  }

  port.on("message", (message: ToCheckThread) => {
    switch (message.type) {
      case "stop":
        baselines?.dispose();
        process.exit(0);
      case "setup":
        index.setRoots(message.roots);
        baselines?.dispose();
        baselines = message.trusted ? new GitBaselines({ onProblem: log }) : undefined;
        break;
      case "check":
        // Each check starts on a turn of the event loop of its own: the port hands over every
        // message waiting in one go, and the next checks always wait (IN_FLIGHT_PER_THREAD), so
        // the finalizers that free the native memory of checked files' trees would otherwise wait
        // until the thread ran out of checks.
        setImmediate(() =>
          check(message.uri, message.path, message.overrides).then(
            (result) => post({ type: "checked", id: message.id, ...result }),
            (error: unknown) => post({ type: "failed", id: message.id, message: errorText(error) }),
          ),
        );
        break;
      case "filesChanged":
        filesChanged(message.paths);
        break;
      case "forget":
        for (const uri of message.uris) {
          consultedBy.delete(uri);
          configurations.closed(uri);
        }
        break;
    }
  });
}


/** Linux schedules threads as tasks of their own: this thread's id is the last part of /proc/thread-self. */
function lowerThreadPriority(): void {
  if (process.platform !== "linux") return;
  try {
    const threadId = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(threadId) && threadId > 0) os.setPriority(threadId, BACKGROUND_NICENESS);
  } catch {
    // Without /proc (a sandbox), the thread runs at the process's priority.
  }
}
