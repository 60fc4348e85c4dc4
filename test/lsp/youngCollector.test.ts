/**
 * The lint worker's young-generation collection between lints: once after the last queued lint
 * is answered, never while another lint waits, and not at all where V8's collector is not exposed.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { YoungCollector } from "../../server/src/lsp/youngCollector";

function deferred() {
  const callbacks: (() => void)[] = [];
  return { defer: (callback: () => void) => void callbacks.push(callback), run: () => callbacks.splice(0).forEach((callback) => callback()), pending: () => callbacks.length };
}

describe("YoungCollector", () => {
  test("collects once after lints are answered, when nothing arrived meanwhile", () => {
    const turns = deferred();
    let collections = 0;
    const collector = new YoungCollector(() => collections++, () => true, turns.defer);
    collector.lintsAnswered();
    collector.lintsAnswered();
    assert.equal(collections, 0, "not inside the turn that answered the lint");
    assert.equal(turns.pending(), 1);
    turns.run();
    assert.equal(collections, 1);
    collector.lintsAnswered();
    turns.run();
    assert.equal(collections, 2);
  });

  test("a lint queued before the collection runs skips it", () => {
    const turns = deferred();
    let collections = 0;
    let queued = 0;
    const collector = new YoungCollector(() => collections++, () => queued === 0, turns.defer);
    collector.lintsAnswered();
    queued = 1;
    turns.run();
    assert.equal(collections, 0);
    queued = 0;
    collector.lintsAnswered();
    turns.run();
    assert.equal(collections, 1);
  });

  test("without an exposed collector nothing is scheduled", () => {
    const turns = deferred();
    new YoungCollector(undefined, () => true, turns.defer).lintsAnswered();
    assert.equal(turns.pending(), 0);
  });
});
