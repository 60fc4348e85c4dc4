/**
 * The module VS Code's extension host loads as `extensionTestsPath`: runs the mocha suites in this
 * folder (`*.e2e.js`; `*.browser.e2e.js` only with the harness's browser) inside the real editor and writes every outcome to the results file, because
 * under code-server a failing test changes no exit code. Rejecting on failure also makes
 * @vscode/test-electron exit non-zero.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type MochaType from "mocha";
import { BROWSER_SUITE_SUFFIX, RESULTS_FILE_ENV, ResultsFile, SUITE_SUFFIX, TestOutcome } from "../protocol";
import { harnessFolder } from "./harness";

type MochaConstructor = typeof MochaType;

/**
 * mocha 12 is an ES module: `require` gives its namespace where the runtime can require ES modules
 * (Node 20.19+), and an older runtime (an Electron with Node 20.18) needs `import()`.
 */
async function loadMocha(): Promise<MochaConstructor> {
  let loaded: { default?: MochaConstructor; Mocha?: MochaConstructor };
  try {
    loaded = require("mocha");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_REQUIRE_ESM") throw error;
    loaded = await import("mocha");
  }
  const constructor = loaded.default ?? loaded.Mocha;
  if (!constructor) throw new Error("mocha did not export its Mocha class");
  return constructor;
}

function writeResults(results: ResultsFile): void {
  const file = process.env[RESULTS_FILE_ENV];
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written whole and renamed, so a harness polling for the file never reads half of it.
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(results, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

export async function run(): Promise<void> {
  const tests: TestOutcome[] = [];
  let total = 0;
  let suitesNeedingBrowser: string[] = [];
  try {
    const Mocha = await loadMocha();
    const mocha = new Mocha({ ui: "tdd", timeout: 60_000, color: false });
    const specs = fs.readdirSync(__dirname).filter((name) => name.endsWith(SUITE_SUFFIX)).sort();
    if (specs.length === 0) throw new Error(`No *${SUITE_SUFFIX} suites in ${__dirname}`);
    // Suites that answer prompts or read views need the harness's browser (npm run test:e2e).
    const runnable = harnessFolder() ? specs : specs.filter((name) => !name.endsWith(BROWSER_SUITE_SUFFIX));
    suitesNeedingBrowser = specs.filter((name) => !runnable.includes(name));
    for (const spec of runnable) mocha.addFile(path.join(__dirname, spec));
    await new Promise<void>((resolve) => {
      const runner = mocha.run(() => resolve());
      total = runner.total;
      runner.on("pass", (test) => tests.push({ title: test.fullTitle(), state: "passed", durationMs: test.duration }));
      // Also reports failing hooks, which leave their tests unrun: those then count as missing.
      runner.on("fail", (failed, error) => tests.push({ title: failed.fullTitle(), state: "failed", error: errorText(error) }));
    });
  } catch (error) {
    writeResults({ total, tests, suitesNeedingBrowser, runnerError: errorText(error) });
    throw error;
  }
  writeResults({ total, tests, suitesNeedingBrowser });
  const failed = tests.filter((test) => test.state === "failed");
  if (failed.length > 0) throw new Error(`${failed.length} real-editor test(s) failed: ${failed.map((test) => test.title).join("; ")}`);
}
