/**
 * `mapConcurrently`, which every run of the CLI checks its files with: results in the items'
 * order, at most `limit` in flight, and a turn of the event loop every ITEMS_PER_EVENT_LOOP_TURN
 * items even when no item waits for anything, so that Node runs the finalizers that free the
 * native memory of the syntax trees already checked.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ITEMS_PER_EVENT_LOOP_TURN, mapConcurrently } from "../../server/src/cli/files";

describe("mapConcurrently", () => {
  test("keeps the items' order and the limit, whatever order the items finish in", async () => {
    let inFlight = 0;
    let most = 0;
    const items = Array.from({ length: 40 }, (_, i) => i);
    const results = await mapConcurrently(items, 3, async (item) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, (item * 7) % 5));
      inFlight--;
      return item * 2;
    });
    assert.deepEqual(results, items.map((item) => item * 2));
    assert.equal(most, 3);
  });

  test("returns to the event loop while items that wait for nothing are done", async () => {
    const items = Array.from({ length: ITEMS_PER_EVENT_LOOP_TURN * 8 }, (_, i) => i);
    let done = 0;
    const seenByTheEventLoop: number[] = [];
    const watch = () =>
      setImmediate(() => {
        seenByTheEventLoop.push(done);
        if (done < items.length) watch();
      });
    watch();
    // Settles at once, as a check does that reads its file synchronously and needs no baseline.
    await mapConcurrently(items, 4, async (item) => {
      done++;
      return item;
    });
    const during = seenByTheEventLoop.filter((count) => count > 0 && count < items.length);
    assert.ok(during.length >= 6, `the event loop turned ${during.length} times during the run: ${seenByTheEventLoop.join(", ")}`);
    assert.ok(during.every((count, i) => i === 0 || count - during[i - 1] < ITEMS_PER_EVENT_LOOP_TURN + 4), `at most ${ITEMS_PER_EVENT_LOOP_TURN} items, and those in flight, between two turns: ${during.join(", ")}`);
  });
});
