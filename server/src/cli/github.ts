/**
 * `--format github`: one GitHub Actions workflow command per finding, so each shows as an
 * annotation on the pull request's diff: `::error` for errors, `::warning` for warnings and
 * `::notice` for info and hint, with the file, the range and the rule code as the title. Files that
 * could not be checked are `::error` annotations on the file.
 */
import { Severity } from "../engine";
import { RunReport } from "./findings";

const COMMANDS: Record<Severity, string> = { error: "error", warning: "warning", info: "notice", hint: "notice" };

export function formatGithub(report: RunReport): string {
  const lines = report.findings.map((f) => {
    const properties = { file: slashed(f.path), line: f.line, col: f.column, endLine: f.endLine, endColumn: f.endColumn, title: f.code };
    return command(COMMANDS[f.severity], properties, f.message);
  });
  for (const failure of report.failures) lines.push(command("error", { file: slashed(failure.path), title: "airflow-state-lint" }, failure.message));
  return lines.length > 0 ? lines.join("\n") + "\n" : "";
}

function command(name: string, properties: Record<string, string | number>, message: string): string {
  const list = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name} ${list}::${escapeData(message)}`;
}

/** GitHub's escaping of a command's message: `%`, carriage returns and line feeds. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property value escapes `:` and `,` too, which would otherwise end it. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** GitHub names files with forward slashes, relative to the repository. */
function slashed(shownPath: string): string {
  return shownPath.split("\\").join("/");
}
