/**
 * The review of a hostile DAG as VS Code's Markdown preview renders it: keys, values, asset URIs and
 * task ids holding backticks, raw HTML (`<img onerror>`, `<a href="command:…">`) and Markdown links to
 * `command:` URIs. Read from the preview's own document (the webview's frame), not from the Markdown
 * text: no link, image or other element of the DAG's may be there, and the DAG's text is still shown.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { RenderedElement } from "../protocol";
import { codeOf, openInEditor, waitForDiagnostics } from "./editor";
import { ask, screenshot } from "./harness";

const REVIEW_COMMAND = "airflowStateStore.reviewDag";
/** Where the Markdown preview puts the rendered document. */
const PREVIEW_BODY = ".markdown-body";
const FINDINGS = "AS101,AS102,AS105,AS105,AS202,AS405";
/** The elements the review's own Markdown renders to (the preview highlights code blocks with spans). */
const REVIEW_ELEMENTS = new Set(["h1", "h2", "h3", "p", "strong", "em", "code", "pre", "span", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "div"]);

function describe(element: RenderedElement): string {
  return `<${element.tag}${Object.entries(element.attributes).map(([name, value]) => ` ${name}="${value}"`).join("")}>`;
}

/** The line of the rendered text that starts with `prefix`. */
function lineStarting(text: string, prefix: string): string {
  const line = text.split("\n").find((candidate) => candidate.startsWith(prefix));
  assert.ok(line !== undefined, `a line starting with ${JSON.stringify(prefix)} in:\n${text}`);
  return line;
}

suite("Review of a hostile DAG in the Markdown preview", () => {
  setup(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  teardown(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  test("shows the DAG's HTML and command: links as text, with no link, image or element of the DAG's", async () => {
    const editor = await openInEditor("dags/hostile_review.py");
    const dag = editor.document.uri;
    await waitForDiagnostics(dag, (found) => found.map(codeOf).sort().join() === FINDINGS, `the findings ${FINDINGS}`);

    await vscode.commands.executeCommand(REVIEW_COMMAND, dag);
    const rendered = await ask({ action: "webview", root: PREVIEW_BODY, contains: "6. AS405 submit-then-poll" });
    await screenshot("review-hostile-dag");
    const text = rendered.text ?? "";
    const elements = rendered.elements ?? [];
    assert.ok(text.startsWith("Airflow state store review: hostile_review.py"), text.slice(0, 200));

    const unexpected = elements.filter((element) => !REVIEW_ELEMENTS.has(element.tag));
    assert.deepEqual(unexpected.map(describe), [], "only the review's own elements: no <a>, <img>, <b>, <i> from the DAG");
    const commandLinks = elements.filter((element) => Object.values(element.attributes).some((value) => /command:|onerror|alert\(/i.test(value)));
    assert.deepEqual(commandLinks.map(describe), [], "no attribute carries the DAG's command: URIs or handlers");

    // In the prose (the fix titles), the DAG's code reads exactly as the DAG spells it, backticks,
    // HTML and links included: each piece is one code span fenced longer than any backtick run in it.
    assert.equal(
      lineStarting(text, "Fix (unsafe: changes behaviour; review it): Replace with "),
      'Fix (unsafe: changes behaviour; review it): Replace with task_state_store.delete("a`](command:workbench.action.quit)<img src=x onerror=alert(1)>`.b")',
    );
    assert.equal(
      lineStarting(text, "Fix (unsafe: changes behaviour; review it): Add "),
      'Fix (unsafe: changes behaviour; review it): Add Asset("``[open](command:workbench.action.terminal.new)<b>bold</b>`") to the task\'s outlets=',
    );
    // In the before/after code blocks, exactly, backticks included.
    assert.ok(text.includes(`task_state_store.set('k\`<a href="command:workbench.action.quit">quit</a>\`/', datetime.now())`), text);
    assert.ok(text.includes('task_state_store.delete("a`](command:workbench.action.quit)<img src=x onerror=alert(1)>`.b")'), text);
    assert.ok(text.includes('task_id="s`[run](command:workbench.action.quit)<i>x</i>`"'), text);
    assert.ok(text.includes('task_id="w`<img src=y onerror=alert(2)>`"'), text);
  });
});
