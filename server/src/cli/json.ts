/** The machine format: a JSON array of findings with exactly the documented fields, in the report's order. */
import { RunReport } from "./findings";

export function formatJson(report: RunReport): string {
  const entries = report.findings.map((f) => ({
    path: f.path,
    code: f.code,
    severity: f.severity,
    message: f.message,
    line: f.line,
    column: f.column,
    endLine: f.endLine,
    endColumn: f.endColumn,
    fix: f.fix ? { title: f.fix.title, safe: f.fix.safe } : null,
    related: f.related.map((r) => ({ message: r.message, line: r.line, column: r.column, endLine: r.endLine, endColumn: r.endColumn })),
  }));
  return JSON.stringify(entries, null, 2) + "\n";
}
