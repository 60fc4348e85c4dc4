/**
 * The language server's young generations stay at their starting size (youngGenerations.ts), also
 * after a worker thread starts, whose new isolate sets V8's growth factor back to its default; the
 * workspace check threads start with a larger one. Each case runs in a process of its own, since
 * the flags are the whole process's: the process imports the module as the
 * connection thread does, starts a worker that imports it as the worker bundle does (or not),
 * then allocates objects that survive several scavenges, as a burst of lints does, and reports
 * its young generation's committed size.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, test } from "node:test";

const MODULE = path.join(__dirname, "..", "..", "server", "src", "lsp", "startingYoungGenerations.js");
const SIZES = path.join(__dirname, "..", "..", "server", "src", "lsp", "youngGenerations.js");

/** The connection thread's young generation in MB after the burst, with a worker started first that does or does not import the module. */
function youngGenerationAfterBurst(workerImports: boolean): number {
  const program = `
    const v8 = require("node:v8");
    const { Worker } = require("node:worker_threads");
    require(${JSON.stringify(MODULE)});
    const workerSource = ${JSON.stringify(workerImports ? `require(${JSON.stringify(MODULE)});` : "")} + 'require("node:worker_threads").parentPort.postMessage("started");';
    const worker = new Worker(workerSource, { eval: true });
    worker.once("message", () => {
      const kept = [];
      for (let round = 0; round < 200; round++) {
        const batch = [];
        for (let i = 0; i < 20000; i++) batch.push({ index: i, name: "n" + i });
        kept.push(batch);
        if (kept.length > 5) kept.shift();
      }
      const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
      process.stdout.write(String(young.physical_space_size / 1048576));
      worker.terminate();
    });
  `;
  return Number(execFileSync(process.execPath, ["-e", program], { encoding: "utf8" }));
}

describe("young generations of the language server", () => {
  test("stay at their starting size while a burst keeps much of what it allocates", () => {
    assert.ok(youngGenerationAfterBurst(true) <= 4, "the young generation grew");
  });

  test("a thread started with a size gets it, and a thread started once it runs gets V8's, also after a start that failed", () => {
    const program = `
      const { Worker } = require("node:worker_threads");
      const { SizedYoungGenerationStarter } = require(${JSON.stringify(SIZES)});
      const report = 'const v8 = require("node:v8"); const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space"); require("node:worker_threads").parentPort.postMessage(young.space_size / 1048576);';
      const starter = new SizedYoungGenerationStarter(8);
      try {
        starter.start(() => { throw new Error("no such script"); });
      } catch {}
      const sized = starter.start(() => new Worker(report, { eval: true }));
      sized.once("message", (sizedMb) => {
        const plain = new Worker(report, { eval: true });
        plain.once("message", (plainMb) => {
          process.stdout.write(JSON.stringify([sizedMb, plainMb]));
          sized.terminate();
          plain.terminate();
        });
      });
    `;
    const [sized, plain] = JSON.parse(execFileSync(process.execPath, ["-e", program], { encoding: "utf8" })) as number[];
    assert.ok(sized >= 8, `the sized thread's young generation: ${sized} MB`);
    assert.ok(plain < 8, `the thread started after it: ${plain} MB`);
  });

  test("grow when a worker thread starts without setting the flag again (why each entry point sets it)", () => {
    assert.ok(youngGenerationAfterBurst(false) > 8, "a new isolate no longer sets the growth factor back, or V8 no longer grows the young generation");
  });
});
