/** Values, expiries and keys are checked before sending: a bad one never reaches the server. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValueValidationError, type ValueProblem } from "../../client/src/rest";
import { SPARK_TI, adminClient, emulatorFor, plain } from "./helpers";

const writes = (emu: { requests: { method: string }[] }) => emu.requests.filter((r) => r.method !== "GET").length;

function rejectsWith(problem: ValueProblem, pattern?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ValueValidationError, String(err));
    assert.equal(err.problem, problem);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

describe("pre-send checks", () => {
  it("refuses null (PUT, PATCH, asset PUT) and sends nothing", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", null), rejectsWith("null", /cannot be null/));
    await assert.rejects(client.patchTaskStateEntry(SPARK_TI, "spark_job_id", null), rejectsWith("null"));
    await assert.rejects(client.putAssetStateEntry(1, "k", null), rejectsWith("null"));
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", undefined), rejectsWith("undefined"));
    assert.equal(emu.requests.length, 0, "not even a sign-in");
  });

  it("refuses NaN and ±Infinity anywhere in the value, naming where", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", NaN), rejectsWith("non-finite", /^NaN at \$ is not allowed/));
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", { rows: [1, { score: Infinity }] }), (err: unknown) => {
      rejectsWith("non-finite", /^Infinity at \$\.rows\[1\]\.score is not allowed: NaN and Infinity are not JSON/)(err);
      assert.equal((err as ValueValidationError).at, "$.rows[1].score");
      return true;
    });
    await assert.rejects(client.patchTaskStateEntry(SPARK_TI, "spark_job_id", [[-Infinity]]), rejectsWith("non-finite", /\$\[0\]\[0\]/));
    await assert.rejects(client.putAssetStateEntry(1, "k", { "odd key": NaN }), rejectsWith("non-finite", /\$\["odd key"\]/));
    assert.equal(writes(emu), 0);
    assert.equal(emu.requests.length, 0);
  });

  it("refuses values that are not JSON: functions, Dates, Maps, bigint, cycles, undefined members", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cases: [unknown, ValueProblem, RegExp][] = [
      [() => 1, "not-json", /function/],
      [new Date(), "not-json", /Date \(store its ISO string instead\)/],
      [{ at: new Map() }, "not-json", /\$\.at is a Map object/],
      [10n, "not-json", /bigint/],
      [cyclic, "cycle", /refers to itself at \$\.self/],
      [{ a: undefined }, "not-json", /undefined at \$\.a/],
      [[1, undefined], "not-json", /undefined at \$\[1\]/],
      [Symbol("s"), "not-json", /symbol/],
    ];
    for (const [value, problem, pattern] of cases) {
      await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", value), rejectsWith(problem, pattern));
    }
    // a repeated (not cyclic) reference is fine
    const shared = { x: 1 };
    await client.putTaskStateEntry(SPARK_TI, "k", { a: shared, b: shared, n: null });
    assert.deepEqual(plain((await client.getTaskStateEntry(SPARK_TI, "k")).value), { a: { x: 1 }, b: { x: 1 }, n: null });
    assert.equal(emu.requests.filter((r) => r.method === "PUT").length, 1);
  });

  it("refuses a value over the default limit of 65535 characters; the boundary matches the server's", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.putTaskStateEntry(SPARK_TI, "big", "x".repeat(65534)), (err: unknown) => {
      rejectsWith("too-long")(err);
      assert.equal(
        (err as Error).message,
        "The value is too large: its JSON text is 65536 characters, over the limit of 65535 ([state_store] max_value_storage_bytes). " +
          "Store a smaller value or a reference to external storage.",
      );
      return true;
    });
    await assert.rejects(client.patchTaskStateEntry(SPARK_TI, "spark_job_id", "x".repeat(65534)), rejectsWith("too-long"));
    await assert.rejects(client.putAssetStateEntry(1, "big", "x".repeat(65534)), rejectsWith("too-long"));
    assert.equal(writes(emu), 0);
    await client.putTaskStateEntry(SPARK_TI, "big", "x".repeat(65533)); // exactly 65535: the server accepts it too
    assert.equal((await client.getTaskStateEntry(SPARK_TI, "big")).value, "x".repeat(65533));
  });

  it("counts the JSON text the way the server does (Python separators and \\u escapes), for a configurable limit", async (t) => {
    const limit = 40;
    const emu = await emulatorFor(t, { maxValueStorageBytes: limit });
    const checking = adminClient(emu, { maxValueLength: limit });
    const unchecked = adminClient(emu, { maxValueLength: 0 });
    const values: unknown[] = [
      "x".repeat(38),
      "x".repeat(39),
      Array.from({ length: 13 }, (_, i) => i % 10), // 13 digits + 12 ", " + [] = 39
      Array.from({ length: 14 }, (_, i) => i % 10),
      { abcdefghijklmnopqrstuvwxyz: "0123456" }, // JSON.stringify: 38, Python: 39
      { abcdefghijklmnopqrstuvwxyz: "01234567" },
      "é".repeat(6), // 2 + 36
      "é".repeat(7),
      "🚀".repeat(3), // 2 + 36
      "🚀🚀🚀x",
      [0.00001, 1e-7, 1e21, 1.5], // "[1e-05, 1e-07, 1e+21, 1.5]"
      "tab\t\n\"quote\\".repeat(3),
      "\u0001\u007f".repeat(3),
      "\u0001\u007f".repeat(4),
    ];
    let accepted = 0;
    for (const [i, value] of values.entries()) {
      const key = `v${i}`;
      let clientOk = true;
      try {
        await checking.putTaskStateEntry(SPARK_TI, key, value);
      } catch (err) {
        assert.ok(err instanceof ValueValidationError && err.problem === "too-long", String(err));
        clientOk = false;
      }
      let serverOk = true;
      try {
        await unchecked.putTaskStateEntry(SPARK_TI, `${key}-server`, value);
      } catch (err) {
        assert.match(String(err), /422 .*exceeds max_value_storage_bytes \(40\)/);
        serverOk = false;
      }
      assert.equal(clientOk, serverOk, `client and server disagree on ${JSON.stringify(value)}`);
      if (clientOk) accepted++;
    }
    assert.ok(accepted >= 5 && accepted <= values.length - 5, `accepted ${accepted} of ${values.length}`);
  });

  it("a limit of 0 switches the check off", async (t) => {
    const emu = await emulatorFor(t, { maxValueStorageBytes: 0 });
    const client = adminClient(emu, { maxValueLength: 0 });
    await client.putTaskStateEntry(SPARK_TI, "huge", "y".repeat(100_000));
    assert.equal(((await client.getTaskStateEntry(SPARK_TI, "huge")).value as string).length, 100_000);
  });

  it("refuses an expiry without a time zone or that is not a date, and sends nothing", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    for (const [expiresAt, pattern] of [
      ["2026-07-01T10:00:00", /has no time zone; add one, e\.g\. "2026-07-01T10:00:00Z"/],
      ["2026-07-01", /has no time zone; add one, e\.g\. "2026-07-01T00:00:00Z"/],
      ["next week", /is not "default", null or an ISO 8601 date-time with a time zone/],
      ["2026-02-30T10:00:00Z", /is not a valid date-time/],
      [new Date("invalid"), /not a valid date/],
      [Number.POSITIVE_INFINITY, /not a number of seconds since 1970/],
      [true as unknown as string, /must be "default", null, a Date, seconds since the epoch or an ISO 8601 string/],
    ] as const) {
      await assert.rejects(client.putTaskStateEntry(SPARK_TI, "k", 1, { expiresAt }), rejectsWith("expires-at", pattern));
    }
    assert.equal(emu.requests.length, 0);
    for (const ok of ["2026-07-01T10:00:00Z", "2026-07-01T10:00:00.123456+05:30", "2026-07-01 10:00+0000", "2026-07-01T10:00:00-08"]) {
      await client.putTaskStateEntry(SPARK_TI, "k", 1, { expiresAt: ok });
    }
    assert.equal(emu.requests.filter((r) => r.method === "PUT").length, 4);
  });

  it("refuses a bad task instance reference before sending", async (t) => {
    const emu = await emulatorFor(t);
    const client = adminClient(emu);
    await assert.rejects(client.listTaskStateEntries({ ...SPARK_TI, mapIndex: -2 }), rejectsWith("parameter", /map_index must be an integer ≥ -1/));
    await assert.rejects(client.listTaskStateEntries({ ...SPARK_TI, mapIndex: 1.5 }), rejectsWith("parameter"));
    await assert.rejects(client.getTaskStateEntry({ ...SPARK_TI, taskId: "" }, "k"), rejectsWith("parameter", /non-empty task_id/));
    assert.equal(emu.requests.length, 0);
  });
});
