/**
 * Rules that prove an absence (a missing method, no `external_id_key`, no call of
 * `execute_resumable`) stay silent where the parser could not read: a line of the class body, or of
 * a base class's body, that does not parse may hold what they look for. Each case is checked with
 * the broken line and without it, so the test fails if the rule is silent for another reason.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lint, PythonDocument } from "../../server/src/engine";

const HEADER = "from airflow.sdk import BaseOperator, ResumableJobMixin\n\n\n";
const METHODS = [
  "    def execute(self, context):",
  "        return self.execute_resumable(context)",
  "    def submit_job(self, context):",
  "        return 1",
  "    def get_job_status(self, external_id, context):",
  '        return "RUNNING"',
  "    def is_job_active(self, status):",
  "        return False",
  "    def is_job_succeeded(self, status):",
  "        return True",
  "    def poll_until_complete(self, external_id, context):",
  "        pass",
  "    def get_job_result(self, external_id, context):",
  "        return None",
];

function found(text: string, code: string): string[] {
  return lint(new PythonDocument("file:///dag.py", text), { select: [code] }).map((d) => `${d.code}@${d.range.start.line + 1}`);
}

/** A class whose body has `broken` among its lines, once with and once without that line. */
function withAndWithout(lines: string[], broken: string): { broken: string; fixed: string } {
  const text = (body: string[]) => `${HEADER}class BatchOperator(ResumableJobMixin, BaseOperator):\n${body.join("\n")}\n\n\nBatchOperator(task_id="batch")\n`;
  return { broken: text(lines), fixed: text(lines.filter((l) => l !== broken)) };
}

describe("absence-proving rules on code that does not parse", () => {
  for (const broken of ["    notes = (1,", "    def helper(self:\n        pass", '    label = "unclosed']) {
    test(`AS308: a class that sets its key, with \`${broken.split("\n")[0].trim()}\` in its body`, () => {
      const lines = [broken, '    external_id_key = "batch_id"', ...METHODS];
      const cases = withAndWithout(lines, broken);
      assert.deepEqual(found(cases.broken, "AS308"), []);
      assert.deepEqual(found(cases.fixed, "AS308"), []);
      // Without the key, the same class parsed completely is reported.
      assert.deepEqual(found(cases.fixed.replace('    external_id_key = "batch_id"\n', ""), "AS308"), ["AS308@4"]);
      assert.deepEqual(found(cases.broken.replace('    external_id_key = "batch_id"\n', ""), "AS308"), []);
    });
  }

  test("AS303: a method the parser could not read may be the one that seems missing", () => {
    const lines = ['    external_id_key = "batch_id"', ...METHODS.slice(0, 4), "    x = [", ...METHODS.slice(4)];
    const cases = withAndWithout(lines, "    x = [");
    assert.deepEqual(found(cases.broken, "AS303"), []);
    assert.deepEqual(found(cases.fixed, "AS303"), []);
    const missing = (text: string) => text.replace("    def get_job_result(self, external_id, context):\n        return None\n", "");
    assert.deepEqual(found(missing(cases.fixed), "AS303"), ["AS303@4"]);
    assert.deepEqual(found(missing(cases.broken), "AS303"), []);
  });

  test("AS303 and AS308: a base class of the file whose body does not parse", () => {
    const base = (body: string) => `${HEADER}class BaseBatch(ResumableJobMixin, BaseOperator):\n${body}\n    def execute(self, context):\n        return self.execute_resumable(context)\n\n\nclass NightlyBatch(BaseBatch):\n    def submit_job(self, context):\n        return 1\n\n\nNightlyBatch(task_id="n")\n`;
    assert.deepEqual(found(base("    pass"), "AS303"), ["AS303@10"]);
    assert.deepEqual(found(base("    pass"), "AS308"), ["AS308@10"]);
    assert.deepEqual(found(base("    x = (1,"), "AS303"), []);
    assert.deepEqual(found(base("    x = (1,"), "AS308"), []);
  });

  test("AS302: an execute whose body does not parse may call execute_resumable where the parser could not read", () => {
    const execute = (line: string) => `${HEADER}class BatchOperator(ResumableJobMixin, BaseOperator):\n    def execute(self, context):\n${line}\n        return self.execute_resumable(context)\n`;
    assert.deepEqual(found(execute('        self.log.info("start"'), "AS302"), []);
    assert.deepEqual(found(execute('        self.log.info("start")').replace("        return self.execute_resumable(context)\n", "        self.submit()\n"), "AS302"), ["AS302@5"]);
  });
});
