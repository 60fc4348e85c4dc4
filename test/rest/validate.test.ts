/** Unit tests of validate.ts and formatDetail, checked against the emulator's Python-style JSON. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ValueValidationError,
  checkKey,
  checkStateValue,
  formatDetail,
  normalizeExpiresAt,
  parseStateValue,
  pythonJsonLength,
  type JsonValue,
} from "../../client/src/rest";
import { CancelledError, Semaphore } from "../../client/src/rest";
import { stringifyLossless } from "../../client/src/rest/json";
import { pyJsonDumps, pyJsonLoads, type PyJson } from "../emulator";

describe("pythonJsonLength", () => {
  it("equals the length of Python's json.dumps text for known outputs", () => {
    const known: [JsonValue, string][] = [
      [{ a: [1, 2.5, "é"], b: null }, '{"a": [1, 2.5, "\\u00e9"], "b": null}'],
      [0.00001, "1e-05"],
      [0.0001, "0.0001"],
      [1e-7, "1e-07"],
      [1e21, "1e+21"],
      [1.5e300, "1.5e+300"],
      [1e16, "10000000000000000"],
      [-0, "0"],
      [123456.789, "123456.789"],
      ["🚀", '"\\ud83d\\ude80"'],
      ["\u007f\u0001\t", '"\\u007f\\u0001\\t"'],
      [[], "[]"],
      [{}, "{}"],
      [[true, false, null, {}], "[true, false, null, {}]"],
    ];
    for (const [value, python] of known) {
      assert.equal(pyJsonDumps(value as PyJson), python, `emulator dumps of ${JSON.stringify(value)}`);
      assert.equal(pythonJsonLength(value), python.length, `client length of ${JSON.stringify(value)}`);
    }
  });

  it("agrees with the emulator on many generated values", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = ["a", "Z", " ", '"', "\\", "\n", "\u0000", "é", "中", "🚀", "\u007f", "~"];
    const gen = (depth: number): JsonValue => {
      const r = rand();
      if (depth > 3 || r < 0.3) {
        const k = rand();
        if (k < 0.2) return Math.floor(rand() * 1e6) - 5e5;
        if (k < 0.4) return (rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20);
        if (k < 0.5) return rand() < 0.5;
        if (k < 0.55) return null;
        return Array.from({ length: Math.floor(rand() * 8) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
      }
      if (r < 0.65) return Array.from({ length: Math.floor(rand() * 5) }, () => gen(depth + 1));
      const obj: Record<string, JsonValue> = {};
      for (let i = 0; i < Math.floor(rand() * 5); i++) obj[`k${i}${alphabet[Math.floor(rand() * alphabet.length)]}`] = gen(depth + 1);
      return obj;
    };
    for (let i = 0; i < 500; i++) {
      const value = gen(0);
      // what the server sees is the JSON text the client sends
      const received = pyJsonLoads(JSON.stringify(value));
      assert.equal(pythonJsonLength(value), pyJsonDumps(received).length, JSON.stringify(value));
    }
  });
});

describe("checkStateValue / parseStateValue", () => {
  it("returns the JSON text of a valid value and enforces the limit", () => {
    assert.equal(checkStateValue({ a: [1, "x"] }), '{"a":[1,"x"]}');
    assert.equal(checkStateValue("x".repeat(8), { maxLength: 10 }), '"xxxxxxxx"');
    assert.throws(() => checkStateValue("x".repeat(9), { maxLength: 10 }), (e: unknown) => e instanceof ValueValidationError && e.problem === "too-long");
    assert.doesNotThrow(() => checkStateValue("x".repeat(9), { maxLength: 0 }));
    assert.throws(() => checkStateValue(1, { maxLength: -1 }), (e: unknown) => e instanceof ValueValidationError && e.problem === "parameter");
  });

  it("parses typed JSON text, naming NaN / Infinity tokens with their position", () => {
    assert.equal(stringifyLossless(parseStateValue('{"a": [1, 2.0, 9007199254740993]}')), '{"a":[1,2.0,9007199254740993]}');
    assert.throws(
      () => parseStateValue('{\n  "score": NaN\n}'),
      (e: unknown) => e instanceof ValueValidationError && e.problem === "non-finite" && /NaN \(line 2, column 12\) is not allowed/.test(e.message),
    );
    assert.throws(() => parseStateValue("[-Infinity]"), /-Infinity \(line 1, column 2\)/);
    assert.throws(() => parseStateValue('"NaN is fine in a string" x'), (e: unknown) => e instanceof ValueValidationError && e.problem === "syntax");
    assert.equal(parseStateValue('"NaN"'), "NaN");
    assert.throws(() => parseStateValue("null"), (e: unknown) => e instanceof ValueValidationError && e.problem === "null");
    assert.throws(() => parseStateValue("{'a': 1}"), /not valid JSON/);
    assert.throws(() => parseStateValue(JSON.stringify("x".repeat(20)), { maxLength: 10 }), /22 characters, over the limit of 10/);
  });
});

describe("normalizeExpiresAt / checkKey", () => {
  it("maps expiry inputs to what the API takes", () => {
    assert.equal(normalizeExpiresAt(undefined), "default");
    assert.equal(normalizeExpiresAt("default"), "default");
    assert.equal(normalizeExpiresAt(null), null);
    assert.equal(normalizeExpiresAt(new Date(Date.UTC(2026, 6, 1))), "2026-07-01T00:00:00.000Z");
    assert.equal(normalizeExpiresAt(" 2026-07-01T00:00:00+02:00 "), "2026-07-01T00:00:00+02:00");
    assert.throws(() => normalizeExpiresAt("2026-07-01T00:00:00"), /no time zone/);
    assert.throws(() => normalizeExpiresAt("2026-13-01T00:00:00Z"), /not a valid date-time/);
    assert.throws(() => normalizeExpiresAt("2026-07-01T24:00:00Z"), /not a valid date-time/);
  });

  it("accepts ordinary keys and refuses unaddressable ones", () => {
    for (const ok of ["a", "a/b", "...", " ", "k".repeat(512)]) assert.equal(checkKey(ok), ok);
    for (const bad of ["", ".", "..", "k".repeat(513), 5 as unknown as string]) {
      assert.throws(() => checkKey(bad), (e: unknown) => e instanceof ValueValidationError && e.problem === "key");
    }
  });
});

describe("formatDetail", () => {
  it("renders strings, 422 lists, and anything else readably", () => {
    assert.equal(formatDetail("Forbidden"), "Forbidden");
    assert.equal(formatDetail(undefined), "");
    assert.equal(
      formatDetail([
        { type: "value_error", loc: ["body", "value"], msg: "Value error, value cannot be null" },
        { type: "extra_forbidden", loc: ["body", "ttl"], msg: "Extra inputs are not permitted" },
      ]),
      "value: Value error, value cannot be null (loc body.value); ttl: Extra inputs are not permitted (loc body.ttl)",
    );
    assert.equal(formatDetail([{ type: "json_invalid", loc: ["body", 12], msg: "JSON decode error" }]), "body: JSON decode error (loc body.12)");
    assert.equal(formatDetail([{ loc: [], msg: "odd" }]), "request: odd (loc )");
    assert.equal(formatDetail({ reason: "x" }), '{"reason":"x"}');
    assert.equal(formatDetail(["plain"]), "plain");
  });
});

describe("Semaphore", () => {
  it("hands slots over in order and never exceeds its size", async () => {
    const sem = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sem.run(async () => {
          active++;
          peak = Math.max(peak, active);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          active--;
        }),
      ),
    );
    assert.equal(peak, 2);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.equal(sem.inUse, 0);
    assert.throws(() => new Semaphore(0), RangeError);
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(sem.acquire(aborted.signal), CancelledError);
    assert.equal(sem.inUse, 0);
  });
});

describe("values nested deep, and numbers as text", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it("refuses a 10,000-deep value with a clear message instead of a RangeError (object and text)", () => {
    const tooDeep = (e: unknown) => e instanceof ValueValidationError && e.problem === "too-deep" && /nested deeper than 1000 levels/.test(e.message);
    assert.throws(() => checkStateValue(nested(10_000)), tooDeep);
    assert.throws(() => parseStateValue(`${"[".repeat(10_000)}${"]".repeat(10_000)}`), tooDeep);
    assert.throws(() => parseStateValue(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`), tooDeep);
    assert.throws(() => checkStateValue(nested(1001)), tooDeep);
    assert.equal(checkStateValue(nested(1000)).length, 2001, "1000 levels are still fine");
    assert.equal(stringifyLossless(parseStateValue(`${"[".repeat(1000)}${"]".repeat(1000)}`)).length, 2000);
    assert.equal(parseStateValue('"[[[[[[[[[[[[[[[[[[[[[[[[[[[["'), "[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "brackets in a string do not count");
  });

  it("keeps each number's text and measures it as Python writes it back", () => {
    const value = parseStateValue("[1.0, -0.0, 1e5, 1.10, -0, 9007199254740993, 2.5E-7]");
    assert.equal(stringifyLossless(value), "[1.0,-0.0,1e5,1.10,-0,9007199254740993,2.5E-7]");
    const python = "[1.0, -0.0, 100000.0, 1.1, 0, 9007199254740993, 2.5e-07]";
    assert.equal(pyJsonDumps(pyJsonLoads(stringifyLossless(value))), python, "the emulator, standing for Python, agrees");
    assert.equal(pythonJsonLength(value), python.length);
  });

  it("refuses what Python cannot read: a float beyond the double range, an int over 4300 digits", () => {
    assert.throws(() => parseStateValue("[1e400]"), (e: unknown) => e instanceof ValueValidationError && e.problem === "non-finite" && /1e400 at \$\[0\] is too large for a float/.test(e.message));
    assert.equal(stringifyLossless(parseStateValue(`1${"0".repeat(400)}`)), `1${"0".repeat(400)}`, "a long int is exact in Python");
    assert.throws(() => parseStateValue(`{"n": 1${"0".repeat(4300)}}`), /integer at \$\.n has 4301 digits/);
  });
});
