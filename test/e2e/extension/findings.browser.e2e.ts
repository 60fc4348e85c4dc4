/**
 * What a finding offers in the real editor, used as a user uses it: the code link in the Problems
 * panel opens the rule's page rendered and read-only (not the generated Markdown file as an
 * editable document), and the lightbulb offers fix-all, which fixes every safe finding when chosen.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { codeOf, openInEditor, waitForDiagnostics } from "./editor";
import { ask, screenshot } from "./harness";

const WAIT_MS = 15_000;
const FIX_ALL_TITLE = "Airflow State Store: fix all safely fixable problems";

/** Resolves once `accept` holds, checking every 100 ms; fails after WAIT_MS saying what was awaited and what was seen. */
async function eventually<T>(read: () => T, accept: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The active tab: its label and, for a webview, its view type. */
function activeTab(): { label: string; viewType?: string } {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  return { label: tab?.label ?? "", viewType: tab?.input instanceof vscode.TabInputWebview ? tab.input.viewType : undefined };
}

function isPreviewOf(code: string) {
  return (tab: { label: string; viewType?: string }) => (tab.viewType ?? "").includes("markdown.preview") && tab.label.includes(code);
}

suite("Findings in the editor: rule pages and the lightbulb", () => {
  teardown(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  test("the code link in the Problems panel opens the rule's page in the Markdown preview, read-only", async () => {
    const editor = await openInEditor("dags/misuse.py");
    await waitForDiagnostics(editor.document.uri, (found) => found.some((d) => codeOf(d) === "AS103"), "the AS103 finding");
    await vscode.commands.executeCommand("workbench.panel.markers.view.focus");
    await ask({ action: "click", selector: ".markers-panel .monaco-link", hasText: "AS103" });
    await eventually(activeTab, isPreviewOf("AS103"), "the preview of AS103's page");
    const pageTabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.path.endsWith("/AS103.md"));
    assert.deepEqual(pageTabs.map((tab) => tab.label), [], "no text editor shows the page's Markdown");
    // What the preview renders: the read-only document the extension serves (a content provider's documents cannot be edited).
    const page = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: "airflow-state-rule", path: "/AS103.md" }));
    assert.ok(page.getText().startsWith("# AS103: retention-not-timedelta"), "the page starts with the rule, not with a note to developers");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await screenshot("rule-page");
  });

  test("the show-documentation code action opens the same rendered page", async () => {
    const editor = await openInEditor("dags/misuse.py");
    const [finding] = await waitForDiagnostics(editor.document.uri, (found) => found.some((d) => codeOf(d) === "AS104"), "the AS104 finding").then((found) => found.filter((d) => codeOf(d) === "AS104"));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", editor.document.uri, finding.range, vscode.CodeActionKind.QuickFix.value);
    const show = actions.find((action) => action.title === "Airflow State Store (AS104): show documentation");
    assert.ok(show?.command, `a show-documentation action among: ${actions.map((action) => action.title).join(" | ")}`);
    for (const action of actions) assert.ok(!action.title.includes("`"), `plain-text title: ${action.title}`);
    await vscode.commands.executeCommand(show.command.command, ...(show.command.arguments ?? []));
    await eventually(activeTab, isPreviewOf("AS104"), "the preview of AS104's page");
  });

  test("the lightbulb offers fix-all; chosen, it removes every safely fixable finding", async () => {
    const editor = await openInEditor("dags/lightbulb_fix_all.py");
    const document = editor.document;
    const found = await waitForDiagnostics(document.uri, (diagnostics) => diagnostics.length === 2 && diagnostics.every((d) => codeOf(d) === "AS104"), "two AS104 findings");
    editor.selection = new vscode.Selection(found[0].range.start, found[0].range.start);
    await vscode.commands.executeCommand("editor.action.quickFix");
    await ask({ action: "text", selector: ".action-widget", contains: FIX_ALL_TITLE });
    await screenshot("lightbulb-fix-all");
    await ask({ action: "click", selector: ".action-widget .monaco-list-row", hasText: FIX_ALL_TITLE });
    await waitForDiagnostics(document.uri, (diagnostics) => diagnostics.length === 0, "no findings after fix-all");
    assert.doesNotMatch(document.getText(), /retention=/);
    assert.match(document.getText(), /store\.set\("watermark", "2026-01-01"\)/);
    await vscode.commands.executeCommand("workbench.action.files.revert");
  });
});
