/**
 * `--format gitlab`: the Code Climate JSON that GitLab reads as a code quality report
 * (`artifacts: reports: codequality`), one issue per finding, each with a fingerprint that stays
 * the same across runs and edits elsewhere in the file, so GitLab tells new findings from old ones.
 */
import { Severity } from "../engine";
import { RunReport } from "./findings";

/** GitLab's severities: info, minor, major, critical, blocker. */
const SEVERITIES: Record<Severity, string> = { error: "major", warning: "minor", info: "info", hint: "info" };

export function formatGitlab(report: RunReport): string {
  const issues = report.findings.map((f) => ({
    type: "issue",
    check_name: f.code,
    description: `${f.code} ${f.message}`,
    categories: ["Bug Risk"],
    severity: SEVERITIES[f.severity],
    fingerprint: f.fingerprint.id,
    location: {
      path: f.path.split("\\").join("/"),
      positions: { begin: { line: f.line, column: f.column }, end: { line: f.endLine, column: f.endColumn } },
    },
  }));
  return JSON.stringify(issues, null, 2) + "\n";
}
