/**
 * The suite's side of the file protocol with the harness's browser: each request is a file the
 * harness answers with another. Used for what the extension API cannot do from inside the editor:
 * screenshots, answering prompts and dialogs, clicking and reading the workbench.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { answerFile, HARNESS_DIR_ENV, HarnessAnswer, HarnessRequest, requestFile } from "../protocol";

const ANSWER_TIMEOUT_MS = 30_000;
let sequence = 0;

export function harnessFolder(): string | undefined {
  return process.env[HARNESS_DIR_ENV] || undefined;
}

/** Sends a request and waits for its answer; throws when the harness could not do it. */
export async function ask(request: HarnessRequest): Promise<HarnessAnswer> {
  const folder = harnessFolder();
  if (!folder) throw new Error(`No harness browser (${HARNESS_DIR_ENV} is not set): run this suite with npm run test:e2e`);
  const id = `${String(++sequence).padStart(4, "0")}-${request.action}`;
  const answerPath = path.join(folder, answerFile(id));
  // Written whole and renamed, so the harness never reads half a request.
  const requestPath = path.join(folder, requestFile(id));
  fs.writeFileSync(`${requestPath}.tmp`, JSON.stringify(request));
  fs.renameSync(`${requestPath}.tmp`, requestPath);
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  while (!fs.existsSync(answerPath)) {
    if (Date.now() > deadline) throw new Error(`The harness did not answer ${JSON.stringify(request)} within ${ANSWER_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const answer = JSON.parse(fs.readFileSync(answerPath, "utf8")) as HarnessAnswer;
  if (!answer.ok) throw new Error(`The harness could not ${request.action} (${JSON.stringify(request)}): ${answer.error}`);
  return answer;
}

/** A screenshot when a harness browser is there; nothing otherwise (npm run test:vscode). */
export async function screenshot(name: string): Promise<void> {
  if (harnessFolder()) await ask({ action: "screenshot", name });
}
