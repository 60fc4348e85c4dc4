/** The human format: one `path:line:col: CODE message` line per finding, then a summary, as ruff prints them. */
import { alsoAtLines, Severity } from "../engine";
import { Finding, RunReport } from "./findings";

const SEVERITY_ORDER: readonly Severity[] = ["error", "warning", "info", "hint"];

function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

export function formatText(report: RunReport): string {
  const lines = report.findings.map((f) => `${f.path}:${f.line}:${f.column}: ${f.code} ${f.message}${alsoAt(f)}`);
  lines.push(...summary(report));
  return lines.join("\n") + "\n";
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
    const fixable = findings.filter((f) => f.fix?.safe).length;
    const fixableNote = fixable > 0 && !report.fixMode ? `; ${fixable} fixable with --fix` : "";
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
