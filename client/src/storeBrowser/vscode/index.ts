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
import { readBrowserSettings, secretStoreOf, SECTION } from "./settings";
import { StoreStatusBar } from "./statusBar";
import { createStoreTreeView } from "./treeView";

/**
 * `languageClient` answers the running language client (it is replaced when the server restarts);
 * `log` is the extension's log, where every REST call is written.
 */
export function activateStoreBrowser(context: vscode.ExtensionContext, languageClient: () => LanguageClient | undefined, log?: ExtensionLog): void {
  const connections = new Connections(secretStoreOf(context.secrets), { onExchange: log && ((environment, record) => log.exchange(environment, record)) });
  connections.update(readBrowserSettings());
  const model = new StoreTreeModel(connections);
  const { view, disposables } = createStoreTreeView(model);
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
  };

  const fileSystem = new EntryFileSystem(connections, (address, entry) => {
    // The saved entry replaces its node when the tree shows it.
    const shown = model.findEntry(address);
    if (shown?.kind === "taskEntry" && "expires_at" in entry) model.replaceTaskEntry(shown, entry);
    else if (shown?.kind === "assetEntry" && "last_updated_by" in entry) model.replaceAssetEntry(shown, entry);
    lenses.refresh();
  });

  context.subscriptions.push(
    ...disposables,
    status,
    lenses,
    vscode.workspace.registerFileSystemProvider(ENTRY_SCHEME, fileSystem, { isCaseSensitive: true }),
    vscode.languages.registerCodeLensProvider([{ language: "python", scheme: "file" }, { language: "python", scheme: "untitled" }], lenses),
    ...registerCommands({ model, view, connections, changed }),
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
