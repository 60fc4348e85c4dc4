/** The synthetic DAG files `npm run bench` lints: two shapes, so the ratios are not only about one extreme. */
import * as fs from "node:fs";
import * as path from "node:path";

/** Store-dense: every task reads and writes both stores, so every line is something the rules look at. */
export function storeDenseFile(tasks: number): string {
  const lines = ["from datetime import datetime, timezone", "from airflow.sdk import Asset, dag, task", 'ORDERS = Asset(name="o", uri="s3://o")', ""];
  for (let i = 0; i < tasks; i++) {
    lines.push(
      `@task(outlets=[ORDERS], retries=3)`,
      `def step_${i}(task_state_store=None, asset_state_store=None):`,
      `    page = task_state_store.get("page_${i}", default=0)`,
      `    for n in range(page, 100):`,
      `        task_state_store.set("page_${i}", n)`,
      `    asset_state_store[ORDERS].set("watermark_${i}", datetime.now(tz=timezone.utc).isoformat())`,
      `    return {"rows": page * ${i}}`,
      "",
    );
  }
  return lines.join("\n");
}

const EXAMPLES = path.join(__dirname, "..", "..", "..", "examples", "dags");

/**
 * Realistic: the example DAGs (operators, ResumableJobMixin classes, `with DAG` and `@dag` files,
 * Variables, submit-and-poll loops, a few store calls each) concatenated `copies` times. Each copy's
 * module-level names get a suffix, so copies do not rebind each other's definitions and constants.
 */
export function examplesFile(copies: number): string {
  const sources = exampleDags();
  const parts: string[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const [index, source] of sources.entries()) {
      const defined = new Set<string>();
      for (const match of source.matchAll(/^(?:def|class|async def)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*=/gm)) defined.add(match[1] ?? match[2]);
      let renamed = source;
      for (const name of defined) renamed = renamed.replace(new RegExp(`\\b${name}\\b`, "g"), `${name}_${copy}_${index}`);
      parts.push(renamed);
    }
  }
  return parts.join("\n\n");
}

/**
 * The store-dense DAG of the language server probes (/work/shared/bench/lsp_latency.js): one `@dag`
 * function of `lines` lines whose tasks each write the task store twice, one value not JSON, one
 * retention not a timedelta.
 */
export function storeDenseDag(lines: number): string {
  const out = ["from datetime import datetime, timedelta", "from airflow.sdk import dag, task, Asset", "", 'ORDERS = Asset(name="orders", uri="s3://x/orders")', "", "@dag(schedule=None)", "def big():"];
  for (let i = 0; out.length < lines - 2; i++) {
    out.push(
      "    @task(retries=2, outlets=[ORDERS])",
      `    def t${i}(asset_state_store=None, **context):`,
      '        tss = context["task_state_store"]',
      `        tss.set("k${i}", datetime.now(), retention=7)`,
      `        tss.set("ok${i}", {"n": ${i}})`,
      `        value_${i} = ${i} * 2`,
      "",
    );
  }
  out.push("big()", "");
  return out.join("\n");
}

/** The example DAGs' texts, one per file, for opening many documents at once. */
export function exampleDags(): string[] {
  return fs
    .readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".py"))
    .sort()
    .map((name) => fs.readFileSync(path.join(EXAMPLES, name), "utf8"));
}

/**
 * `count` operator classes, each deriving from the one before: the first a complete
 * ResumableJobMixin operator, every tenth setting its own `external_id_key`. Resolving each class's
 * bases and method resolution order naively costs O(count²).
 */
export function chainedClasses(count: number): string {
  const lines = [
    "from airflow.sdk import BaseOperator, ResumableJobMixin",
    "",
    "",
    "class Step0(ResumableJobMixin, BaseOperator):",
    '    external_id_key = "step_0_job_id"',
    "",
    "    def execute(self, context):",
    "        return self.execute_resumable(context)",
    "",
    "    def submit_job(self, context):",
    "        return submit(context)",
    "",
    "    def get_job_status(self, external_id, context):",
    "        return status(external_id)",
    "",
    "    def is_job_active(self, status):",
    '        return status == "RUNNING"',
    "",
    "    def is_job_succeeded(self, status):",
    '        return status == "SUCCEEDED"',
    "",
    "    def poll_until_complete(self, external_id, context):",
    "        wait(external_id)",
    "",
    "    def get_job_result(self, external_id, context):",
    "        return result(external_id)",
  ];
  for (let i = 1; i < count; i++) {
    lines.push("", "", `class Step${i}(Step${i - 1}):`, i % 10 === 0 ? `    external_id_key = "step_${i}_job_id"` : `    """Step ${i}."""`);
  }
  return lines.join("\n") + "\n";
}

/** A task reading a store through an attribute chain `depth` long (`task_state_store.a.a.a…`). */
export function attributeChain(depth: number): string {
  return ["from airflow.sdk import task", "", "", "@task", "def deep(task_state_store=None):", `    return task_state_store${".a".repeat(depth)}.get("k")`, ""].join("\n");
}

/** A store `set` whose value is a list nested `depth` deep (`[[[…]]]`). */
export function nestedValue(depth: number): string {
  return ["from airflow.sdk import task", "", "", "@task", "def deep(task_state_store=None):", `    task_state_store.set("k", ${"[".repeat(depth)}1${"]".repeat(depth)})`, ""].join("\n");
}
