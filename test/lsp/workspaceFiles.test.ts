/**
 * The language server's scan of the workspace's Python files (lsp/workspaceFiles.ts): a symbolic link
 * to a `*.py` file outside the workspace folders is not read, one inside is, and the walk stops after
 * its folder limit, saying so in the log.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, test } from "node:test";
import { WorkspaceFiles } from "../../server/src/lsp/workspaceFiles";
import type { ToWorker } from "../../server/src/lsp/workerProtocol";
import { TempFolder } from "../support/tempFolder";

const folders: TempFolder[] = [];
after(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

function temp(prefix: string): TempFolder {
  const folder = new TempFolder(prefix);
  folders.push(folder);
  return folder;
}

/** Scans `root` and returns the indexed paths (relative to it) and the log. */
async function scan(root: string, maxFolders?: number): Promise<{ indexed: string[]; log: string[] }> {
  const indexed: string[] = [];
  const log: string[] = [];
  const worker = {
    post(message: ToWorker) {
      if (message.type === "index") indexed.push(...message.files.map((file) => path.relative(root, file.path)));
    },
  };
  const files = new WorkspaceFiles(worker as never, () => false, { debug: (line) => log.push(line), info: (line) => log.push(line), warn: (line) => log.push(line), error: (line) => log.push(line) }, maxFolders);
  files.setFolders([pathToFileURL(root).href]);
  await files.scan();
  return { indexed: indexed.sort(), log };
}

test("a symbolic link to a Python file outside the workspace is not read; one inside it is", async () => {
  const outside = temp("outside-");
  outside.write("secret.py", "TOKEN = 'x'\n");
  const workspace = temp("workspace-");
  workspace.write("dags/dag.py", "import airflow\n");
  workspace.write("lib/shared.py", "class Op: pass\n");
  fs.symlinkSync(path.join(workspace.root, "lib", "shared.py"), path.join(workspace.root, "dags", "shared.py"));
  fs.symlinkSync(path.join(outside.root, "secret.py"), path.join(workspace.root, "dags", "secret.py"));
  fs.symlinkSync(outside.root, path.join(workspace.root, "linked_folder"));
  const { indexed, log } = await scan(workspace.root);
  assert.deepEqual(indexed, [path.join("dags", "dag.py"), path.join("dags", "shared.py"), path.join("lib", "shared.py")]);
  assert.match(log.join("\n"), /Did not follow 1 symbolic link\(s\) out of the workspace: .*secret\.py/);
});

test("the walk stops after its folder limit and says so", async () => {
  const workspace = temp("workspace-");
  for (let i = 0; i < 6; i++) workspace.write(`f${i}/m${i}.py`, "x = 1\n");
  const { indexed, log } = await scan(workspace.root, 4);
  // The workspace folder itself and three of its folders, in name order.
  assert.deepEqual(indexed, ["f0/m0.py", "f1/m1.py", "f2/m2.py"].map((p) => p.split("/").join(path.sep)));
  assert.match(log.join("\n"), /Stopped after 4 folders/);
});
