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
  const sources = fs
    .readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".py"))
    .sort()
    .map((name) => fs.readFileSync(path.join(EXAMPLES, name), "utf8"));
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
