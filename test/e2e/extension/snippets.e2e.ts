/**
 * A snippet the extension contributes, inserted by the editor's own snippet machinery with the
 * defaults of its tab stops, gives code the language server finds nothing in.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { codeOf, openInEditor, waitForDiagnostics } from "./editor";

/** The snippet's name: its key in snippets/python.code-snippets. */
const RESUMABLE_SNIPPET = "ResumableJobMixin operator";
const PLACEHOLDER = '@task\ndef placeholder(task_state_store=None):\n    task_state_store.set("replaced_by_the_snippet", None)';

suite("Snippets in the editor", () => {
  test("the ResumableJobMixin operator snippet inserts clean", async () => {
    const editor = await openInEditor("dags/snippet_target.py");
    const document = editor.document;
    // The placeholder (AS102) is what the snippet replaces; the AS103 elsewhere stays. Once only the
    // AS103 is left, the server has linted the text with the snippet in it and found nothing there.
    await waitForDiagnostics(document.uri, (found) => found.map(codeOf).sort().join() === "AS102,AS103", "the placeholder's AS102 and the AS103");
    const start = document.getText().indexOf(PLACEHOLDER);
    assert.ok(start >= 0, "the placeholder task is in the file");
    editor.selection = new vscode.Selection(document.positionAt(start), document.positionAt(start + PLACEHOLDER.length));

    await vscode.commands.executeCommand("editor.action.insertSnippet", { langId: "python", name: RESUMABLE_SNIPPET });
    await vscode.commands.executeCommand("leaveSnippet");

    const text = document.getText();
    assert.match(text, /^class MyJobOperator\(ResumableJobMixin, BaseOperator\):$/m, "the snippet was inserted with its defaults");
    assert.match(text, /^ {4}external_id_key = "my_job_id"$/m, "tabs became the file's four-space indentation");
    assert.match(text, /^ {4}def execute\(self, context\):\n {8}return self\.execute_resumable\(context\)$/m);
    assert.doesNotMatch(text, /def placeholder/);
    const left = await waitForDiagnostics(document.uri, (found) => found.length === 1 && codeOf(found[0]) === "AS103", "only the AS103 outside the snippet");
    assert.equal(document.lineAt(left[0].range.start.line).text.trim(), 'task_state_store.set("cursor", 500, retention=7)');
  });
});
