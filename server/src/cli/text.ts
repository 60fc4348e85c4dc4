/** The human format: one `path:line:col: CODE message` line per finding, then a summary, as ruff prints them. */
import { alsoAtLines, ruleByCode, Severity } from "../engine";
import { Finding, RunReport } from "./findings";

const SEVERITY_ORDER: readonly Severity[] = ["error", "warning", "info", "hint"];

function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

export function formatText(report: RunReport): string {
  const lines: string[] = [];
  for (const f of report.findings) {
    lines.push(`${f.path}:${f.line}:${f.column}: ${f.code} ${f.message}${alsoAt(f)}`);
    // --show-fixes without --fix: what fixing would do, under each finding that has a fix.
    if (report.showFixes && !report.fixMode && f.fix) lines.push(`  fix (${f.fix.safe ? "safe" : "unsafe"}): ${f.fix.title}`);
  }
  if (report.showFixes && report.fixedByFile.length > 0) lines.push(...fixedList(report));
  lines.push(...summary(report));
  return lines.join("\n") + "\n";
}

/** `--fix --show-fixes`: the findings the fixes removed, per file and code, as ruff lists them. */
function fixedList(report: RunReport): string[] {
  const total = report.fixedByFile.reduce((sum, file) => sum + Object.values(file.codes).reduce((a, b) => a + b, 0), 0);
  const lines = [`${report.fixMode ? "Fixed" : "Would fix"} ${count(total, "problem")}:`];
  for (const file of report.fixedByFile) {
    lines.push(`- ${file.path}:`);
    for (const code of Object.keys(file.codes).sort()) lines.push(`    ${file.codes[code]} × ${code} (${ruleByCode(code)?.name ?? code})`);
  }
  return lines;
}

/** Whether fixing, as asked (`--unsafe-fixes` or not), would apply the finding's fix. */
export function isFixable(finding: Finding, unsafeFixes: boolean): boolean {
  return finding.fix !== null && (finding.fix.safe || unsafeFixes);
}

/** ` (also at lines 12 and 15)`: the finding's other places, which are not findings of their own. */
function alsoAt(finding: Finding): string {
  const also = alsoAtLines(finding.related.map((r) => r.line));
  return also && ` (${also})`;
}

function summary(report: RunReport): string[] {
  const { findings, failures } = report;
  const lines: string[] = [];
  if (report.fixed > 0) lines.push(`Fixed ${count(report.fixed, "problem")} in ${count(report.fixedFiles, "file")}.`);
  if (findings.length > 0) {
    const bySeverity = SEVERITY_ORDER.map((severity) => [severity, findings.filter((f) => f.severity === severity).length] as const)
      .filter(([, n]) => n > 0)
      .map(([severity, n]) => count(n, severity, severity === "info" ? "info" : `${severity}s`));
    const fixable = findings.filter((f) => isFixable(f, report.unsafeFixes)).length;
    const fixableNote = fixable > 0 && !report.fixMode ? `; ${fixable} fixable with --fix${report.unsafeFixes ? " --unsafe-fixes" : ""}` : "";
    lines.push(`Found ${count(findings.length, "problem")} (${bySeverity.join(", ")})${fixableNote}.`);
  } else if (failures.length > 0) {
    lines.push("No problems found in what could be checked.");
  } else {
    lines.push("All checks passed!");
  }
  if (failures.length > 0) {
    const paths = new Set(failures.map((f) => f.path)).size;
    lines.push(`${count(paths, "path")} could not be checked completely; see the errors above.`);
  }
  return lines;
}
