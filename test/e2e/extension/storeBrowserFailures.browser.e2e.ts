/**
 * The store browser when things go wrong, as a user meets it in the real editor: no environment
 * (the welcome view), an Airflow that cannot be reached (the environment, the status bar and the
 * code lens say so), a read-only user (known from its sign-in, writes hidden), and a save Airflow refuses (the
 * text kept, Retry and Revert only). Runs after the store browser suite, which signed in as admin.
 */
import * as assert from "node:assert/strict";
import * as net from "node:net";
import * as vscode from "vscode";
import { entryPath } from "../../../client/src/storeBrowser/entryDocument";
import { DEMO } from "../../emulator/seed";
import { DEFAULT_API_TOKENS, DEFAULT_USERS } from "../../emulator/tokens";
import { fromRoot } from "../../support/paths";
import { EMULATOR_URL_ENV } from "../protocol";
import { ask, screenshot } from "./harness";

const SIDEBAR = '[id="workbench.parts.sidebar"]';
const SIDEBAR_TREE = `${SIDEBAR} .monaco-list`;
const NOTIFICATIONS = ".notifications-toasts";
/** Every notification still open, whether or not the workbench showed it as a toast. */
const NOTIFICATION_CENTER = ".notifications-center";
const STATUS_BAR = '[id="workbench.parts.statusbar"]';
const ADMIN = DEFAULT_USERS.find((user) => user.role === "admin")!;
const VIEWER = DEFAULT_USERS.find((user) => user.role === "viewer")!;
const VIEWER_API_TOKEN = Object.keys(DEFAULT_API_TOKENS).find((token) => DEFAULT_API_TOKENS[token] === VIEWER.username)!;
const SPARK = { dagId: DEMO.spark.dagId, runId: DEMO.spark.run, taskId: DEMO.spark.taskId, mapIndex: -1 };

function emulatorUrl(): string {
  const url = process.env[EMULATOR_URL_ENV];
  if (!url) throw new Error(`${EMULATOR_URL_ENV} is not set: the harness starts the emulator`);
  return url;
}

/** An address nothing listens on: a port that was free a moment ago. */
async function closedUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const environments = {
  admin: () => ({ name: "e2e-emulator", baseUrl: emulatorUrl(), auth: "password", username: ADMIN.username }),
  viewer: () => ({ name: "e2e-viewer", baseUrl: emulatorUrl(), auth: "password", username: VIEWER.username }),
  /** An opaque API token names no role: only a refused write tells. */
  viewerToken: () => ({ name: "e2e-viewer-token", baseUrl: emulatorUrl(), auth: "token" }),
};

async function configure(list: object[], active: string): Promise<void> {
  const settings = vscode.workspace.getConfiguration("airflowStateStore");
  await settings.update("environments", list, vscode.ConfigurationTarget.Workspace);
  await settings.update("activeEnvironment", active, vscode.ConfigurationTarget.Workspace);
}

function sees(selector: string, contains: string, lacks?: string): Promise<string> {
  return ask({ action: "text", selector, contains, lacks }).then((answer) => answer.text ?? "");
}

/** The code lenses of a document once `accept` holds for their titles (the server may still be starting). */
async function lensTitles(uri: vscode.Uri, accept: (titles: string[]) => boolean): Promise<string[]> {
  let titles: string[] = [];
  for (let attempt = 0; attempt < 60; attempt++) {
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri)) ?? [];
    titles = lenses.map((lens) => lens.command?.title ?? "");
    if (accept(titles)) return titles;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the code lenses never matched; last seen: ${JSON.stringify(titles)}`);
}

suite("Store browser failures", () => {
  setup(() => vscode.commands.executeCommand("notifications.clearAll"));

  test("without an environment the view welcomes the user with Add Environment, Open Settings and the guide", async () => {
    await configure([], "");
    await vscode.commands.executeCommand("airflowStateStore.browser.focus");
    const text = await sees(SIDEBAR, "Add Environment");
    assert.match(text, /Open Settings/);
    assert.match(text, /store browser guide/);
    await screenshot("store-browser-welcome");
  });

  test("an Airflow that cannot be reached: the environment, the status bar and the code lens say so, with Retry", async () => {
    const offline = { name: "e2e-offline", baseUrl: await closedUrl(), auth: "none" };
    await configure([environments.admin(), offline], offline.name);
    await vscode.commands.executeCommand("airflowStateStore.refresh");
    const tree = await sees(SIDEBAR_TREE, "offline");
    assert.match(tree, /e2e-offline/);
    assert.match(tree, /Cannot reach Airflow at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/, "the reason under the environment");
    await sees(STATUS_BAR, "Environment e2e-offline: offline");

    const example = vscode.Uri.file(fromRoot("examples", "dags", "orders_daily.py"));
    const exampleEditor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(example), { preview: false });
    // The picture shows the DAG and its first task, where the lenses are.
    const dagLine = exampleEditor.document.getText().split("\n").findIndex((line) => line.startsWith("@dag("));
    exampleEditor.revealRange(new vscode.Range(dagLine, 0, dagLine + 14, 0), vscode.TextEditorRevealType.AtTop);
    const titles = await lensTitles(example, (t) => t.includes("State store: Airflow unreachable"));
    assert.deepEqual(titles, ["State store: Airflow unreachable", "Retry"]);
    // Other extensions' toasts (git's "repositories found") would hide part of the picture.
    await vscode.commands.executeCommand("notifications.clearAll");
    await screenshot("store-browser-offline");

    // The README's example: with the emulator active, each task of the example DAG gets its count.
    await configure([environments.admin(), offline], "e2e-emulator");
    const counts = await lensTitles(example, (t) => t.includes("State store: 1 entry (latest run)"));
    assert.deepEqual(counts, ["State store: 1 entry (latest run)", "State store: 0 entries (latest run)", "State store: 0 entries (latest run)"]);
    await sees(STATUS_BAR, "Environment e2e-emulator: Airflow 3.3.0");
    await vscode.commands.executeCommand("notifications.clearAll");
    await screenshot("store-browser-code-lens");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("a save Airflow refuses keeps the text and offers Retry and Revert, in the extension's words", async () => {
    await configure([environments.admin()], "e2e-emulator");
    const uri = vscode.Uri.from({ scheme: "airflow-state", path: entryPath({ store: "task", env: "e2e-emulator", ...SPARK, key: "spark_job_id" }) });
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
    const document = editor.document;
    const valueLine = [...Array(document.lineCount).keys()].find((line) => !document.lineAt(line).text.startsWith("//"))!;
    const decodedStorePath = `/api/v2/dags/${SPARK.dagId}/dagRuns/${SPARK.runId}/taskInstances/${SPARK.taskId}/state-store/spark_job_id`;
    await ask({ action: "fault", method: "PATCH", path: decodedStorePath, status: 500, detail: "database is locked", times: 1 });
    assert.ok(await editor.edit((edit) => edit.replace(document.lineAt(valueLine).range, '"application_e2e_retry"')));
    await document.save();
    const notice = await sees(NOTIFICATIONS, "was not saved");
    assert.match(notice, /"spark_job_id" of spark_nightly \/ .* \/ submit_spark_job was not saved on e2e-emulator: Airflow answered 500 Internal Server Error: database is locked\. Your text is kept in the editor\./);
    assert.match(notice, /Retry/);
    assert.match(notice, /Revert/);
    assert.doesNotMatch(notice, /Save As|FileSystemError|airflow-state:/);
    assert.match(document.getText(), /"application_e2e_retry"/, "the text is still in the editor");
    await screenshot("store-browser-failed-save");

    await ask({ action: "click", selector: `${NOTIFICATIONS} .monaco-button`, hasText: "Retry" });
    const stored = await waitFor(async () => {
      const encoded = `/api/v2/dags/${SPARK.dagId}/dagRuns/${encodeURIComponent(SPARK.runId)}/taskInstances/${SPARK.taskId}/state-store/spark_job_id`;
      const response = await fetch(`${emulatorUrl()}${encoded}`, { headers: { Authorization: "Bearer emulator-admin-token" } });
      const entry = (await response.json()) as { value?: unknown };
      return entry.value === "application_e2e_retry" ? entry : undefined;
    });
    assert.equal(stored.value, "application_e2e_retry");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("Set Expiry… in an opened entry's title bar sends the value with the new expiry and shows the date Airflow set", async () => {
    const uri = vscode.Uri.from({ scheme: "airflow-state", path: entryPath({ store: "task", env: "e2e-emulator", ...SPARK, key: "spark_job_id" }) });
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: false });
    assert.match(document.getText(), /\/\/ expires_at: never/);
    const setting = vscode.commands.executeCommand("airflowStateStore.setExpiry", uri);
    await ask({ action: "input", expect: 'Set expiry of "spark_job_id"', text: "Default" });
    await setting;
    const encoded = `/api/v2/dags/${SPARK.dagId}/dagRuns/${encodeURIComponent(SPARK.runId)}/taskInstances/${SPARK.taskId}/state-store/spark_job_id`;
    const response = await fetch(`${emulatorUrl()}${encoded}`, { headers: { Authorization: "Bearer emulator-admin-token" } });
    const stored = (await response.json()) as { value: unknown; expires_at: string | null };
    assert.equal(stored.value, "application_e2e_retry", "the value is kept");
    assert.ok(stored.expires_at && Date.parse(stored.expires_at) > Date.now() + 29 * 86_400_000, `expires in 30 days: ${stored.expires_at}`);
    assert.match(document.getText(), /\/\/ expires_at: \d{4}-\d{2}-\d{2}T/, "the document shows the date Airflow set");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  test("a read-only user is marked so on signing in, before any write, and writes are not offered", async () => {
    await configure([environments.viewer()], "e2e-viewer");
    const signingIn = vscode.commands.executeCommand("airflowStateStore.signIn", "e2e-viewer");
    await ask({ action: "dialog", button: "Allow" }); // the environment comes from the workspace's settings
    await ask({ action: "input", expect: "Sign in to e2e-viewer", text: VIEWER.password });
    await signingIn;
    // The viewer's token names its role: the environment is read-only before anything is tried.
    await sees(SIDEBAR_TREE, "read-only");
    await vscode.commands.executeCommand("airflowStateStore.revealTaskInstance", SPARK);
    await screenshot("store-browser-read-only");

    // Asked anyway (from the Command Palette or a message's action): said at once, nothing is asked.
    await vscode.commands.executeCommand("airflowStateStore.addEntry");
    await sees(NOTIFICATIONS, "viewer can read but not change state stores on e2e-viewer");
  });

  test("a read-only user whose token says nothing is told once a write is refused, and writes are not offered again", async () => {
    await vscode.commands.executeCommand("notifications.clearAll");
    await configure([environments.viewerToken()], "e2e-viewer-token");
    const signingIn = vscode.commands.executeCommand("airflowStateStore.signIn", "e2e-viewer-token");
    await ask({ action: "dialog", button: "Allow" }); // the environment comes from the workspace's settings
    await ask({ action: "input", expect: "Sign in to e2e-viewer-token", text: VIEWER_API_TOKEN });
    await signingIn;
    await vscode.commands.executeCommand("airflowStateStore.revealTaskInstance", SPARK);
    const adding = vscode.commands.executeCommand("airflowStateStore.addEntry");
    await ask({ action: "input", expect: "Add entry to", text: "e2e_viewer" });
    await ask({ action: "input", expect: 'Add entry "e2e_viewer"', text: "1" });
    await ask({ action: "input", expect: "Expiry", text: "Never" });
    await adding;
    await sees(NOTIFICATIONS, "This API token can read but not change state stores on e2e-viewer-token");
    await sees(SIDEBAR_TREE, "read-only");

    // Read in the notification center, not as a toast: the workbench shows no toast for a
    // notification that comes after three others within 800 ms (its spam protection), which the
    // refused write's progress and warning make likely; the notification is in the center then.
    await vscode.commands.executeCommand("notifications.clearAll");
    await vscode.commands.executeCommand("notifications.showList");
    await ask({ action: "text", selector: NOTIFICATION_CENTER, lacks: "This API token can read but not change state stores on e2e-viewer-token" });
    await vscode.commands.executeCommand("airflowStateStore.addEntry");
    await sees(NOTIFICATION_CENTER, "This API token can read but not change state stores on e2e-viewer-token");
    await vscode.commands.executeCommand("notifications.hideList");
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("the emulator never showed the saved value");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
