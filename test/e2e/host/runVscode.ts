/**
 * `npm run test:vscode`: runs the real-editor suite in desktop VS Code through
 * @vscode/test-electron, which downloads the latest stable VS Code into .vscode-test/ (so it needs
 * internet) unless VSCODE_EXECUTABLE_PATH names an installed one. On Linux without a display, run
 * it under `xvfb-run -a`. No screenshots here: only the code-server harness holds a browser.
 */
import * as path from "node:path";
import { runTests } from "@vscode/test-electron";
import { RESULTS_FILE_ENV } from "../protocol";
import { prepare, SUITE_ENTRY } from "./prepare";
import { reportRun } from "./results";

async function main(): Promise<number> {
  const prepared = prepare();
  let exitError: unknown;
  try {
    await runTests({
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH || undefined,
      extensionDevelopmentPath: prepared.extensionPath,
      extensionTestsPath: SUITE_ENTRY,
      extensionTestsEnv: { [RESULTS_FILE_ENV]: prepared.resultsFile },
      launchArgs: [
        prepared.workspace,
        // Only the extension under test: nothing the developer installed takes part.
        "--disable-extensions",
        `--user-data-dir=${path.join(prepared.workDir, "user-data")}`,
        `--extensions-dir=${path.join(prepared.workDir, "extensions")}`,
      ],
    });
  } catch (error) {
    // VS Code exits non-zero when the suite rejects (the results file says why) or when it failed.
    exitError = error;
  } finally {
    prepared.cleanUp();
  }

  const problems = exitError ? [`VS Code failed: ${messageOf(exitError)}`] : [];
  return reportRun(prepared.resultsFile, problems);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
