/**
 * "Airflow State Store: Review this DAG": asks the language server for the Markdown review of a
 * Python file (`airflowStateStore/review`, the same text `airflow-state-lint --format review`
 * writes) and opens it beside the file in VS Code's Markdown preview.
 *
 * The review is a read-only virtual document (`airflow-state-review:`, the DAG's URI in its query),
 * so nothing is left behind as an unsaved file. It is computed again whenever the server publishes
 * new diagnostics for the DAG (after an edit, a changed Airflow pin or a changed module it imports),
 * and the preview follows.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { REVIEW_METHOD, ReviewParams, ReviewResponse } from "../../server/src/lsp/reviewProtocol";

export const REVIEW_COMMAND = "airflowStateStore.reviewDag";
export const REVIEW_SCHEME = "airflow-state-review";

/** Diagnostics arrive for every lint; a burst of them (typing) asks for one review. */
const REFRESH_DELAY_MS = 300;

/** `airflow-state-review:/dags/orders.py.review.md?file:///dags/orders.py` */
export function reviewUriOf(source: vscode.Uri): vscode.Uri {
  const base = source.path.startsWith("/") ? source.path : `/${source.path}`;
  return vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `${base}.review.md`, query: source.toString() });
}

function sourceOf(review: vscode.Uri): vscode.Uri {
  return vscode.Uri.parse(review.query, true);
}

class ReviewDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** The last review shown per review URI, kept when the DAG is closed and the server cannot review it any more. */
  private readonly shown = new Map<string, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly languageClient: () => LanguageClient | undefined) {
    this.subscriptions = [
      vscode.languages.onDidChangeDiagnostics((event) => {
        for (const uri of event.uris) this.sourceChanged(uri);
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document.uri.scheme !== REVIEW_SCHEME) return;
        this.shown.delete(document.uri.toString());
        clearTimeout(this.timers.get(document.uri.toString()));
        this.timers.delete(document.uri.toString());
      }),
    ];
  }

  /** Makes an open review of the document compute itself again. */
  refresh(review: vscode.Uri): void {
    if (vscode.workspace.textDocuments.some((document) => document.uri.toString() === review.toString())) this.changed.fire(review);
  }

  async provideTextDocumentContent(review: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const key = review.toString();
    const source = sourceOf(review);
    const client = this.languageClient();
    if (!client?.isRunning()) return this.shown.get(key) ?? notice(source, "The Airflow State Store language server is not running yet; this review appears once it has checked the file.");
    try {
      const response = await requestReview(client, source, token);
      this.shown.set(key, response.markdown);
      return response.markdown;
    } catch (error) {
      // Closed since (the server reviews open files only): the last review still describes the file as it was.
      const last = this.shown.get(key);
      if (last !== undefined) return last;
      return notice(source, `The review could not be made: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }

  private sourceChanged(source: vscode.Uri): void {
    if (source.scheme === REVIEW_SCHEME) return;
    const review = reviewUriOf(source);
    const key = review.toString();
    if (!vscode.workspace.textDocuments.some((document) => document.uri.toString() === key)) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.changed.fire(review);
      }, REFRESH_DELAY_MS),
    );
  }
}

/** The server's review of an open Python document: the same Markdown as `airflow-state-lint --format review`. */
export function requestReview(client: LanguageClient, source: vscode.Uri, token?: vscode.CancellationToken): Promise<ReviewResponse> {
  const params: ReviewParams = { uri: client.code2ProtocolConverter.asUri(source) };
  return client.sendRequest<ReviewResponse>(REVIEW_METHOD, params, token);
}

function notice(source: vscode.Uri, text: string): string {
  return `# Airflow state store review: \`${path.posix.basename(source.path)}\`\n\n${text}\n`;
}

/** Registers the command and the review documents; `languageClient` answers the running client (a restart replaces it). */
export function activateReviewCommand(context: vscode.ExtensionContext, languageClient: () => LanguageClient | undefined): void {
  const documents = new ReviewDocuments(languageClient);
  context.subscriptions.push(
    documents,
    vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, documents),
    // From the editor title or context menu VS Code passes the file's URI; from the Command Palette, nothing.
    vscode.commands.registerCommand(REVIEW_COMMAND, async (resource?: unknown) => {
      const uri = resource instanceof vscode.Uri ? resource : vscode.window.activeTextEditor?.document.uri;
      if (!uri) {
        void vscode.window.showInformationMessage("Open a Python DAG file to review it.");
        return;
      }
      const document = await vscode.workspace.openTextDocument(uri);
      if (document.languageId !== "python") {
        void vscode.window.showInformationMessage(`${path.posix.basename(uri.path)} is not a Python file; the review is for DAG files.`);
        return;
      }
      const review = reviewUriOf(document.uri);
      // Already open: show it computed afresh, not as it was when it was last opened.
      documents.refresh(review);
      try {
        await vscode.commands.executeCommand("markdown.showPreviewToSide", review);
      } catch {
        // VS Code's built-in Markdown extension is disabled: the Markdown text is still readable.
        await vscode.window.showTextDocument(review, { viewColumn: vscode.ViewColumn.Beside, preview: true });
      }
    }),
  );
}
