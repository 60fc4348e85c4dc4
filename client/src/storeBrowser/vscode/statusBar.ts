/** The status bar item: active environment and Airflow version (warning background below 3.3, offline when unreachable). */
import * as vscode from "vscode";
import { COMMANDS } from "../commandIds";
import type { Connections } from "../connections";
import { classifyFailure } from "../failures";
import { statusOf } from "../status";

export class StoreStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("airflowStateStore.environment", vscode.StatusBarAlignment.Left, 10);
  /** Updates overlap when settings change quickly; only the latest one is shown. */
  private generation = 0;

  constructor(private readonly connections: Connections) {
    this.item.name = "Airflow State environment";
  }

  async update(): Promise<void> {
    const generation = ++this.generation;
    const connection = await this.connections.connect();
    const show = (version: { version: string } | { error: string } | undefined) => {
      if (generation !== this.generation) return;
      const status = statusOf(connection, version, connection.kind === "ready" ? this.connections.health.of(connection.env) : {});
      if (!status) return this.item.hide();
      this.item.text = status.text;
      this.item.tooltip = status.tooltip;
      this.item.accessibilityInformation = { label: status.accessibilityLabel };
      this.item.command = status.retry ? { command: COMMANDS.refresh, title: "Retry" } : COMMANDS.switchEnvironment;
      this.item.backgroundColor = status.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
      this.item.show();
    };
    show(undefined);
    if (connection.kind !== "ready") return;
    try {
      show(await this.connections.version(connection.env, connection.client));
    } catch (error) {
      this.connections.health.failed(connection.env, classifyFailure(error, false));
      show({ error: error instanceof Error ? error.message : String(error) });
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
