/**
 * `airflowStateStore/dagOutline` against the built language server (dist/server.js), with the
 * request name the client's code lens sends.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ProtocolConnection,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { DAG_OUTLINE_METHOD } from "../../client/src/storeBrowser/codeLensData";
import type { DagOutline } from "../../server/src/engine/features/outline";
import { fromRoot } from "../support/paths";

const SERVER = fromRoot("dist", "server.js");
const URI = "file:///work/dags/orders.py";
const DAG = ['from airflow.sdk import DAG, task', 'with DAG("orders_daily"):', "    @task", "    def extract(): ...", "    extract()", ""].join("\n");

describe("dagOutline request (language server)", () => {
  let connection: ProtocolConnection;
  let child: ReturnType<typeof spawn>;

  before(async () => {
    assert.ok(fs.existsSync(SERVER), `${SERVER} is missing: run \`npm run build\` first`);
    child = spawn(process.execPath, [SERVER, "--stdio"]);
    connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    connection.listen();
    await connection.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, workspaceFolders: null, capabilities: {} });
    await connection.sendNotification(InitializedNotification.type, {});
  });

  after(async () => {
    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
    connection.dispose();
    child.kill();
  });

  const outline = (uri = URI) => connection.sendRequest<DagOutline>(DAG_OUTLINE_METHOD, { textDocument: { uri } });

  it("outlines an open document, follows its edits, and forgets it when closed", async () => {
    await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: URI, languageId: "python", version: 1, text: DAG } });
    const first = await outline();
    assert.deepEqual(first.dags.map((d) => [d.dagId, d.tasks.map((t) => [t.taskId, t.range.start.line])]), [["orders_daily", [["extract", 2]]]]);

    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ range: { start: { line: 1, character: 10 }, end: { line: 1, character: 22 } }, text: "orders_hourly" }],
    });
    assert.equal((await outline()).dags[0].dagId, "orders_hourly");

    await connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: URI } });
    assert.deepEqual(await outline(), { dags: [] });
  });

  it("answers an empty outline for documents it does not have, or malformed params", async () => {
    assert.deepEqual(await outline("file:///never/opened.py"), { dags: [] });
    assert.deepEqual(await connection.sendRequest<DagOutline>(DAG_OUTLINE_METHOD, {}), { dags: [] });
  });
});
