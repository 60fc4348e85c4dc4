/**
 * "Airflow State Store: Review this DAG": the command opens the language server's Markdown review of
 * the DAG as a read-only document beside it in the Markdown preview, and the review follows the DAG's
 * edits.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { screenshot } from "./harness";
import { codeOf, openInEditor, waitForDiagnostics } from "./editor";

const REVIEW_COMMAND = "airflowStateStore.reviewDag";
const REVIEW_SCHEME = "airflow-state-review";
const WAIT_MS = 30_000;

/** The open review of `dag`, once `accept` holds for its text; checked now and on every change of it. */
function reviewOf(dag: vscode.Uri, accept: (text: string) => boolean, what: string): Promise<vscode.TextDocument> {
  const find = () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === REVIEW_SCHEME && d.uri.query === dag.toString() && accept(d.getText()));
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = find();
      if (!found) return;
      finish();
      resolve(found);
    };
    const subscriptions = [vscode.workspace.onDidOpenTextDocument(check), vscode.workspace.onDidChangeTextDocument(check)];
    const timer = setTimeout(() => {
      finish();
      const open = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === REVIEW_SCHEME).map((d) => `${d.uri.toString()}:\n${d.getText().slice(0, 300)}`);
      reject(new Error(`Timed out waiting for ${what}; open reviews: ${open.join("\n\n") || "none"}`));
    }, WAIT_MS);
    function finish(): void {
      clearTimeout(timer);
      for (const subscription of subscriptions) subscription.dispose();
    }
    check();
  });
}

suite("Review this DAG", () => {
  test("opens the review beside the DAG in the Markdown preview, read-only, and follows the DAG's edits", async () => {
    const editor = await openInEditor("dags/misuse.py");
    const dag = editor.document.uri;
    await waitForDiagnostics(dag, (found) => found.map(codeOf).sort().join() === "AS102,AS103,AS104", "the three findings");

    await vscode.commands.executeCommand(REVIEW_COMMAND, dag);
    const review = await reviewOf(dag, (text) => text.includes("### 3."), "the review of misuse.py");
    const text = review.getText();
    assert.ok(text.startsWith("# Airflow state store review: `misuse.py`\n\n**3 findings** (3 errors)"), text.slice(0, 200));
    assert.match(text, /^### 1\. AS103 `retention-not-timedelta` \(error, line 13\)$/m);
    assert.equal(review.languageId, "markdown");
    assert.equal(review.isDirty, false);
    const preview = vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.includes("markdown.preview"));
    assert.ok(preview, `a Markdown preview tab among: ${vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label)).join(" | ")}`);
    assert.notEqual(preview.group.viewColumn, vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === dag.toString()))?.viewColumn, "beside the DAG");
    // Lets the preview's webview render before the picture is taken.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await screenshot("review-beside-dag");

    // An edit above everything moves every finding down a line; the review follows without a save.
    try {
      assert.ok(await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), "# reviewed\n")));
      await reviewOf(dag, (updated) => /^### 1\. AS103 `retention-not-timedelta` \(error, line 14\)$/m.test(updated), "the review of the edited DAG");
    } finally {
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand("workbench.action.files.revert");
    }
  });
});
