/**
 * The language server started by the installed extension publishes the expected diagnostics into
 * the real editor, and a rule's severity set in the settings takes effect without a restart.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { EXTENSION_ID } from "../protocol";
import { codeOf, openInEditor, screenshotWithProblems, setRuleSeverities, waitForDiagnostics } from "./editor";

const MISUSE = "dags/misuse.py";

/** The range of `text` inside `context`, a snippet that occurs exactly once in the document. */
function rangeOf(document: vscode.TextDocument, context: string, text = context): vscode.Range {
  const content = document.getText();
  const at = content.indexOf(context);
  assert.ok(at >= 0 && content.indexOf(context, at + 1) < 0, `"${context}" must occur exactly once in ${document.fileName}`);
  const start = at + context.indexOf(text);
  return new vscode.Range(document.positionAt(start), document.positionAt(start + text.length));
}

function formatted(code: string, range: vscode.Range, severity: vscode.DiagnosticSeverity): string {
  return `${code} ${range.start.line + 1}:${range.start.character + 1}-${range.end.line + 1}:${range.end.character + 1} ${vscode.DiagnosticSeverity[severity]}`;
}

function summary(diagnostics: readonly vscode.Diagnostic[]): string[] {
  return diagnostics.map((d) => formatted(codeOf(d), d.range, d.severity)).sort();
}

suite("Diagnostics in the editor", () => {
  let editor: vscode.TextEditor;

  suiteSetup(async () => {
    editor = await openInEditor(MISUSE);
  });

  suiteTeardown(async () => {
    await setRuleSeverities(undefined);
  });

  test("the extension is active, and its rule docs links open pages it ships", async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    await waitForDiagnostics(editor.document.uri, (found) => found.length > 0, "the first diagnostics");
    assert.equal(extension.isActive, true);
    const [first] = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => typeof d.code === "object");
    assert.ok(first, "diagnostics carry a code with a documentation link");
    const { value, target } = first.code as { value: string; target: vscode.Uri };
    // The link runs the command that opens the rendered page (findings.browser.e2e.ts clicks it).
    assert.equal(target.scheme, "command");
    assert.equal(target.path, "airflowStateStore.showRuleDocumentation");
    assert.deepEqual(JSON.parse(target.query), [value]);
    const page = path.join(extension.extensionPath, "docs", "rules", `${value}.md`);
    assert.ok(fs.existsSync(page), `${page} exists`);
  });

  test("a DAG with three mistakes shows exactly their codes on their arguments", async () => {
    const document = editor.document;
    const error = vscode.DiagnosticSeverity.Error;
    const expected = [
      formatted("AS103", rangeOf(document, "retention=7"), error),
      formatted("AS102", rangeOf(document, '"last_error", None', "None"), error),
      formatted("AS104", rangeOf(document, "retention=30"), error),
    ].sort();
    const found = await waitForDiagnostics(document.uri, (diagnostics) => diagnostics.length === 3, "three diagnostics");
    assert.deepEqual(summary(found), expected);
    await screenshotWithProblems("diagnostics");
  });

  test("a rule's severity changed in the settings takes effect live", async () => {
    const uri = editor.document.uri;
    await setRuleSeverities({ AS104: "off", AS103: "warning" });
    const changed = await waitForDiagnostics(
      uri,
      (diagnostics) => diagnostics.length === 2 && diagnostics.some((d) => codeOf(d) === "AS103" && d.severity === vscode.DiagnosticSeverity.Warning),
      "AS104 off and AS103 as a warning",
    );
    assert.deepEqual(changed.map((d) => `${codeOf(d)} ${vscode.DiagnosticSeverity[d.severity]}`).sort(), ["AS102 Error", "AS103 Warning"]);
    await screenshotWithProblems("severity-changed");

    await setRuleSeverities(undefined);
    const restored = await waitForDiagnostics(uri, (diagnostics) => diagnostics.length === 3, "the three default diagnostics again");
    assert.ok(restored.every((d) => d.severity === vscode.DiagnosticSeverity.Error));
  });
});
