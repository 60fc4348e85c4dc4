/**
 * `npm run test:e2e`: runs the real-editor suite in code-server with Debian's chromium driven by
 * playwright-core. The extension under test is installed from the .vsix; the suite runs from a
 * driver extension that the workbench loads as a development extension named in the page URL's
 * `payload` (code-server refuses --extensionDevelopmentPath on its command line). The extension
 * host starts once the browser opens the page, and the suite writes the results file this harness
 * judges (nothing else reports failures).
 * Meanwhile the harness does in the browser what the suite asks (screenshots, answering prompts
 * and dialogs, reading views) and runs the Airflow emulator the store browser suite talks to.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { chromium, Browser, Page } from "playwright-core";
import { EmulatorHandle, startEmulator } from "../../emulator";
import { EMULATOR_URL_ENV, EXTENSION_ID, EXTENSION_LOGS_ENV, HARNESS_DIR_ENV, RESULTS_FILE_ENV } from "../protocol";
import { CodeServer, delay, ensureCodeServer, extensionsDirOf, startCodeServer } from "./codeServer";
import { ARTIFACTS, log, prepare, Prepared, SUITE_ENTRY } from "./prepare";
import { answerPendingRequests } from "./requests";
import { reportRun } from "./results";

const SUITE_TIMEOUT_MS = 5 * 60_000;
const CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

function chromiumPath(): string {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : CHROMIUM_CANDIDATES;
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`No chromium at ${candidates.join(" or ")}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return found;
}

/**
 * A tiny development extension whose activation runs the suite. Under `extensionTestsPath` VS Code
 * refuses every modal dialog ("DialogService: refused to show dialog in tests"), so the store
 * browser's confirmations could not be answered; run from an extension, the suite meets the
 * workbench a user meets. (The page payload takes one extensionDevelopmentPath: the extension under
 * test is installed from its .vsix instead, as users install it.)
 */
function writeDriverExtension(folder: string): string {
  fs.mkdirSync(folder, { recursive: true });
  const manifest = {
    name: "e2e-driver",
    publisher: "airflow-state-store-tests",
    version: "0.0.0",
    description: "Runs the real-editor suite (npm run test:e2e) once the workbench has started.",
    engines: { vscode: "^1.100.0" },
    activationEvents: ["onStartupFinished"],
    main: "./driver.js",
  };
  fs.writeFileSync(path.join(folder, "package.json"), JSON.stringify(manifest, null, 2));
  const driver = [
    `const suite = require(${JSON.stringify(SUITE_ENTRY)});`,
    "// The suite writes the results file the harness reads, failures included.",
    "exports.activate = (context) => {",
    "  // The extension host's log folder, where the suite finds the tested extension's log.",
    `  process.env[${JSON.stringify(EXTENSION_LOGS_ENV)}] = require("path").dirname(context.logUri.fsPath);`,
    "  suite.run().catch(() => undefined);",
    "};",
    "",
  ].join("\n");
  fs.writeFileSync(path.join(folder, "driver.js"), driver);
  return folder;
}

/** The workbench page that opens the workspace with the suite's driver extension. */
function workbenchUrl(server: CodeServer, prepared: Prepared, driver: string): string {
  const payload = [["extensionDevelopmentPath", `vscode-remote://${server.authority}${driver}`]];
  return `${server.url}/?folder=${encodeURIComponent(prepared.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** Answers the suite's requests until the results file appears, the editor dies, or time runs out. */
async function superviseRun(page: Page, server: CodeServer, prepared: Prepared, harnessDir: string, serverLog: string, emulator: EmulatorHandle): Promise<void> {
  let serverExit: number | null | undefined;
  void server.exited.then((code) => (serverExit = code));
  const deadline = Date.now() + SUITE_TIMEOUT_MS;
  while (!fs.existsSync(prepared.resultsFile)) {
    await answerPendingRequests(page, harnessDir, emulator);
    if (serverExit !== undefined) throw new Error(`code-server exited (${serverExit}) before the suite finished`);
    // The extension host runs until code-server stops: exiting before the results exist, it died.
    if (fs.readFileSync(serverLog, "utf8").includes("Extension Host Process exited") && !fs.existsSync(prepared.resultsFile)) {
      throw new Error(`the extension host exited before the suite wrote its results; see ${serverLog}`);
    }
    if (Date.now() > deadline) throw new Error(`the suite did not finish within ${SUITE_TIMEOUT_MS / 60_000} minutes`);
    await delay(50);
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0].replace(/%c\s*\S+\s+color: #\w+\s*/, "");
}

async function main(): Promise<number> {
  const prepared = prepare();
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let emulator: EmulatorHandle | undefined;
  const cleanUp = async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await emulator?.close();
    emulator = undefined;
    prepared.cleanUp();
  };
  const interrupted = () => void cleanUp().finally(() => process.exit(130));
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);

  let harnessError: unknown;
  const workbenchComplaints: string[] = [];
  try {
    const entry = ensureCodeServer();
    const serverLog = path.join(ARTIFACTS, "code-server.log");
    const harnessDir = path.join(prepared.workDir, "harness");
    fs.mkdirSync(harnessDir);
    // The store browser suite works against it: demo data, users admin/admin and viewer/viewer.
    emulator = await startEmulator({ seed: "demo" });
    log(`Airflow emulator at ${emulator.url}`);
    const stateDir = path.join(prepared.workDir, "code-server");
    server = await startCodeServer({
      entry,
      workspace: prepared.workspace,
      stateDir,
      install: [prepared.vsix],
      env: { [RESULTS_FILE_ENV]: prepared.resultsFile, [HARNESS_DIR_ENV]: harnessDir, [EMULATOR_URL_ENV]: emulator.url },
      logFile: serverLog,
    });
    log(`code-server at ${server.url}`);

    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const consoleLog = fs.createWriteStream(path.join(ARTIFACTS, "browser-console.log"));
    page.on("console", (message) => {
      consoleLog.write(`[${message.type()}] ${message.text()}\n`);
      // The workbench reports a broken contribution (a snippet or grammar file missing from the
      // package, an invalid manifest entry) only here, naming the extension or a file inside it.
      const text = message.text();
      const aboutUs = text.includes(`[${EXTENSION_ID}]`) || text.includes(extensionsDirOf(stateDir));
      if (aboutUs && (message.type() === "error" || message.type() === "warning")) workbenchComplaints.push(firstLine(text));
    });
    page.on("pageerror", (error) => consoleLog.write(`[pageerror] ${error.stack ?? error.message}\n`));

    log("opening the workbench; the extension host runs the suite");
    const started = Date.now();
    await page.goto(workbenchUrl(server, prepared, writeDriverExtension(path.join(prepared.workDir, "driver"))));
    try {
      await superviseRun(page, server, prepared, harnessDir, serverLog, emulator);
      log(`suite finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await page.screenshot({ path: path.join(ARTIFACTS, "final.png") }).catch(() => undefined);
      consoleLog.end();
    }
  } catch (error) {
    harnessError = error;
  } finally {
    await cleanUp();
  }

  const problems = [...new Set(workbenchComplaints)].map((complaint) => `the workbench reported: ${complaint}`);
  if (harnessError) problems.unshift(`harness: ${harnessError instanceof Error ? harnessError.message : String(harnessError)}`);
  return reportRun(prepared.resultsFile, problems);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
