/**
 * The language server across modules: the workspace folders' Python files are indexed in the
 * background, so AS305 (`retries=0` on a ResumableJobMixin operator) sees an operator class defined
 * in another module; file events, edits of open documents and closing them keep the index current,
 * and the documents that import a changed module are linted again. Also hover and completion.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { CompletionItem, FileChangeType, InsertTextFormat, MarkupContent, PublishDiagnosticsParams, WatchKind } from "vscode-languageserver-protocol/node";
import { resumableOperator } from "../support/git";
import { TempFolder } from "../support/tempFolder";
import { fromRoot } from "../support/paths";
import { LspSession } from "./session";

const OPERATORS = resumableOperator("SparkOp", "spark_job_id");
const NOT_RESUMABLE = OPERATORS.replace("class SparkOp(ResumableJobMixin, BaseOperator):", "class SparkOp(BaseOperator):");

const ETL = `from airflow.sdk import DAG
from include.operators import SparkOp

with DAG("etl"):
    SparkOp(task_id="x", retries=0)
`;

/** A sibling module of the DAG's folder, found because Airflow puts that folder on sys.path. */
const SIBLING_DAG = `from airflow.sdk import DAG
from helpers import HelperOp

with DAG("sibling"):
    HelperOp(task_id="y", retries=0)
`;

/** Classes under folders the index skips: a virtual environment (any name) and node_modules. */
const SKIPPED_DAG = `from airflow.sdk import DAG
from node_modules.ops import NodeOp
from vendor_env.ops import EnvOp

with DAG("skipped"):
    NodeOp(task_id="a", retries=0)
    EnvOp(task_id="b", retries=0)
`;

const codes = (published: PublishDiagnosticsParams) => published.diagnostics.map((d) => `${d.code}@${d.range.start.line}`);
const hasAs305 = (published: PublishDiagnosticsParams) => published.diagnostics.some((d) => d.code === "AS305");

describe("language server: operator classes of other workspace modules", () => {
  let folder: TempFolder;
  let session: LspSession;

  before(async () => {
    folder = new TempFolder("lsp-workspace-");
    folder.write("include/__init__.py", "");
    folder.write("include/operators.py", OPERATORS);
    folder.write("dags/etl.py", ETL);
    folder.write("dags/helpers.py", resumableOperator("HelperOp", "helper_id"));
    folder.write("dags/sibling.py", SIBLING_DAG);
    folder.write("dags/skipped.py", SKIPPED_DAG);
    folder.write("node_modules/ops.py", resumableOperator("NodeOp", "node_id"));
    folder.write("vendor_env/pyvenv.cfg", "home = /usr/bin\n");
    folder.write("vendor_env/ops.py", resumableOperator("EnvOp", "env_id"));
    folder.write(".hidden/ops.py", resumableOperator("HiddenOp", "hidden_id"));
    folder.write("big/generated.py", `# airflow dag\n${"x = 1\n".repeat(200_000)}`);
    session = await LspSession.start({ initializationOptions: { trusted: false }, workspaceFolders: [folder.root], watcherRegistration: true });
  });

  after(() => {
    session.dispose();
    folder.remove();
  });

  test("initialize announces hover, and completion triggered by `=`", async () => {
    const { capabilities } = await session.initializeResult;
    assert.equal(capabilities.hoverProvider, true);
    assert.deepEqual(capabilities.completionProvider?.triggerCharacters, ["="]);
  });

  test("the server watches for deleted folders, which the client's *.py watcher does not report", async () => {
    const registration = await waitFor(() => session.registrations.find((r) => r.method === "workspace/didChangeWatchedFiles"));
    assert.deepEqual(registration.registerOptions, { watchers: [{ globPattern: "**/*", kind: WatchKind.Delete }] });
  });

  test("the background index reads the workspace's Python files, skipping what is not the project's, and says so", async () => {
    const logged = await waitFor(() => session.logs.find((log) => log.message.startsWith("Indexed ")));
    // dags/ (4 files), include/ (2); node_modules, the virtual environment, the hidden folder and the file over 1 MB are left out.
    assert.match(logged.message, /^Indexed 6 Python files of the workspace in \d+ ms/);
    assert.match(logged.message, /Skipped 1 file\(s\) over 1000000 bytes: .*generated\.py/);
  });

  test("AS305 reports retries=0 on an operator whose class is defined in include/operators.py", async () => {
    session.openWithoutWaiting(folder.uri("dags/etl.py"), ETL);
    const published = await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305);
    assert.deepEqual(codes(published), ["AS305@4"]);
  });

  test("and on an operator of a sibling module of the DAG's folder", async () => {
    session.openWithoutWaiting(folder.uri("dags/sibling.py"), SIBLING_DAG);
    assert.deepEqual(codes(await session.diagnosticsWhen(folder.uri("dags/sibling.py"), hasAs305)), ["AS305@4"]);
  });

  test("classes in skipped folders are not followed", async () => {
    // etl.py's finding proves the index is built; the skipped file's lint after that sees the same index.
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305);
    assert.deepEqual((await session.open(folder.uri("dags/skipped.py"), SKIPPED_DAG)).diagnostics, []);
  });

  test("dropping the mixin base on disk clears the finding in the importing document (didChangeWatchedFiles)", async () => {
    folder.write("include/operators.py", NOT_RESUMABLE);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Changed }]);
    assert.deepEqual(codes(await session.diagnosticsWhen(folder.uri("dags/etl.py"), (p) => !hasAs305(p))), []);

    folder.write("include/operators.py", OPERATORS);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Changed }]);
    assert.deepEqual(codes(await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305)), ["AS305@4"]);
  });

  test("deleting the module clears it, creating it again brings it back", async () => {
    fs.rmSync(folder.file("include/operators.py"));
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Deleted }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), (p) => !hasAs305(p));

    folder.write("include/operators.py", OPERATORS);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Created }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305);
  });

  test("deleting the folder that holds it clears it too", async () => {
    fs.rmSync(folder.file("include"), { recursive: true });
    session.filesChanged([{ uri: folder.uri("include"), type: FileChangeType.Deleted }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), (p) => !hasAs305(p));
    folder.write("include/__init__.py", "");
    folder.write("include/operators.py", OPERATORS);
    session.filesChanged([
      { uri: folder.uri("include/__init__.py"), type: FileChangeType.Created },
      { uri: folder.uri("include/operators.py"), type: FileChangeType.Created },
    ]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305);
  });

  test("an open module's unsaved text is what counts; closing it goes back to the file on disk", async () => {
    const operators = folder.uri("include/operators.py");
    await session.open(operators, OPERATORS);
    const line = OPERATORS.split("\n").findIndex((l) => l.startsWith("class SparkOp"));
    const bases = "(ResumableJobMixin, BaseOperator)";
    const character = OPERATORS.split("\n")[line].indexOf(bases);
    session.changeWithoutWaiting(operators, [{ range: { start: { line, character }, end: { line, character: character + bases.length } }, text: "(BaseOperator)" }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), (p) => !hasAs305(p));
    // A file event for an open document does not override its text.
    session.filesChanged([{ uri: operators, type: FileChangeType.Changed }]);
    await delay(500);
    assert.ok(!hasAs305(session.published.filter((p) => p.uri === folder.uri("dags/etl.py")).pop()!), "the open text still wins");

    session.close(operators);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305);
  });

  test("after edits inside an open module's methods, an edit of its class still reaches the importing document", async () => {
    const operators = folder.uri("include/operators.py");
    await session.open(operators, OPERATORS);
    const lines = OPERATORS.split("\n");
    const body = lines.findIndex((l) => l.includes("return submit(context)"));
    // Typed inside a method: each lint re-checks that function only, and the module's summary stands.
    for (const text of ["  # a", " note"]) {
      await session.change(operators, [{ range: { start: { line: body, character: lines[body].length }, end: { line: body, character: lines[body].length } }, text }]);
      await delay(300);
    }
    assert.ok(hasAs305(session.published.filter((p) => p.uri === folder.uri("dags/etl.py")).pop()!), "the DAG's finding stands while only a method changes");
    const header = lines.findIndex((l) => l.startsWith("class SparkOp"));
    const bases = "(ResumableJobMixin, BaseOperator)";
    const character = lines[header].indexOf(bases);
    session.changeWithoutWaiting(operators, [{ range: { start: { line: header, character }, end: { line: header, character: character + bases.length } }, text: "(BaseOperator)" }]);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), (p) => !hasAs305(p));
    session.close(operators);
    await session.diagnosticsWhen(folder.uri("dags/etl.py"), hasAs305);
  });

  test("after edits of a comment line in the importing document, a change of the imported module still reaches it", async () => {
    const commented = folder.uri("dags/commented.py");
    const text = ETL.replace('with DAG("etl"):', '# the nightly batch\nwith DAG("commented"):');
    session.openWithoutWaiting(commented, text);
    await session.diagnosticsWhen(commented, hasAs305);
    // Each lint keeps every finding and runs no rule: nothing of the workspace is consulted again.
    for (const typed of [" x", "y"]) {
      const line = text.split("\n").indexOf("# the nightly batch");
      await session.change(commented, [{ range: { start: { line, character: 19 }, end: { line, character: 19 } }, text: typed }]);
    }
    assert.ok(hasAs305(session.published.filter((p) => p.uri === commented).pop()!));
    folder.write("include/operators.py", NOT_RESUMABLE);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(commented, (p) => !hasAs305(p));
    folder.write("include/operators.py", OPERATORS);
    session.filesChanged([{ uri: folder.uri("include/operators.py"), type: FileChangeType.Changed }]);
    await session.diagnosticsWhen(commented, hasAs305);
    session.close(commented);
  });

  test("hover on a store name links the rule pages", async () => {
    const text = `from airflow.sdk import task\n\n\n@task\ndef remember(task_state_store=None):\n    task_state_store.set("cursor", 1)\n`;
    await session.open(folder.uri("dags/hover.py"), text);
    const hover = await session.hover(folder.uri("dags/hover.py"), { line: 5, character: 6 });
    assert.ok(hover);
    const contents = hover.contents as MarkupContent;
    assert.equal(contents.kind, "markdown");
    assert.match(contents.value, /survives its retries/);
    assert.ok(contents.value.includes(`[AS102](${pathToFileURL(fromRoot("docs", "rules", "AS102.md")).href})`));
    assert.deepEqual(hover.range, { start: { line: 5, character: 4 }, end: { line: 5, character: 20 } });
    assert.equal(await session.hover(folder.uri("dags/hover.py"), { line: 0, character: 0 }), null);
  });

  test("completion after `retention=` offers a timedelta snippet and NEVER_EXPIRE with their imports", async () => {
    const text = `from airflow.sdk import task\n\n\n@task\ndef remember(task_state_store=None):\n    task_state_store.set("cursor", 1, retention=)\n`;
    const completionUri = folder.uri("dags/completion.py");
    await session.open(completionUri, text);
    const position = { line: 5, character: text.split("\n")[5].indexOf("=)") + 1 };
    const items = (await session.completion(completionUri, position, "=")) as CompletionItem[];
    assert.deepEqual(
      items.map((item) => item.label),
      ["timedelta(days=…)", "NEVER_EXPIRE"],
    );
    const [timedelta, neverExpire] = items;
    assert.equal(timedelta.insertTextFormat, InsertTextFormat.Snippet);
    assert.deepEqual(timedelta.textEdit, { range: { start: position, end: position }, newText: "timedelta(days=${1:7})" });
    assert.deepEqual(timedelta.additionalTextEdits, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, newText: "from datetime import timedelta\n" }]);
    assert.equal(neverExpire.insertTextFormat, InsertTextFormat.PlainText);
    assert.deepEqual(neverExpire.additionalTextEdits, [{ range: { start: { line: 0, character: 28 }, end: { line: 0, character: 28 } }, newText: ", NEVER_EXPIRE" }]);
    assert.deepEqual(await session.completion(completionUri, { line: 5, character: 4 }), []);
  });
});

describe("language server: completion for a client without snippets", () => {
  test("the tab stop is replaced by its default", async () => {
    const session = await LspSession.start({ initializationOptions: { trusted: false }, snippetSupport: false });
    try {
      const text = `from datetime import timedelta\nfrom airflow.sdk import task\n\n\n@task\ndef remember(task_state_store=None):\n    task_state_store.set("cursor", 1, retention=)\n`;
      await session.open("file:///dags/plain.py", text);
      const items = (await session.completion("file:///dags/plain.py", { line: 6, character: text.split("\n")[6].indexOf("=)") + 1 }, "=")) as CompletionItem[];
      assert.equal(items[0].insertTextFormat, InsertTextFormat.PlainText);
      assert.equal(items[0].textEdit?.newText, "timedelta(days=7)");
      assert.deepEqual(items[0].additionalTextEdits, [], "timedelta is imported already");
    } finally {
      session.dispose();
    }
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await delay(20);
  }
}
