/** The whole-process timing the CLI bench compares the CLI's threads with. */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { TempFolder } from "../support/tempFolder";
import { timeProcessesAtOnce } from "./measure";

/** Leaves a mark in the folder, then waits for `count` marks: a copy started after another one had ended would wait in vain and fail. */
const MEET = `
  const fs = require("node:fs");
  const [folder, count] = process.argv.slice(1);
  fs.writeFileSync(folder + "/" + process.pid, "");
  const givingUp = Date.now() + 20000;
  const wait = () => {
    if (fs.readdirSync(folder).length >= Number(count)) process.exit(0);
    if (Date.now() > givingUp) process.exit(3);
    setTimeout(wait, 10);
  };
  wait();`;

describe("timeProcessesAtOnce", () => {
  const temp = new TempFolder("measure-test-");
  after(() => temp.remove());

  it("runs every copy at the same time and answers the wall clock of all", () => {
    temp.write("meet/.keep", "");
    const folder = temp.file("meet");
    const ms = timeProcessesAtOnce(3, process.execPath, ["-e", MEET, folder, "4"]);
    assert.ok(Number.isFinite(ms) && ms > 0);
  });

  it("fails when a copy exits with an error", () => {
    assert.throws(() => timeProcessesAtOnce(2, process.execPath, ["-e", "process.exit(5)"]), /exited with/);
  });
});
