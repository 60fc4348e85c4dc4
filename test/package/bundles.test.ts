/**
 * What the bundles cost each thread that loads them. V8 keeps a script's source in every isolate
 * that runs it, at one byte per character only when every character is ASCII (two otherwise). The
 * language server's bundle runs in its connection thread and in each lint and workspace-check
 * thread, the CLI's in every checking thread: esbuild escapes what strings and regular expressions
 * hold, but keeps the comments of class members as written, and one `→` there doubled a 1 MB
 * bundle in each of them.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { fromRoot } from "../support/paths";

/** The bundles that run in more than one thread. */
const THREADED_BUNDLES = ["dist/server.js", "dist/workerMain.js", "dist/cli.js"];

describe("the bundles", () => {
  for (const bundle of THREADED_BUNDLES) {
    test(`${bundle} is ASCII, so each thread holds its source at one byte per character`, () => {
      const lines = fs.readFileSync(fromRoot(bundle), "utf8").split("\n");
      const offending = lines.flatMap((line, index) => (/[^\x00-\x7f]/.test(line) ? [`line ${index + 1}: ${line.trim().slice(0, 120)}`] : []));
      assert.deepEqual(offending, [], `non-ASCII characters (write "->", "...", "-" in comments the bundle keeps)`);
    });
  }
});
