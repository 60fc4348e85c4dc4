/** The checks run while the user types a key, a value or an expiry. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stringifyLossless } from "../../client/src/rest/json";
import { keyProblem, localIso, parseCustomExpiry, parseValueInput } from "../../client/src/storeBrowser/entryInput";

const NOW = new Date("2026-05-03T12:00:00Z");

describe("entry input: key", () => {
  it("errors stop, warnings explain", () => {
    assert.equal(keyProblem("cursor"), undefined);
    assert.deepEqual(keyProblem(""), { message: "The key cannot be empty.", severity: "error" });
    assert.equal(keyProblem("..")?.severity, "error");
    assert.equal(keyProblem("k".repeat(513))?.severity, "error");
    assert.deepEqual(keyProblem("cursor", new Set(["cursor"])), { message: '"cursor" already exists: adding it replaces its value.', severity: "warning" });
    assert.equal(keyProblem("a/b")?.severity, "warning");
    assert.equal(keyProblem("a.b")?.severity, "warning");
  });
});

describe("entry input: value", () => {
  it("accepts any JSON but null, NaN and values over the limit", () => {
    assert.equal(stringifyLossless((parseValueInput('{"page": 3.0}', 65535) as { value: unknown }).value), '{"page":3.0}', "3.0 stays a float");
    assert.deepEqual(parseValueInput('"3"', 65535), { value: "3" });
    assert.deepEqual(parseValueInput("[null]", 65535), { value: [null] }, "null inside a list is JSON");
    assert.match((parseValueInput("null", 65535) as { problem: string }).problem, /cannot be null/);
    assert.match((parseValueInput("[1, Infinity]", 65535) as { problem: string }).problem, /Infinity \(line 1, column 5\)/);
    assert.match((parseValueInput("abc", 65535) as { problem: string }).problem, /not valid JSON/);
    assert.match((parseValueInput("  ", 65535) as { problem: string }).problem, /Type a JSON value/);
    assert.match((parseValueInput('"ééé"', 10) as { problem: string }).problem, /20 characters, over the limit of 10/, "measured as Python's json.dumps writes it");
    assert.deepEqual(parseValueInput('"ééé"', 0), { value: "ééé" }, "0 = no limit");
  });
});

describe("entry input: custom expiry", () => {
  it("takes local dates, date-times with a zone, and delays; answers an aware ISO string", () => {
    const local = parseCustomExpiry("2026-06-01", NOW) as { expiresAt: string };
    assert.equal(new Date(local.expiresAt).getTime(), new Date(2026, 5, 1).getTime(), "midnight local time");
    assert.match(local.expiresAt, /^2026-06-01T00:00:00[+-]\d{2}:\d{2}$/);
    const withTime = parseCustomExpiry("2026-06-01 18:30", NOW) as { expiresAt: string };
    assert.equal(new Date(withTime.expiresAt).getTime(), new Date(2026, 5, 1, 18, 30).getTime());
    assert.equal(new Date((parseCustomExpiry("2026-06-01T00:00:00Z", NOW) as { expiresAt: string }).expiresAt).toISOString(), "2026-06-01T00:00:00.000Z");
    assert.equal(new Date((parseCustomExpiry("7d", NOW) as { expiresAt: string }).expiresAt).toISOString(), "2026-05-10T12:00:00.000Z");
    assert.equal(new Date((parseCustomExpiry("12 hours", NOW) as { expiresAt: string }).expiresAt).toISOString(), "2026-05-04T00:00:00.000Z");
  });

  it("refuses the past, impossible dates and free text", () => {
    assert.match((parseCustomExpiry("2026-05-01", NOW) as { problem: string }).problem, /already passed/);
    assert.match((parseCustomExpiry("2026-02-30", NOW) as { problem: string }).problem, /not a valid date/);
    assert.match((parseCustomExpiry("next week", NOW) as { problem: string }).problem, /not "default", null or an ISO 8601 date-time/);
    assert.match((parseCustomExpiry("", NOW) as { problem: string }).problem, /Type a date/);
  });

  it("writes the local offset", () => {
    const date = new Date(2026, 0, 15, 9, 5, 7);
    const iso = localIso(date);
    assert.equal(new Date(iso).getTime(), date.getTime());
    assert.match(iso, /^2026-01-15T09:05:07[+-]\d{2}:\d{2}$/);
  });
});
