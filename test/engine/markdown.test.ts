import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codeSpan } from "../../server/src/engine/syntax/markdown";

describe("codeSpan", () => {
  test("fences text without backticks with one backtick, as written by hand", () => {
    assert.equal(codeSpan('task_state_store.delete("a")'), '`task_state_store.delete("a")`');
  });

  test("fences with a run one longer than the longest run inside", () => {
    assert.equal(codeSpan('delete("a`b")'), '``delete("a`b")``');
    assert.equal(codeSpan("a``b`c"), "```a``b`c```");
  });

  test("pads a backtick at the start or end so it does not join the fence", () => {
    assert.equal(codeSpan("`x"), "`` `x ``");
    assert.equal(codeSpan("x`"), "`` x` ``");
    assert.equal(codeSpan("``"), "``` `` ```");
  });

  test("pads text with a space at both ends, which CommonMark would otherwise strip", () => {
    assert.equal(codeSpan(" x "), "`  x  `");
    assert.equal(codeSpan(" x"), "` x`");
  });

  test("shows line breaks as spaces: a code span is on one line", () => {
    assert.equal(codeSpan("a\nb\r\nc"), "`a b c`");
    assert.equal(codeSpan("a\n`b"), "``a `b``");
  });
});
