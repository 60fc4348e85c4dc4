/**
 * `--statistics`: how many findings each rule reported, most first, instead of the findings, as
 * ruff prints them; `[*]` marks a rule whose findings all have a fix that `--fix` would apply.
 */
import { compareStrings } from "./files";
import { RunReport } from "./findings";
import { isFixable } from "./text";

interface RuleCount {
  code: string;
  name: string;
  count: number;
  fixable: number;
}

function counts(report: RunReport): RuleCount[] {
  const byCode = new Map<string, RuleCount>();
  for (const f of report.findings) {
    const entry = byCode.get(f.code) ?? { code: f.code, name: f.name, count: 0, fixable: 0 };
    entry.count++;
    if (isFixable(f, report.unsafeFixes)) entry.fixable++;
    byCode.set(f.code, entry);
  }
  return [...byCode.values()].sort((a, b) => b.count - a.count || compareStrings(a.code, b.code));
}

export function formatStatistics(report: RunReport, format: "text" | "json"): string {
  const rules = counts(report);
  if (format === "json") return JSON.stringify(rules, null, 2) + "\n";
  if (rules.length === 0) return "";
  const width = Math.max(...rules.map((r) => String(r.count).length));
  return rules.map((r) => `${String(r.count).padStart(width)}\t${r.code}\t${r.fixable === r.count ? "[*]" : "[ ]"} ${r.name}`).join("\n") + "\n";
}
