/**
 * What both real-editor harnesses set up before starting an editor: the extension as users get it
 * (the .vsix `npm run package` builds, also unpacked, so the suite also proves the package is
 * complete), a fresh copy of the workspace the suite edits, and the artifacts folder.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { extractZip } from "../../package/zip";
import { fromRoot } from "../../support/paths";

export const ARTIFACTS = fromRoot("test", "e2e", "artifacts");
/** The module VS Code loads as `extensionTestsPath` (compiled by `npm run compile`). */
export const SUITE_ENTRY = fromRoot("out", "test", "e2e", "extension", "index.js");

export interface Prepared {
  /** A temporary folder holding everything below; `cleanUp` removes it. */
  workDir: string;
  /** The .vsix `npm run package` built. */
  vsix: string;
  /** The same, unpacked: an extension folder to give the editor as extensionDevelopmentPath. */
  extensionPath: string;
  workspace: string;
  resultsFile: string;
  cleanUp(): void;
}

export function log(message: string): void {
  console.log(`[e2e] ${message}`);
}

export function prepare(): Prepared {
  if (!fs.existsSync(SUITE_ENTRY)) throw new Error(`${SUITE_ENTRY} is missing: run \`npm run compile\` first`);
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "airflow-state-store-e2e-"));

  const cleanUp = () => fs.rmSync(workDir, { recursive: true, force: true });
  try {
    log("packaging the extension (npm run package)");
    const vsix = path.join(workDir, "extension.vsix");
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const packaged = spawnSync(npm, ["run", "--silent", "package", "--", "--out", vsix], { cwd: fromRoot(), stdio: "inherit", shell: process.platform === "win32" });
    if (packaged.status !== 0) throw new Error(`npm run package failed (exit ${packaged.status})`);
    const unpacked = path.join(workDir, "vsix");
    extractZip(vsix, unpacked);

    const workspace = path.join(workDir, "workspace");
    fs.cpSync(fromRoot("test", "e2e", "workspace"), workspace, { recursive: true });

    return { workDir, vsix, extensionPath: path.join(unpacked, "extension"), workspace, resultsFile: path.join(ARTIFACTS, "results.json"), cleanUp };
  } catch (error) {
    cleanUp();
    throw error;
  }
}
