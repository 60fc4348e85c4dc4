/**
 * The "Airflow State" store browser against the Airflow emulator the harness runs: signing in,
 * the tree listing the emulator's DAGs and entries, and add / edit / delete through the commands
 * changing the emulator's state. Prompts and dialogs are answered, and the tree read, in the
 * harness's browser, as a user would; the emulator's state is checked over its REST API.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { DEMO } from "../../emulator/seed";
import { DEFAULT_API_TOKENS, DEFAULT_USERS } from "../../emulator/tokens";
import { EMULATOR_URL_ENV } from "../protocol";
import { ask, screenshot } from "./harness";

const ENVIRONMENT = "e2e-emulator";
/** The sidebar's tree: with the "Airflow State" container open, the store browser. */
const SIDEBAR_TREE = '[id="workbench.parts.sidebar"] .monaco-list';
const ADMIN = DEFAULT_USERS.find((user) => user.role === "admin")!;
const ADMIN_TOKEN = Object.keys(DEFAULT_API_TOKENS).find((token) => DEFAULT_API_TOKENS[token] === ADMIN.username)!;
const SPARK = { dagId: DEMO.spark.dagId, runId: DEMO.spark.run, taskId: DEMO.spark.taskId, mapIndex: -1 };

function emulatorUrl(): string {
  const url = process.env[EMULATOR_URL_ENV];
  if (!url) throw new Error(`${EMULATOR_URL_ENV} is not set: the harness starts the emulator`);
  return url;
}

/** The emulator's answer to a GET, with the admin's API token; undefined for a 404. */
async function emulatorGet<T>(path: string): Promise<T | undefined> {
  const response = await fetch(`${emulatorUrl()}/api/v2${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (response.status === 404) return undefined;
  const body = await response.text();
  assert.equal(response.status, 200, `GET ${path}: ${body}`);
  return JSON.parse(body) as T;
}

interface TaskEntry {
  key: string;
  value: unknown;
  expires_at: string | null;
}

function sparkStorePath(key?: string): string {
  const base = `/dags/${SPARK.dagId}/dagRuns/${encodeURIComponent(SPARK.runId)}/taskInstances/${SPARK.taskId}/state-store`;
  return key === undefined ? base : `${base}/${encodeURIComponent(key)}`;
}

function treeShows(contains: string): Promise<string> {
  return ask({ action: "text", selector: SIDEBAR_TREE, contains }).then((answer) => answer.text ?? "");
}

suite("Store browser against the Airflow emulator", () => {
  suiteSetup(async () => {
    const settings = vscode.workspace.getConfiguration("airflowStateStore");
    await settings.update("environments", [{ name: ENVIRONMENT, baseUrl: emulatorUrl(), auth: "password", username: ADMIN.username }], vscode.ConfigurationTarget.Workspace);
    await settings.update("activeEnvironment", ENVIRONMENT, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand("airflowStateStore.browser.focus");
  });

  test("a wrong password is refused with a clear reason and asked again; the right one lists the emulator's DAGs", async () => {
    const signingIn = vscode.commands.executeCommand("airflowStateStore.signIn", ENVIRONMENT);
    // The environment is defined in this workspace's settings only: the user is asked once before credentials go to it.
    const allow = await ask({ action: "dialog", button: "Allow" });
    assert.match(allow.text ?? "", /defined by this workspace's settings, not by yours/);
    await ask({ action: "input", expect: `Sign in to ${ENVIRONMENT}`, text: `${ADMIN.password}-wrong` });
    const retry = await ask({ action: "input", expect: "again", text: ADMIN.password });
    // The second prompt says what went wrong: Airflow refused this user's sign-in.
    assert.ok(retry.text?.includes(`"${ADMIN.username}"`) && /failed|refused|rejected|invalid/i.test(retry.text), `the reason is shown: ${retry.text}`);
    await signingIn;
    const configured = vscode.workspace.getConfiguration("airflowStateStore").get<{ name: string }[]>("environments") ?? [];
    assert.deepEqual(configured.map((environment) => environment.name), [ENVIRONMENT], "the failed attempt kept the environment");

    await ask({ action: "click", selector: `${SIDEBAR_TREE} .monaco-list-row`, hasText: "DAGs" });
    const dags = (await emulatorGet<{ dags: { dag_id: string }[] }>("/dags"))!.dags.map((dag) => dag.dag_id);
    assert.ok(dags.length > 1);
    const tree = await treeShows(dags[0]);
    for (const dagId of dags) assert.ok(tree.includes(dagId), `the tree lists ${dagId}:\n${tree}`);
    await screenshot("store-browser-dags");
  });

  test("revealing a task instance lists its entries as the emulator has them", async () => {
    await vscode.commands.executeCommand("airflowStateStore.revealTaskInstance", SPARK);
    const keys = (await emulatorGet<{ task_state_store: TaskEntry[] }>(sparkStorePath()))!.task_state_store.map((entry) => entry.key);
    assert.ok(keys.length > 0, "the demo task instance has entries");
    const tree = await treeShows(keys[0]);
    for (const key of keys) assert.ok(tree.includes(key), `the tree lists ${key}:\n${tree}`);
    await screenshot("store-browser-entries");
  });

  test("Add Entry (key, JSON value, expiry Never) stores the entry on the emulator", async () => {
    // The task instance revealed above is selected: Add Entry adds to it.
    const adding = vscode.commands.executeCommand("airflowStateStore.addEntry");
    await ask({ action: "input", expect: "Add entry to", text: "e2e_cursor" });
    await ask({ action: "input", expect: 'Add entry "e2e_cursor"', text: '{"page": 3}' });
    await ask({ action: "input", expect: "Expiry", text: "Never" });
    await adding;
    const stored = await emulatorGet<TaskEntry>(sparkStorePath("e2e_cursor"));
    assert.deepEqual(stored && { value: stored.value, expires_at: stored.expires_at }, { value: { page: 3 }, expires_at: null });
    await treeShows("e2e_cursor");
  });

  test("a failed write keeps everything typed, shows the server's reason, and succeeds when sent again", async () => {
    // The emulator matches faults on the decoded path.
    const decodedStorePath = `/api/v2/dags/${SPARK.dagId}/dagRuns/${SPARK.runId}/taskInstances/${SPARK.taskId}/state-store`;
    await ask({ action: "fault", method: "PUT", path: decodedStorePath, status: 500, detail: "database is locked", times: 1 });
    const adding = vscode.commands.executeCommand("airflowStateStore.addEntry");
    await ask({ action: "input", expect: "Add entry to", text: "e2e_retry" });
    await ask({ action: "input", expect: 'Add entry "e2e_retry"', text: "42" });
    await ask({ action: "input", expect: "Expiry", text: "Never" });
    // The value step is back at once, with what was typed and why it was not saved as its message.
    const value = await ask({ action: "input", expect: "Not saved" });
    assert.equal(value.value, "42");
    assert.match(value.text ?? "", /Could not add "e2e_retry" to spark_nightly \/ .* on e2e-emulator: Airflow answered 500 Internal Server Error: database is locked/);
    assert.match(value.text ?? "", /2\/3/, "the step shows its number");
    await ask({ action: "input", expect: "Expiry", text: "Never" });
    await adding;
    assert.equal((await emulatorGet<TaskEntry>(sparkStorePath("e2e_retry")))?.value, 42);
    // The tree has drawn the new entry before the next test clicks a row of it.
    await treeShows("e2e_retry");
  });

  test("Edit Value opens the entry as JSON; saving sends the new value and keeps the expiry", async () => {
    // A click on an entry opens it for editing.
    await ask({ action: "click", selector: `${SIDEBAR_TREE} .monaco-list-row`, hasText: "e2e_cursor" });
    const editor = await activeEditorWhere((document) => document.uri.scheme === "airflow-state" && document.getText().includes("key: e2e_cursor"));
    const document = editor.document;
    const firstValueLine = [...Array(document.lineCount).keys()].find((line) => !document.lineAt(line).text.startsWith("//"));
    assert.ok(firstValueLine !== undefined, `the document shows the value:\n${document.getText()}`);
    assert.deepEqual(JSON.parse(document.getText(new vscode.Range(firstValueLine, 0, document.lineCount, 0))), { page: 3 });
    assert.ok(await editor.edit((edit) => edit.replace(new vscode.Range(firstValueLine, 0, document.lineCount, 0), '{\n  "page": 4\n}\n')));
    assert.ok(await document.save(), "the entry document saves");
    const stored = await emulatorGet<TaskEntry>(sparkStorePath("e2e_cursor"));
    assert.deepEqual(stored && { value: stored.value, expires_at: stored.expires_at }, { value: { page: 4 }, expires_at: null });
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("Delete Entry, once confirmed, removes the entry from the emulator and the tree", async () => {
    await vscode.commands.executeCommand("airflowStateStore.browser.focus");
    // Still selected from the click above.
    const deleting = vscode.commands.executeCommand("airflowStateStore.deleteEntry");
    const dialog = await ask({ action: "dialog", button: "Delete" });
    assert.match(dialog.text ?? "", /e2e_cursor/, "the confirmation names the key");
    await deleting;
    assert.equal(await emulatorGet<TaskEntry>(sparkStorePath("e2e_cursor")), undefined);
    await ask({ action: "text", selector: SIDEBAR_TREE, contains: "e2e_retry", lacks: "e2e_cursor" });
    await screenshot("store-browser-after-delete");
  });
});

function activeEditorWhere(accept: (document: vscode.TextDocument) => boolean): Promise<vscode.TextEditor> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || !accept(editor.document)) return;
      finish();
      resolve(editor);
    };
    const subscription = vscode.window.onDidChangeActiveTextEditor(check);
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`No matching editor became active; active: ${vscode.window.activeTextEditor?.document.uri.toString()}`));
    }, 15_000);
    function finish(): void {
      subscription.dispose();
      clearTimeout(timer);
    }
    check();
  });
}
