/**
 * The status bar item that shows the Airflow version the active Python file's project pins, as the
 * language server found it (`airflowStateStore/airflowVersion`): "Project pin: Airflow 2.10.5", on a warning
 * background below 3.3, where the state stores do not exist. Its tooltip names the file and line the
 * pin was read from, and clicking it opens that file there. Hidden when the active editor is not
 * Python or no pin is known for it.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { AIRFLOW_VERSION_METHOD, AirflowVersionInfo, AirflowVersionParams } from "../../server/src/lsp/airflowVersionProtocol";

class AirflowVersionStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("airflowStateStore.airflowVersion", vscode.StatusBarAlignment.Right, 100);
  private readonly subscriptions: vscode.Disposable[];
  /** Pins the current server reported, by document URI as the client sends it. */
  private readonly pins = new Map<string, AirflowVersionInfo>();
  private client: LanguageClient | undefined;

  constructor() {
    this.item.name = "Airflow version pinned by the project";
    this.subscriptions = [
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidCloseTextDocument((document) => this.forget(document.uri)),
    ];
  }

  /** A new language server starts from nothing: what the previous one reported no longer holds. */
  follow(client: LanguageClient): void {
    this.client = client;
    this.pins.clear();
    this.update();
    // Registered before the client starts, so the first documents' pins are not missed.
    client.onNotification(AIRFLOW_VERSION_METHOD, (params: AirflowVersionParams) => {
      if (this.client !== client || typeof params?.uri !== "string") return;
      if (params.pin) this.pins.set(params.uri, params.pin);
      else this.pins.delete(params.uri);
      this.update();
    });
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.item.dispose();
  }

  private forget(uri: vscode.Uri): void {
    if (this.client && this.pins.delete(this.client.code2ProtocolConverter.asUri(uri))) this.update();
  }

  private update(): void {
    const document = vscode.window.activeTextEditor?.document;
    const pin = document?.languageId === "python" && this.client ? this.pins.get(this.client.code2ProtocolConverter.asUri(document.uri)) : undefined;
    if (!pin) {
      this.item.hide();
      return;
    }
    const source = vscode.Uri.parse(pin.sourceUri);
    const where = `${vscode.workspace.asRelativePath(source)}, line ${pin.line}`;
    // Labelled apart from the store browser's item, which names the environment's Airflow.
    this.item.text = `$(pin) Project pin: ${pin.text}`;
    this.item.tooltip = pin.below33
      ? `This project pins ${pin.text} in ${where}. State stores and crash-safe resubmission need Airflow 3.3 or later. Click to open the pin.`
      : `This project pins ${pin.text} in ${where}. Click to open the pin.`;
    this.item.accessibilityInformation = { label: `This project pins ${pin.text}${pin.below33 ? ", below 3.3" : ""}, in ${where}` };
    this.item.backgroundColor = pin.below33 ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    const line = Math.max(0, pin.line - 1);
    this.item.command = {
      title: "Open the file that pins Airflow",
      command: "vscode.open",
      arguments: [source, { selection: new vscode.Range(line, 0, line, 0) } satisfies vscode.TextDocumentShowOptions],
    };
    this.item.show();
  }
}

/** One item per window, shared by the language clients a restart creates one after another. */
let status: AirflowVersionStatus | undefined;

/** Shows the pins `client` reports; call it for each language client, before it starts. */
export function showAirflowVersion(context: vscode.ExtensionContext, client: LanguageClient): void {
  if (!status) {
    const created = new AirflowVersionStatus();
    status = created;
    context.subscriptions.push(created, { dispose: () => (status = status === created ? undefined : status) });
  }
  status.follow(client);
}
