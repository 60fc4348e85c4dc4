/**
 * "State store: N entries (latest run)" above the tasks of an open DAG file. The DAG and task ids
 * come from the language server (`airflowStateStore/dagOutline`, served by the engine's outline), the
 * counts from the active environment.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { DagOutline } from "../../../../server/src/engine/features/outline";
import { DAG_OUTLINE_METHOD, StoreLensSource } from "../codeLensData";
import { COMMANDS } from "../commandIds";
import type { Connections } from "../connections";
import { codeLensEnabled } from "./settings";

const START_RETRY_MS = 1500;
const MAX_START_RETRIES = 20;

export class StoreCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  private retries = 0;
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly connections: Connections,
    private readonly source: StoreLensSource,
    private readonly languageClient: () => LanguageClient | undefined,
  ) {}

  /** Asks the editor for new lenses, forgetting cached counts. */
  refresh(): void {
    this.source.invalidate();
    this.changed.fire();
  }

  async provideCodeLenses(document: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    if (!codeLensEnabled()) return [];
    const client = this.languageClient();
    if (!client?.isRunning()) {
      // The server is still starting (files opened with the window): ask again shortly.
      if (this.retries++ < MAX_START_RETRIES) setTimeout(() => this.changed.fire(), START_RETRY_MS);
      return [];
    }
    this.retries = 0;
    const connection = await this.connections.connect();
    if (connection.kind !== "ready" || token.isCancellationRequested) return [];
    const outline = await client.sendRequest<DagOutline>(DAG_OUTLINE_METHOD, { textDocument: { uri: client.code2ProtocolConverter.asUri(document.uri) } }, token);
    if (!outline?.dags?.length || token.isCancellationRequested) return [];
    const abort = new AbortController();
    const cancelled = token.onCancellationRequested(() => abort.abort());
    try {
      const lenses = await this.source.lenses(connection.client, connection.env.name, outline, abort.signal);
      const health = this.connections.health;
      const problem = lenses.find((lens) => lens.kind === "problem");
      if (problem) health.failed(connection.env, problem.failure);
      else if (lenses.length > 0) health.reached(connection.env);
      return lenses.flatMap((lens) => {
        const range = new vscode.Range(lens.range.start.line, lens.range.start.character, lens.range.end.line, lens.range.end.character);
        if (lens.kind === "count") {
          return [new vscode.CodeLens(range, { title: lens.title, tooltip: lens.tooltip, command: COMMANDS.revealTaskInstance, arguments: [lens.reveal] })];
        }
        // The reason is a label (no command), with the whole sentence as its tooltip; Retry asks again.
        return [
          new vscode.CodeLens(range, { title: lens.title, tooltip: lens.tooltip, command: "" }),
          new vscode.CodeLens(range, { title: "Retry", tooltip: `Ask ${connection.env.name} again`, command: COMMANDS.refresh }),
        ];
      });
    } finally {
      cancelled.dispose();
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
