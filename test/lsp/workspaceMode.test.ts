/**
 * `airflowStateStore.diagnosticMode: "workspace"` and the "Check Whole Workspace" request: the
 * Python files of the workspace that are not open are checked from disk and their diagnostics
 * published, the same as the CLI's findings for those files; changes on disk (the file itself, a
 * module it imports), deletions, opening and closing keep them current, and turning the mode off
 * clears them. The one-off check reports its progress in files and stops when cancelled.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { CancellationTokenSource, FileChangeType, PublishDiagnosticsParams, WorkDoneProgressBegin, WorkDoneProgressReport } from "vscode-languageserver-protocol/node";
import type { CheckWorkspaceResult } from "../../server/src/lsp/workspaceCheckProtocol";
import { runCli } from "../cli/harness";
import { resumableOperator } from "../support/git";
import { TempFolder } from "../support/tempFolder";
import { LspSession } from "./session";

const CHECK_WORKSPACE = "airflowStateStore/checkWorkspace";
/** Threads start and load the parser for the first check; the machine may be busy. */
const WAIT_MS = 30_000;

const DATETIME_DAG = `from datetime import datetime, timezone

from airflow.sdk import DAG, Asset, task

ORDERS = Asset("s3://lake/orders")

with DAG("orders"):

    @task(outlets=[ORDERS])
    def load(asset_state_store=None):
        asset_state_store[ORDERS].set("watermark", datetime.now(tz=timezone.utc))
`;

const FIXED_DAG = DATETIME_DAG.replace("datetime.now(tz=timezone.utc))", "datetime.now(tz=timezone.utc).isoformat())");

const ETL = `from airflow.sdk import DAG
from include.operators import SparkOp

with DAG("etl"):
    SparkOp(task_id="x", retries=0)
`;

const OPERATORS = resumableOperator("SparkOp", "spark_job_id");
const NOT_RESUMABLE = OPERATORS.replace("class SparkOp(ResumableJobMixin, BaseOperator):", "class SparkOp(BaseOperator):");

const codes = (published: PublishDiagnosticsParams) => published.diagnostics.map((d) => `${d.code}@${d.range.start.line}`).sort();
const isEmpty = (published: PublishDiagnosticsParams) => published.diagnostics.length === 0;
const hasCode = (code: string) => (published: PublishDiagnosticsParams) => published.diagnostics.some((d) => d.code === code);

/** The CLI's findings per file, as `code@line` with 0-based lines like the LSP's. */
function cliCodes(root: string, relative: string): string[] {
  const findings = JSON.parse(runCli(["--format", "json", "--no-cache", relative], root).stdout) as { code: string; line: number }[];
  return findings.map((f) => `${f.code}@${f.line - 1}`).sort();
}

function writeProject(folder: TempFolder): void {
  folder.write("dags/orders.py", DATETIME_DAG);
  folder.write("dags/etl.py", ETL);
  folder.write("dags/clean.py", "print('no airflow')\n");
  folder.write("include/__init__.py", "");
  folder.write("include/operators.py", OPERATORS);
  // Not the project's: the workspace index skips it, and so does the check.
  folder.write("node_modules/pkg/dag.py", DATETIME_DAG);
}

describe("language server: diagnostics for the whole workspace", () => {
  let folder: TempFolder;
  let session: LspSession;

  before(async () => {
    folder = new TempFolder("lsp-workspace-mode-");
    writeProject(folder);
    session = await LspSession.start({ initializationOptions: { trusted: false }, workspaceFolders: [folder.root], watcherRegistration: true, settings: { diagnosticMode: "workspace" } });
  });

  after(() => {
    session.dispose();
    folder.remove();
  });

  test("files that are not open get their diagnostics, the CLI's findings for them", async () => {
    const orders = await session.diagnosticsWhen(folder.uri("dags/orders.py"), hasCode("AS101"), WAIT_MS);
    assert.equal(orders.version, undefined, "diagnostics of a file on disk carry no document version");
    assert.deepEqual(codes(orders), cliCodes(folder.root, "dags/orders.py"));
    const etl = await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasCode("AS305"), WAIT_MS);
    // The operator's class is read from include/operators.py, as the CLI reads it.
    assert.deepEqual(codes(etl), cliCodes(folder.root, "dags/etl.py"));
    assert.ok(!session.published.some((p) => p.uri.includes("node_modules")), "skipped folders are not checked");
    assert.ok(!session.published.some((p) => p.uri.endsWith("clean.py")), "a file without findings is not published");
  });

  test("a file fixed on disk loses its diagnostics, and gets them back when broken again", async () => {
    folder.write("dags/orders.py", FIXED_DAG);
    session.filesChanged([{ uri: folder.uri("dags/orders.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("dags/orders.py"), isEmpty, WAIT_MS);
    folder.write("dags/orders.py", DATETIME_DAG);
    session.filesChanged([{ uri: folder.uri("dags/orders.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("dags/orders.py"), hasCode("AS101"), WAIT_MS);
  });

  test("a change of a module a file imports checks that file again", async () => {
    folder.write("include/operators.py", NOT_RESUMABLE);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), (p) => !hasCode("AS305")(p), WAIT_MS);
    folder.write("include/operators.py", OPERATORS);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasCode("AS305"), WAIT_MS);
  });

  test("a file without findings gets them when a module it imports changes", async () => {
    // late.py's class is not resumable yet: late_etl.py has nothing to report.
    folder.write("include/late.py", NOT_RESUMABLE);
    folder.write("dags/late_etl.py", ETL.replace("include.operators", "include.late"));
    session.filesChanged([
      { uri: folder.uri("include/late.py"), type: FileChangeType.Created },
      { uri: folder.uri("dags/late_etl.py"), type: FileChangeType.Created },
    ]);
    // A file checked after late_etl.py in the same batch of events shows that its check is done.
    folder.write("dags/marker.py", DATETIME_DAG);
    session.filesChanged([{ uri: folder.uri("dags/marker.py"), type: FileChangeType.Created }]);
    await session.diagnosticsWhen(folder.uri("dags/marker.py"), hasCode("AS101"), WAIT_MS);
    folder.write("include/late.py", OPERATORS);
    session.filesChanged([{ uri: folder.uri("include/late.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("dags/late_etl.py"), hasCode("AS305"), WAIT_MS);
  });

  test("a new file is checked, a deleted one's diagnostics are cleared", async () => {
    folder.write("dags/new.py", DATETIME_DAG);
    session.filesChanged([{ uri: folder.uri("dags/new.py"), type: FileChangeType.Created }]);
    await session.diagnosticsWhen(folder.uri("dags/new.py"), hasCode("AS101"), WAIT_MS);
    fs.rmSync(folder.file("dags/new.py"));
    session.filesChanged([{ uri: folder.uri("dags/new.py"), type: FileChangeType.Deleted }]);
    await session.diagnosticsWhen(folder.uri("dags/new.py"), isEmpty, WAIT_MS);
  });

  test("deleting a folder clears the diagnostics of every file in it", async () => {
    folder.write("extra/one.py", DATETIME_DAG);
    folder.write("extra/two.py", DATETIME_DAG);
    session.filesChanged([
      { uri: folder.uri("extra/one.py"), type: FileChangeType.Created },
      { uri: folder.uri("extra/two.py"), type: FileChangeType.Created },
    ]);
    await session.diagnosticsWhen(folder.uri("extra/one.py"), hasCode("AS101"), WAIT_MS);
    await session.diagnosticsWhen(folder.uri("extra/two.py"), hasCode("AS101"), WAIT_MS);
    fs.rmSync(folder.file("extra"), { recursive: true });
    session.filesChanged([{ uri: folder.uri("extra"), type: FileChangeType.Deleted }]);
    await session.diagnosticsWhen(folder.uri("extra/one.py"), isEmpty, WAIT_MS);
    await session.diagnosticsWhen(folder.uri("extra/two.py"), isEmpty, WAIT_MS);
  });

  test("an open document shows what the editor holds; closed, it shows its file again", async () => {
    const uri = folder.uri("dags/orders.py");
    const opened = await session.open(uri, FIXED_DAG);
    assert.deepEqual(opened.diagnostics, [], "the open document's own text is linted");
    session.close(uri);
    const closed = await session.diagnosticsWhen(uri, (p) => p.version === undefined && hasCode("AS101")(p), WAIT_MS);
    assert.deepEqual(codes(closed), cliCodes(folder.root, "dags/orders.py"));
  });

  test("rule severities of the settings apply to workspace files too", async () => {
    session.changeSettings({ diagnosticMode: "workspace", rules: { AS101: "hint" } });
    const published = await session.diagnosticsWhen(folder.uri("dags/orders.py"), (p) => p.diagnostics.some((d) => d.code === "AS101" && d.severity === 4), WAIT_MS);
    assert.ok(published.diagnostics.length > 0);
  });

  test("a project configuration file applies to workspace files as the CLI applies it", async () => {
    folder.write("configured/airflow-state-lint.toml", 'ignore = ["AS101"]\n');
    // AS101 (ignored by the file) and AS206 (not): the check ran, and read the configuration.
    folder.write("configured/orders.py", DATETIME_DAG + "\nSTARTED = datetime.utcnow()\n");
    session.filesChanged([
      { uri: folder.uri("configured/airflow-state-lint.toml"), type: FileChangeType.Created },
      { uri: folder.uri("configured/orders.py"), type: FileChangeType.Created },
    ]);
    const published = await session.diagnosticsWhen(folder.uri("configured/orders.py"), hasCode("AS206"), WAIT_MS);
    assert.ok(!hasCode("AS101")(published), "the configuration file's ignore applies");
    assert.deepEqual(codes(published), cliCodes(folder.root, "configured/orders.py"));
  });

  test("turning the mode off clears the workspace files' diagnostics", async () => {
    session.changeSettings({ diagnosticMode: "openFiles" });
    await session.diagnosticsWhen(folder.uri("dags/orders.py"), isEmpty, WAIT_MS);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), isEmpty, WAIT_MS);
  });
});

describe("language server: Check Whole Workspace", () => {
  let folder: TempFolder;
  let session: LspSession;
  /** Run when the server creates its progress, before the client answers. */
  let cancelNext: (() => void) | undefined;

  before(async () => {
    folder = new TempFolder("lsp-check-workspace-");
    writeProject(folder);
    for (let i = 0; i < 40; i++) folder.write(`many/dag_${i}.py`, DATETIME_DAG);
    session = await LspSession.start({
      initializationOptions: { trusted: false },
      workspaceFolders: [folder.root],
      watcherRegistration: true,
      onProgressCreated: () => cancelNext?.(),
    });
  });

  after(() => {
    session.dispose();
    folder.remove();
  });

  test("in openFiles mode nothing but open documents is checked", async () => {
    // A lint of an open document proves the server is up; the workspace files stay unpublished.
    await session.open(folder.uri("dags/clean.py"), "print('no airflow')\n");
    assert.ok(!session.published.some((p) => p.uri.endsWith("orders.py")));
  });

  test("checks every file once, publishes their findings and reports its progress in files", async () => {
    const result = await session.request<CheckWorkspaceResult>(CHECK_WORKSPACE, {});
    // dags/ (3), include/ (2), many/ (40); clean.py is open and linted as the editor holds it.
    assert.deepEqual(session.errorLogs(), []);
    assert.deepEqual(result, { files: 45, checked: 44, withFindings: 42, findings: 42, failed: 0, cancelled: false });
    assert.deepEqual(codes(await session.diagnosticsWhen(folder.uri("many/dag_7.py"), hasCode("AS101"))), cliCodes(folder.root, "many/dag_7.py"));
    assert.deepEqual(codes(await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasCode("AS305"))), cliCodes(folder.root, "dags/etl.py"));

    const values = session.progress.map((p) => p.value);
    const begin = values.find((v): v is WorkDoneProgressBegin => v.kind === "begin");
    assert.equal(begin?.cancellable, true);
    assert.match(begin!.title, /checking the workspace/);
    const reports = values.filter((v): v is WorkDoneProgressReport => v.kind === "report");
    assert.equal(reports.at(-1)?.message, "45 of 45 files");
    assert.equal(reports.at(-1)?.percentage, 100);
    assert.equal(values.at(-1)?.kind, "end");
  });

  test("a file changed on disk after the check is checked again: what it shows stays true", async () => {
    folder.write("many/dag_3.py", FIXED_DAG);
    session.filesChanged([{ uri: folder.uri("many/dag_3.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(folder.uri("many/dag_3.py"), isEmpty, WAIT_MS);
  });

  test("cancelling the request stops the check before any file is checked, and the server goes on", async () => {
    const cancellation = new CancellationTokenSource();
    // Cancelled before the client answers window/workDoneProgress/create, so before the check can start.
    cancelNext = () => cancellation.cancel();
    const result = await session.request<CheckWorkspaceResult>(CHECK_WORKSPACE, {}, cancellation.token);
    cancelNext = undefined;
    assert.equal(result.cancelled, true, JSON.stringify([result, cancellation.token.isCancellationRequested, session.progress.slice(-3)]));
    assert.equal(result.checked, 0, JSON.stringify(result));
    assert.equal(session.progress.at(-1)?.value.kind, "end");
    assert.equal((await session.request<CheckWorkspaceResult>(CHECK_WORKSPACE, {})).cancelled, false);
  });
});
