/**
 * Fixes offered by the language server, applied by the editor: a quick fix through the code action
 * provider and `workspace.applyEdit`, and fix-all through `editor.codeActionsOnSave` on a real save.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as vscode from "vscode";
import { codeOf, openInEditor, screenshotWithProblems, waitForDiagnostics } from "./editor";

const FIX_ALL_KIND = "source.fixAll.airflowStateStore";

suite("Quick fixes in the editor", () => {
  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration("editor").update("codeActionsOnSave", undefined, vscode.ConfigurationTarget.Workspace);
  });

  test("the AS103 quick fix, applied through the code action provider, leaves the file fixed and clean", async () => {
    const editor = await openInEditor("dags/retention_fix.py");
    const document = editor.document;
    const [finding] = await waitForDiagnostics(document.uri, (found) => found.length === 1 && codeOf(found[0]) === "AS103", "the AS103 finding");

    const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
      "vscode.executeCodeActionProvider",
      document.uri,
      finding.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fix = actions.find((action): action is vscode.CodeAction => "edit" in action && action.title.startsWith("Airflow State Store (AS103): replace with retention=timedelta(days=7)"));
    assert.ok(fix?.edit, `a timedelta quick fix among: ${actions.map((action) => action.title).join(" | ")}`);
    assert.equal(await vscode.workspace.applyEdit(fix.edit), true);

    await waitForDiagnostics(document.uri, (found) => found.length === 0, "no diagnostics after the fix");
    assert.ok(await document.save(), "the fixed file saves");
    const saved = fs.readFileSync(document.uri.fsPath, "utf8");
    assert.equal(saved, document.getText());
    assert.match(saved, /task_state_store\.set\("cursor", cursor \+ 500, retention=timedelta\(days=7\)\)/);
    assert.match(saved, /^from datetime import [^\n]*\btimedelta\b/m, "timedelta is imported");
    assert.doesNotMatch(saved, /retention=7\b/);
  });

  test("fix-all on save (editor.codeActionsOnSave) removes every safely fixable finding", async () => {
    await vscode.workspace
      .getConfiguration("editor")
      .update("codeActionsOnSave", { [FIX_ALL_KIND]: "explicit" }, vscode.ConfigurationTarget.Workspace);
    const editor = await openInEditor("dags/fix_all.py");
    const document = editor.document;
    await waitForDiagnostics(document.uri, (found) => found.length === 2 && found.every((d) => codeOf(d) === "AS104"), "two AS104 findings");
    await screenshotWithProblems("before-fix-all-on-save");

    // A user's edit, then the user's save: the save participants run the server's fix-all.
    assert.ok(await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), "# edited in the editor\n")));
    await vscode.commands.executeCommand("workbench.action.files.save");

    await waitForDiagnostics(document.uri, (found) => found.length === 0, "no diagnostics after fix-all on save");
    const saved = fs.readFileSync(document.uri.fsPath, "utf8");
    assert.equal(document.isDirty, false);
    assert.ok(saved.startsWith("# edited in the editor\n"), "the user's edit is saved");
    assert.doesNotMatch(saved, /retention=/);
    assert.match(saved, /store\.set\("watermark", "2026-01-01"\)/);
    assert.match(saved, /store\.set\("rows", 1200\)/);
  });
});
