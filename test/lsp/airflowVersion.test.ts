/**
 * The language server passes each file:// document's Airflow pin to the rules (AS501, AS502), re-reads
 * it when the watched project files change, and tells the client the pin of every linted document
 * (`airflowStateStore/airflowVersion`) for its status bar. Untitled documents have no project and
 * no pin. Against the built server (dist/server.js), in a temporary project whose `.git` ends the
 * search for a pin, whatever the temp folder's parents hold.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { TempFolder } from "../support/tempFolder";
import { after, before, describe, test } from "node:test";
import { FileChangeType, ProtocolConnection, PublishDiagnosticsParams, Registration } from "vscode-languageserver-protocol/node";
import { AIRFLOW_VERSION_METHOD, AirflowVersionParams } from "../../server/src/lsp/airflowVersionProtocol";
import { DEFAULT_TIMEOUT_MS, LspSession } from "./session";

const DAG = `from airflow.sdk import task


@task
def export(task_state_store=None):
    cursor = task_state_store.get("cursor", default=0)
    task_state_store.set("cursor", cursor + 1)
`;

/** The first store use, where AS501 reports: `task_state_store` in `.get`, 0-based line 5. */
const STORE_USE_LINE = 5;

const codes = (published: PublishDiagnosticsParams) => published.diagnostics.map((d) => `${d.code}@${d.range.start.line}`);
const hasAs501 = (published: PublishDiagnosticsParams) => published.diagnostics.some((d) => d.code === "AS501");

/** Records `airflowStateStore/airflowVersion` notifications and waits for one that matches. */
class PinNotifications {
  readonly received: AirflowVersionParams[] = [];
  private waiters: { accepts: (params: AirflowVersionParams) => boolean; resolve: (params: AirflowVersionParams) => void }[] = [];

  constructor(session: LspSession) {
    // LspSession records only the standard notifications; this one is the extension's own.
    const connection: ProtocolConnection = session["connection"];
    connection.onNotification(AIRFLOW_VERSION_METHOD, (params: AirflowVersionParams) => {
      this.received.push(params);
      const matching = this.waiters.filter((w) => w.accepts(params));
      this.waiters = this.waiters.filter((w) => !matching.includes(w));
      for (const waiter of matching) waiter.resolve(params);
    });
  }

  /** The latest notification for `uri` if it matches, else the next one that does. */
  when(uri: string, matching: (params: AirflowVersionParams) => boolean): Promise<AirflowVersionParams> {
    const latest = this.received.filter((p) => p.uri === uri).pop();
    if (latest && matching(latest)) return Promise.resolve(latest);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching ${AIRFLOW_VERSION_METHOD} for ${uri}; received ${JSON.stringify(this.received.filter((p) => p.uri === uri))}`));
      }, DEFAULT_TIMEOUT_MS);
      const waiter = {
        accepts: (params: AirflowVersionParams) => params.uri === uri && matching(params),
        resolve: (params: AirflowVersionParams) => {
          clearTimeout(timer);
          resolve(params);
        },
      };
      this.waiters.push(waiter);
    });
  }

  countFor(uri: string): number {
    return this.received.filter((p) => p.uri === uri).length;
  }
}

async function waitFor<T>(find: () => T | undefined, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("language server: the Airflow version the project pins", () => {
  let folder: TempFolder;
  let session: LspSession;
  let pins: PinNotifications;

  before(async () => {
    folder = new TempFolder("lsp-airflow-version-");
    folder.write(".git/HEAD", "ref: refs/heads/main\n");
    folder.write("requirements.txt", "# the scheduler's image\napache-airflow==2.10.5\n");
    folder.write("dags/export.py", DAG);
    session = await LspSession.start({ initializationOptions: { trusted: false }, workspaceFolders: [folder.root], watcherRegistration: true });
    pins = new PinNotifications(session);
  });

  after(() => {
    session.dispose();
    folder.remove();
  });

  test("the server watches every kind of file a pin is read from", async () => {
    const watched = (r: Registration) => (r.registerOptions as { watchers: { globPattern: string }[] }).watchers.map((w) => w.globPattern);
    const registration = await waitFor(() => session.registrations.find((r) => r.method === "workspace/didChangeWatchedFiles" && watched(r).includes("**/pyproject.toml")));
    assert.deepEqual(watched(registration), ["**/requirements*.txt", "**/constraints*.txt", "**/pyproject.toml", "**/setup.cfg", "**/setup.py", "**/Dockerfile", "**/.airflow-state-lint.toml", "**/airflow-state-lint.toml"]);
  });

  test("requirements.txt pins 2.10.5: AS501 at the first store use, and the client is told the pin and where it is", async () => {
    const dag = folder.uri("dags/export.py");
    const published = await session.open(dag, DAG);
    assert.deepEqual(codes(published), [`AS501@${STORE_USE_LINE}`]);
    assert.match(String(published.diagnostics[0].message), /the project pins Airflow 2\.10\.5 \(\.\.\/requirements\.txt:2\)/);
    const notified = await pins.when(dag, (p) => p.pin !== null);
    assert.deepEqual(notified, { uri: dag, pin: { text: "Airflow 2.10.5", below33: true, sourceUri: folder.uri("requirements.txt"), line: 2 } });
  });

  test("edits that keep the pin do not repeat the notification", async () => {
    const dag = folder.uri("dags/export.py");
    const before = pins.countFor(dag);
    const published = await session.change(dag, [{ range: { start: { line: 7, character: 0 }, end: { line: 7, character: 0 } }, text: "# edited\n" }]);
    assert.deepEqual(codes(published), [`AS501@${STORE_USE_LINE}`]);
    // Diagnostics and the notification travel in order on one stream: a notification would be here by now.
    const settled = await session.change(dag, [{ range: { start: { line: 8, character: 0 }, end: { line: 8, character: 0 } }, text: "# again\n" }]);
    assert.deepEqual(codes(settled), [`AS501@${STORE_USE_LINE}`]);
    assert.equal(pins.countFor(dag), before);
  });

  test("requirements.txt rewritten to 3.3.0 and reported by the watcher: AS501 is cleared and the new pin sent", async () => {
    const dag = folder.uri("dags/export.py");
    folder.write("requirements.txt", "apache-airflow==3.3.0\n");
    session.filesChanged([{ uri: folder.uri("requirements.txt"), type: FileChangeType.Changed }]);
    const published = await session.diagnosticsWhen(dag, (p) => !hasAs501(p));
    assert.deepEqual(codes(published), []);
    const notified = await pins.when(dag, (p) => p.pin?.text === "Airflow 3.3.0");
    assert.deepEqual(notified.pin, { text: "Airflow 3.3.0", below33: false, sourceUri: folder.uri("requirements.txt"), line: 1 });
  });

  test("a Dockerfile created next to the DAG takes over; deleting it gives the project's pin back", async () => {
    const dag = folder.uri("dags/export.py");
    folder.write("dags/Dockerfile", "ARG AIRFLOW_VERSION=2.9.3\nFROM apache/airflow:${AIRFLOW_VERSION}-python3.11\n");
    session.filesChanged([{ uri: folder.uri("dags/Dockerfile"), type: FileChangeType.Created }]);
    const published = await session.diagnosticsWhen(dag, hasAs501);
    assert.match(String(published.diagnostics[0].message), /the project pins Airflow 2\.9\.3 \(Dockerfile:1\)/);
    assert.deepEqual((await pins.when(dag, (p) => p.pin?.text === "Airflow 2.9.3")).pin, { text: "Airflow 2.9.3", below33: true, sourceUri: folder.uri("dags/Dockerfile"), line: 1 });

    fs.rmSync(folder.file("dags/Dockerfile"));
    session.filesChanged([{ uri: folder.uri("dags/Dockerfile"), type: FileChangeType.Deleted }]);
    assert.deepEqual(codes(await session.diagnosticsWhen(dag, (p) => !hasAs501(p))), []);
    await pins.when(dag, (p) => p.pin?.text === "Airflow 3.3.0");
  });

  test("a project that stops naming Airflow: no pin, and the client is told so", async () => {
    const dag = folder.uri("dags/export.py");
    folder.write("requirements.txt", "requests==2.32.3\n");
    session.filesChanged([{ uri: folder.uri("requirements.txt"), type: FileChangeType.Changed }]);
    const notified = await pins.when(dag, (p) => p.pin === null);
    assert.deepEqual(notified, { uri: dag, pin: null });
  });

  test("an untitled document gets no pin, even with the same text as a pinned file", async () => {
    folder.write("requirements.txt", "apache-airflow==2.10.5\n");
    session.filesChanged([{ uri: folder.uri("requirements.txt"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("dags/export.py"), hasAs501);

    const untitled = "untitled:Untitled-1";
    const published = await session.open(untitled, DAG);
    assert.deepEqual(codes(published), []);
    assert.deepEqual(await pins.when(untitled, () => true), { uri: untitled, pin: null });
  });

  test("a document closed and opened again is told its pin again", async () => {
    const dag = folder.uri("dags/export.py");
    session.close(dag);
    const before = pins.countFor(dag);
    await session.open(dag, DAG);
    await waitFor(() => (pins.countFor(dag) > before ? true : undefined));
    assert.equal(pins.received.filter((p) => p.uri === dag).pop()?.pin?.text, "Airflow 2.10.5");
  });
});
