/**
 * SARIF 2.1.0 for code-scanning services: one run, every rule as a reporting descriptor (its summary
 * and the page that explains it), results located relative to the working folder (`%SRCROOT%`)
 * with fingerprints that survive edits elsewhere in the file (GitHub matches alerts across runs
 * with them), and files that could not be checked as tool execution notifications, so the run is
 * marked unsuccessful instead of looking clean.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { allRules, Severity } from "../engine";
import { packageRoot, packageVersion, ruleDocRelativePath } from "../docs/location";
import { PROGRAM } from "./args";
import { Finding, RunReport } from "./findings";

const SOURCE_ROOT = "%SRCROOT%";

type SarifLevel = "error" | "warning" | "note";

function level(severity: Severity): SarifLevel {
  return severity === "error" ? "error" : severity === "warning" ? "warning" : "note";
}

/** A display path (relative to the working folder, or absolute) as an artifact location. */
function artifactLocation(shownPath: string): { uri: string; uriBaseId?: string } {
  if (path.isAbsolute(shownPath)) return { uri: pathToFileURL(shownPath).href };
  return { uri: shownPath.split(path.sep).map(encodeURIComponent).join("/"), uriBaseId: SOURCE_ROOT };
}

/** SARIF wants an absolute helpUri: the rule's page in this installation, when the page is there. */
function helpUri(code: string): string | undefined {
  const page = path.join(packageRoot(), ...ruleDocRelativePath(code).split("/"));
  return fs.existsSync(page) ? pathToFileURL(page).href : undefined;
}

/** The finding's other places, in its own file. */
function relatedLocations(finding: Finding): object[] {
  return finding.related.map((r, index) => ({
    id: index + 1,
    message: { text: r.message },
    physicalLocation: {
      artifactLocation: artifactLocation(finding.path),
      region: { startLine: r.line, startColumn: r.column, endLine: r.endLine, endColumn: r.endColumn },
    },
  }));
}

export function formatSarif(report: RunReport): string {
  const ruleIndex = new Map(allRules.map((rule, index) => [rule.code, index]));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: PROGRAM,
            version: packageVersion(),
            rules: allRules.map((rule) => {
              const help = helpUri(rule.code);
              return {
                id: rule.code,
                name: rule.name,
                shortDescription: { text: rule.summary },
                ...(help ? { helpUri: help } : {}),
                defaultConfiguration: { level: level(rule.defaultSeverity) },
              };
            }),
          },
        },
        originalUriBaseIds: { [SOURCE_ROOT]: { uri: pathToFileURL(report.cwd).href.replace(/\/?$/, "/") } },
        columnKind: "utf16CodeUnits",
        invocations: [
          {
            executionSuccessful: report.failures.length === 0,
            toolExecutionNotifications: report.failures.map((failure) => ({
              level: "error",
              message: { text: failure.message },
              locations: [{ physicalLocation: { artifactLocation: artifactLocation(failure.path) } }],
            })),
          },
        ],
        results: report.findings.map((f) => ({
          ruleId: f.code,
          ruleIndex: ruleIndex.get(f.code),
          level: level(f.severity),
          message: { text: f.message },
          // GitHub's own key, in its `hash:occurrence` form; given here, the upload does not compute one from the file.
          partialFingerprints: { primaryLocationLineHash: `${f.fingerprint.lineHash}:${f.fingerprint.occurrence}` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactLocation(f.path),
                region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn },
              },
            },
          ],
          ...(f.related.length > 0 ? { relatedLocations: relatedLocations(f) } : {}),
        })),
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
}
