/**
 * Wires the store browser into VS Code: the "Airflow State" tree, its commands, entry documents,
 * the status bar item and the code lens. Everything that does not need VS Code lives one folder up.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { ExtensionLog } from "../../log";
import { StoreLensSource } from "../codeLensData";
import { Connections } from "../connections";
import { ENTRY_SCHEME } from "../entryDocument";
import { StoreTreeModel } from "../treeModel";
import { StoreCodeLensProvider } from "./codeLens";
import { registerCommands } from "./commands";
import { EntryFileSystem } from "./entryFileSystem";
import { consentStoreOf, readBrowserSettings, secretStoreOf, SECTION } from "./settings";
import { StoreStatusBar } from "./statusBar";
import { createStoreTreeView } from "./treeView";
import type { SaveFailure } from "../entrySave";

/** True while the active environment refused a write from its user: menus hide the writes. */
const READ_ONLY_CONTEXT = "airflowStateStore.readOnly";

/**
 * `languageClient` answers the running language client (it is replaced when the server restarts);
 * `log` is the extension's log, where every REST call is written.
 */
export function activateStoreBrowser(context: vscode.ExtensionContext, languageClient: () => LanguageClient | undefined, log?: ExtensionLog): void {
  const connections = new Connections(secretStoreOf(context.secrets), {
    consents: consentStoreOf(context.globalState),
    onExchange: log && ((environment, record) => log.exchange(environment, record)),
  });
  connections.update(readBrowserSettings());
  const model = new StoreTreeModel(connections);
  const { view, disposables } = createStoreTreeView(model, connections);
  const status = new StoreStatusBar(connections);
  const lenses = new StoreCodeLensProvider(connections, new StoreLensSource(), languageClient);

  const changed = () => {
    lenses.refresh();
    void status.update();
  };
  const settingsChanged = () => {
    connections.update(readBrowserSettings());
    changed();
    void model.refresh();
    void vscode.commands.executeCommand("setContext", READ_ONLY_CONTEXT, connections.health.of(connections.active).readOnly !== undefined);
  };

  const fileSystem = new EntryFileSystem(connections, (address, entry) => {
    // The saved entry replaces its node when the tree shows it.
    const shown = model.findEntry(address);
    if (shown?.kind === "taskEntry" && "expires_at" in entry) model.replaceTaskEntry(shown, entry);
    else if (shown?.kind === "assetEntry" && "last_updated_by" in entry) model.replaceAssetEntry(shown, entry);
    lenses.refresh();
  });
  const showGuide = () => vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.joinPath(context.extensionUri, "README.md").with({ fragment: "store-browser" }));

  // Offline and read-only marks show on the environment node, the status bar, and the menus.
  const healthChanged = (envName: string) => {
    model.environmentChanged(envName);
    void status.update();
    lenses.refresh();
    void vscode.commands.executeCommand("setContext", READ_ONLY_CONTEXT, connections.health.of(connections.active).readOnly !== undefined);
  };

  context.subscriptions.push(
    ...disposables,
    status,
    lenses,
    fileSystem,
    { dispose: connections.health.onDidChange(healthChanged) },
    vscode.workspace.registerFileSystemProvider(ENTRY_SCHEME, fileSystem, { isCaseSensitive: true }),
    vscode.window.registerFileDecorationProvider(fileSystem),
    fileSystem.onDidFailToSave(({ uri, failure }) => void offerRetry(fileSystem, uri, failure)),
    vscode.languages.registerCodeLensProvider([{ language: "python", scheme: "file" }, { language: "python", scheme: "untitled" }], lenses),
    ...registerCommands({ model, view, connections, changed, showGuide }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SECTION}.environments`) || e.affectsConfiguration(`${SECTION}.activeEnvironment`) || e.affectsConfiguration(`${SECTION}.maxValueLength`)) {
        settingsChanged();
      } else if (e.affectsConfiguration(`${SECTION}.codeLens.enable`)) lenses.refresh();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(settingsChanged),
    // A sign-in or sign-out, also from another window.
    context.secrets.onDidChange(settingsChanged),
  );
  void status.update();
}

/** A failed save of an opened entry: the reason, and Retry (when it can help) or Revert. */
async function offerRetry(fileSystem: EntryFileSystem, uri: vscode.Uri, failure: SaveFailure): Promise<void> {
  const choices = failure.retryable ? ["Retry", "Revert"] : ["Revert"];
  const answer = await vscode.window.showErrorMessage(failure.message, ...choices);
  if (answer === "Retry") await fileSystem.retry(uri);
  else if (answer === "Revert") fileSystem.revert(uri);
}
