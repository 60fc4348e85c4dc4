/**
 * The run's results in the shape every formatter shares: 1-based positions, paths relative to the
 * working folder, a fixed order, and the counts behind the summary and the exit status.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { RelatedLocations, Severity } from "../engine";
import { FileOutcome } from "./check";
import { compareStrings } from "./files";

export interface Finding {
  /** Absolute path of the file. */
  file: string;
  /** Relative to the working folder when the file is inside it, absolute otherwise. */
  path: string;
  code: string;
  /** The rule's kebab-case name. */
  name: string;
  severity: Severity;
  message: string;
  /** 1-based line and column; columns count UTF-16 code units, as LSP and SARIF's default do. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  fix: { title: string; safe: boolean } | null;
  /**
   * Stable across runs, and across edits elsewhere in the file: made of the path, the code, the
   * text of the finding's line (without whitespace) and which of the file's findings with the same
   * code and line text this is. SARIF's `partialFingerprints` and GitLab's `fingerprint` use it.
   */
  fingerprint: { readonly lineHash: string; readonly occurrence: number; readonly id: string };
  /** Other places of the same finding (AS401: the key's other calls), 1-based as the finding's own; empty when there are none. */
  related: RelatedPlace[];
}

export interface RelatedPlace {
  message: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** The Markdown review of one file (`--format review`). */
export interface FileReview {
  path: string;
  markdown: string;
}

/** A file or folder the run could not handle completely. */
export interface Failure {
  path: string;
  message: string;
}

/** What `--fix --show-fixes` lists: per file, the findings its fixes removed. */
export interface FixedFile {
  path: string;
  /** Code → how many. */
  codes: Record<string, number>;
}

export interface RunReport {
  cwd: string;
  findings: Finding[];
  failures: Failure[];
  /** With `--show-fixes` while fixing, ordered by path. */
  fixedByFile: FixedFile[];
  /** Fixes written back, and in how many files. */
  fixed: number;
  fixedFiles: number;
  /** Whether `--fix` ran (the summary then speaks of what remains). */
  fixMode: boolean;
  /** One per file checked, ordered by path, with `--format review`; empty otherwise. */
  reviews: FileReview[];
  /** `--unsafe-fixes`: the summary counts unsafe fixes as fixable. */
  unsafeFixes: boolean;
  /** `--show-fixes`. */
  showFixes: boolean;
}

/** How a run's report is shown, besides its findings. */
export interface ReportMode {
  fixMode: boolean;
  unsafeFixes: boolean;
  showFixes: boolean;
}

export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  const outside = relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return outside ? file : relative;
}

export function buildReport(outcomes: readonly FileOutcome[], folderProblems: readonly Failure[], cwd: string, mode: ReportMode): RunReport {
  const findings: Finding[] = [];
  const reviews: FileReview[] = [];
  const fixedByFile: FixedFile[] = [];
  const failures: Failure[] = folderProblems.map((p) => ({ path: displayPath(p.path, cwd), message: p.message }));
  let fixed = 0;
  let fixedFiles = 0;
  for (const outcome of outcomes) {
    const shown = displayPath(outcome.file, cwd);
    for (const message of outcome.errors) failures.push({ path: shown, message });
    if (outcome.review !== undefined) reviews.push({ path: shown, markdown: outcome.review });
    if (outcome.fixed > 0) {
      fixed += outcome.fixed;
      fixedFiles++;
    }
    if (outcome.fixedCodes && Object.keys(outcome.fixedCodes).length > 0) fixedByFile.push({ path: shown, codes: outcome.fixedCodes });
    for (const d of outcome.diagnostics) {
      findings.push({
        file: outcome.file,
        path: shown,
        code: d.code,
        name: d.name,
        severity: d.severity,
        message: d.message,
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        endLine: d.range.end.line + 1,
        endColumn: d.range.end.character + 1,
        fix: d.fix ? { title: d.fix.title, safe: d.fix.safe } : null,
        fingerprint: { lineHash: d.lineHash, occurrence: 0, id: "" },
        related: relatedPlaces(d.related),
      });
    }
  }
  findings.sort(compareFindings);
  numberOccurrences(findings);
  failures.sort((a, b) => compareStrings(a.path, b.path) || compareStrings(a.message, b.message));
  reviews.sort((a, b) => compareStrings(a.path, b.path));
  fixedByFile.sort((a, b) => compareStrings(a.path, b.path));
  return { cwd, findings, failures, fixed, fixedFiles, fixMode: mode.fixMode, reviews, fixedByFile, unsafeFixes: mode.unsafeFixes, showFixes: mode.showFixes };
}

/** Findings of one file with the same code on lines of the same text are told apart by their order (1, 2, …). */
function numberOccurrences(findings: Finding[]): void {
  const seen = new Map<string, number>();
  for (const finding of findings) {
    const key = `${finding.path}\0${finding.fingerprint.lineHash}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    finding.fingerprint = new Fingerprint(finding.path, finding.fingerprint.lineHash, occurrence);
  }
}

/** A finding's fingerprint. Its `id` is a hash that only GitLab's report shows, so it is made when asked for: a hash per finding was a tenth of a run that the cache answered. */
class Fingerprint {
  private hash: string | undefined;

  constructor(
    private readonly shownPath: string,
    readonly lineHash: string,
    readonly occurrence: number,
  ) {}

  get id(): string {
    this.hash ??= createHash("sha256").update(`${this.shownPath.split(path.sep).join("/")}\0${this.lineHash}\0${this.occurrence}`).digest("hex").slice(0, 32);
    return this.hash;
  }
}

function relatedPlaces(related: RelatedLocations | undefined): RelatedPlace[] {
  if (!related) return [];
  return related.ranges.map((range) => ({
    message: related.message,
    line: range.start.line + 1,
    column: range.start.character + 1,
    endLine: range.end.line + 1,
    endColumn: range.end.character + 1,
  }));
}

/** Path, then line, column and code; the rest only breaks ties so the order is total. */
function compareFindings(a: Finding, b: Finding): number {
  return (
    compareStrings(a.path, b.path) ||
    a.line - b.line ||
    a.column - b.column ||
    compareStrings(a.code, b.code) ||
    a.endLine - b.endLine ||
    a.endColumn - b.endColumn ||
    compareStrings(a.message, b.message)
  );
}

/** Severities that make the exit status 1; info and hint are advice. */
export function failsTheRun(severity: Severity): boolean {
  return severity === "error" || severity === "warning";
}

/** 2 when the run was incomplete (it wins: a clean result cannot be trusted), 1 for errors or warnings, else 0. */
export function exitStatus(report: RunReport, exitZero: boolean): number {
  if (report.failures.length > 0) return 2;
  if (!exitZero && report.findings.some((f) => failsTheRun(f.severity))) return 1;
  return 0;
}
