/**
 * The language model tool: chat agents call `airflowStateStore_reviewDag` through `vscode.lm`; it
 * answers the Markdown review the CLI's `--format review` writes for the same file.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as vscode from "vscode";
import { fromRoot } from "../../support/paths";
import { workspaceUri } from "./editor";

const REVIEW_TOOL = "airflowStateStore_reviewDag";

function textOf(result: vscode.LanguageModelToolResult): string {
  // Parts cross from the extension that answered: read them by shape.
  return result.content.map((part) => (typeof (part as { value?: unknown }).value === "string" ? (part as { value: string }).value : "")).join("");
}

/** `airflow-state-lint --format review PATH` in the workspace folder, with the built CLI of this repository. */
function cliReview(relativePath: string): string {
  const cwd = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const run = spawnSync(process.execPath, [fromRoot("dist", "cli.js"), "--format", "review", relativePath], { cwd, encoding: "utf8", env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" } });
  assert.equal(run.error, undefined);
  return run.stdout;
}

/** Everything after the title line, which names the file as each front end shows paths. */
function body(review: string): string {
  return review.slice(review.indexOf("\n"));
}

suite("Language model tool: review an Airflow DAG", () => {
  test("is contributed to vscode.lm.tools with its input schema", () => {
    const tool = vscode.lm.tools.find((candidate) => candidate.name === REVIEW_TOOL);
    assert.ok(tool, `among: ${vscode.lm.tools.map((candidate) => candidate.name).join(", ")}`);
    assert.match(tool.description, /state store misuse/);
    assert.deepEqual(Object.keys((tool.inputSchema as { properties: object }).properties), ["filePath"]);
    assert.ok(tool.tags.includes("airflow"));
  });

  test("vscode.lm.invokeTool answers the CLI's Markdown review of the file", async () => {
    const result = await vscode.lm.invokeTool(REVIEW_TOOL, { input: { filePath: "dags/misuse.py" }, toolInvocationToken: undefined });
    const review = textOf(result);
    assert.ok(review.startsWith("# Airflow state store review: `misuse.py`\n\n**3 findings** (3 errors)"), review.slice(0, 200));
    assert.match(review, /^### 1\. AS103 `retention-not-timedelta` \(error, line 13\)$/m);
    const cli = cliReview("dags/misuse.py");
    assert.ok(cli.startsWith("# Airflow state store review: `dags/misuse.py`"), cli.slice(0, 200));
    assert.equal(body(review), body(cli));
  });

  test("takes an absolute path, and reviews the active editor's file without one", async () => {
    const absolute = textOf(await vscode.lm.invokeTool(REVIEW_TOOL, { input: { filePath: workspaceUri("dags/retention_fix.py").fsPath }, toolInvocationToken: undefined }));
    assert.ok(absolute.startsWith("# Airflow state store review: `retention_fix.py`"), absolute.slice(0, 200));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(workspaceUri("dags/misuse.py")));
    const active = textOf(await vscode.lm.invokeTool(REVIEW_TOOL, { input: {}, toolInvocationToken: undefined }));
    assert.ok(active.startsWith("# Airflow state store review: `misuse.py`"), active.slice(0, 200));
  });

  test("a file that is not in the workspace, or not Python, is answered with why, for the agent to correct", async () => {
    const missing = textOf(await vscode.lm.invokeTool(REVIEW_TOOL, { input: { filePath: "dags/no_such_dag.py" }, toolInvocationToken: undefined }));
    assert.equal(missing, "dags/no_such_dag.py was not found in the workspace folders; pass an absolute path or one relative to a workspace folder.");
    const notPython = textOf(await vscode.lm.invokeTool(REVIEW_TOOL, { input: { filePath: fromRoot("package.json") }, toolInvocationToken: undefined }));
    assert.match(notPython, /package\.json is not a Python file; the review is for Airflow DAG files\.$/);
  });
});
