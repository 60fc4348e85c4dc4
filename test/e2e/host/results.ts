/**
 * Judges the results file the suite wrote inside the editor: the run passes only when the file
 * exists, the runner did not fail, mocha found tests, and every one of them passed.
 */
import * as fs from "node:fs";
import { ResultsFile } from "../protocol";
import { ARTIFACTS, log } from "./prepare";

function readResults(file: string): ResultsFile | undefined {
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, "utf8")) as ResultsFile;
}

/** What is wrong with the run, one line each; empty when every test passed. */
function problemsOf(results: ResultsFile | undefined): string[] {
  if (!results) return ["the suite wrote no results file (the extension host did not run it, or died)"];
  const problems: string[] = [];
  if (results.runnerError) problems.push(`the test runner failed: ${results.runnerError}`);
  if (results.total === 0 && !results.runnerError) problems.push("mocha found no tests");
  for (const test of results.tests) {
    if (test.state === "failed") problems.push(`failed: ${test.title}\n${indent(test.error ?? "")}`);
  }
  const passed = results.tests.filter((test) => test.state === "passed").length;
  if (passed + countFailedTests(results) < results.total) {
    problems.push(`${results.total - passed - countFailedTests(results)} of ${results.total} tests reported no result`);
  }
  return problems;
}

function countFailedTests(results: ResultsFile): number {
  // Failed hooks ("before all" hook ...) are reported as failures but are not tests mocha counted.
  return results.tests.filter((test) => test.state === "failed" && !/"(before|after) (all|each)" hook/.test(test.title)).length;
}

/**
 * Prints each test's outcome and everything that went wrong, the harness's own problems first;
 * returns the process exit code.
 */
export function reportRun(resultsFile: string, harnessProblems: string[]): number {
  const results = readResults(resultsFile);
  for (const test of results?.tests ?? []) log(`${test.state === "passed" ? "ok  " : "FAIL"} ${test.title}`);
  const problems = [...harnessProblems, ...problemsOf(results)];
  const leftOut = results?.suitesNeedingBrowser ?? [];
  if (leftOut.length > 0) log(`not run here, they need the browser of npm run test:e2e: ${leftOut.join(", ")}`);
  if (problems.length === 0) {
    log(`${summaryOf(results)}; artifacts in ${ARTIFACTS}`);
  } else {
    console.error(`[e2e] ${summaryOf(results)}; logs, results and screenshots in ${ARTIFACTS}`);
    for (const problem of problems) console.error(`[e2e] ${problem}`);
  }
  // The plain closing line CI reads: a test that never reported counts as failed.
  const passed = results?.tests.filter((test) => test.state === "passed").length ?? 0;
  console.log(`e2e: ${passed} passed, ${Math.max((results?.total ?? 0) - passed, problems.length > 0 ? 1 : 0)} failed`);
  return problems.length === 0 ? 0 : 1;
}

function summaryOf(results: ResultsFile | undefined): string {
  if (!results) return "no results";
  const passed = results.tests.filter((test) => test.state === "passed").length;
  return `${passed} of ${results.total} real-editor tests passed`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
