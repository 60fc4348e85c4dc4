/**
 * When to lint and what to publish. A change schedules a lint after a pause that depends on how long
 * the document's last lint took (lintDelay.ts: none for a quick one); the lint runs in the document's
 * worker for the version current at that moment, at most one at a time per document, so changes
 * made meanwhile are linted together, at their newest version, once it ends. A result is published
 * only if the document is still at that version (otherwise the newer version's own lint follows),
 * together with the Airflow version pin the lint used. Which version of each document was last
 * published is kept for code actions, whose edits the document's worker places.
 */
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Diagnostic as LspDiagnostic, DiagnosticSeverity } from "vscode-languageserver";
import type { Severity } from "../engine";
import type { AirflowPin, ConfigurationProblem } from "../engine/project";
import type { BaselineStore } from "./baseline";
import type { OpenDocument, OpenDocuments } from "./documents";
import { DIAGNOSTIC_SOURCE } from "./codeActionProtocol";
import { lintDelayMs } from "./lintDelay";
import type { LintWorkerPool } from "./lintWorkerPool";
import { errorText, Logger } from "./logger";
import type { ServerSettings, SettingsStore } from "./settings";
import type { LintedDiagnostic, WorkerLintOptions } from "./workerProtocol";

export { DIAGNOSTIC_SOURCE };

/**
 * Larger documents are not linted. 50,000 lines of DAG code are about 2 MB and lint in a few seconds
 * in the worker; beyond this the cost grows with every pause in typing for files nobody writes by hand.
 */
export const MAX_LINTED_CHARACTERS = 4_000_000;

/**
 * LSP's severities by number (`DiagnosticSeverity.Error` is 1, ...), so that the worker threads,
 * which make the diagnostics, need no value of the protocol library and do not load it.
 */
const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: 1,
  warning: 2,
  info: 3,
  hint: 4,
};

/** The rules' pages, shipped in the extension's docs/rules next to dist/ (this bundle's folder). */
const RULE_PAGES_FOLDER = pathToFileURL(path.resolve(__dirname, "..", "docs", "rules")).href;

/** The rule's page. A code (`AS101`) needs no escaping in a URL, so every finding's link is the folder's plus its name. */
export function ruleDocumentationUri(code: string): string {
  return `${RULE_PAGES_FOLDER}/${code}.md`;
}

export function toLspDiagnostic(uri: string, diagnostic: LintedDiagnostic): LspDiagnostic {
  const lsp: LspDiagnostic = {
    range: diagnostic.range,
    severity: SEVERITY[diagnostic.severity],
    code: diagnostic.code,
    codeDescription: { href: ruleDocumentationUri(diagnostic.code) },
    source: DIAGNOSTIC_SOURCE,
    message: diagnostic.message,
  };
  const related = diagnostic.related;
  if (related) lsp.relatedInformation = related.ranges.map((range) => ({ location: { uri, range }, message: related.message }));
  return lsp;
}

export function lintOptions(uri: string, settings: ServerSettings, baselineText: string | undefined): WorkerLintOptions {
  let filePath: string | undefined;
  if (uri.startsWith("file:")) {
    try {
      filePath = fileURLToPath(uri);
    } catch {
      filePath = undefined;
    }
  }
  return { severities: settings.severities, configurationPreference: settings.configurationPreference, path: filePath, baselineText };
}

export interface Publisher {
  publish(uri: string, version: number | undefined, diagnostics: LspDiagnostic[]): void;
  /** The configuration file a lint used and its problems (none: it is fine), for the log and a notification. */
  configurationProblems?(file: string, problems: readonly ConfigurationProblem[]): void;
  /** The pin the published diagnostics were computed with; undefined when none is known or the document was not linted. */
  airflowVersion?(uri: string, pin: AirflowPin | undefined): void;
}

export class DiagnosticScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<string>();
  /** Documents that changed while their lint ran: lint again as soon as it ends. */
  private readonly rerun = new Set<string>();
  /** The version of each document whose diagnostics were published last. */
  private readonly published = new Map<string, number>();
  /** How long each document's last lint of a change took in its worker: what the pause before the next one is made of. */
  private readonly lastLintMs = new Map<string, number>();
  /** Documents changed since their last lint started. */
  private readonly changed = new Set<string>();
  /** Oversized documents already reported in the log, so the line is written once per document. */
  private readonly reportedTooLarge = new Set<string>();

  constructor(
    private readonly documents: OpenDocuments,
    private readonly worker: Pick<LintWorkerPool, "lint">,
    private readonly settings: SettingsStore,
    private readonly baseline: BaselineStore,
    private readonly publisher: Publisher,
    private readonly log: Logger,
  ) {}

  /** The document was changed: lints it after the pause its last lint of a change calls for. */
  documentChanged(uri: string): void {
    this.changed.add(uri);
    this.schedule(uri, lintDelayMs(this.lastLintMs.get(uri)));
  }

  /** Lints the document after `delayMs`. */
  schedule(uri: string, delayMs = 0): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    if (delayMs <= 0) {
      void this.run(uri);
      return;
    }
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        void this.run(uri);
      }, delayMs),
    );
  }

  scheduleAll(delayMs = 0): void {
    for (const document of this.documents.all()) this.schedule(document.uri, delayMs);
  }

  /** Whether the diagnostics published last for the document are of this version. */
  isPublished(uri: string, version: number): boolean {
    return this.published.get(uri) === version;
  }

  /** The document was closed: stop linting it and clear its diagnostics. */
  forget(uri: string): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    this.rerun.delete(uri);
    this.published.delete(uri);
    this.lastLintMs.delete(uri);
    this.changed.delete(uri);
    this.reportedTooLarge.delete(uri);
    this.publisher.publish(uri, undefined, []);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private async run(uri: string): Promise<void> {
    if (this.running.has(uri)) {
      this.rerun.add(uri);
      return;
    }
    const document = this.documents.get(uri);
    if (!document) return;
    this.running.add(uri);
    try {
      await this.lintAndPublish(document);
    } catch (error) {
      this.log.error(`Linting ${uri} failed: ${errorText(error)}`);
    } finally {
      this.running.delete(uri);
      // The changes made meanwhile have waited for this lint already.
      if (this.rerun.delete(uri)) this.schedule(uri, 0);
    }
  }

  private async lintAndPublish(document: OpenDocument): Promise<void> {
    const { uri, version } = document;
    // Only a lint of a change tells how long the next change's will take (the first, on opening, starts from scratch).
    const ofChange = this.changed.delete(uri);
    const isCurrent = () => this.documents.get(uri) === document && document.version === version;
    const settings = await this.settings.forDocument(uri);
    if (!isCurrent()) return;
    if (!settings.enable) return this.store(uri, version, []);
    if (document.text.length > MAX_LINTED_CHARACTERS) {
      if (!this.reportedTooLarge.has(uri)) {
        this.reportedTooLarge.add(uri);
        this.log.info(`Not checking ${uri}: ${document.text.length} characters is over the limit of ${MAX_LINTED_CHARACTERS}.`);
      }
      return this.store(uri, version, []);
    }
    this.reportedTooLarge.delete(uri);
    const result = await this.worker.lint(uri, version, lintOptions(uri, settings, this.baseline.textFor(uri)));
    if (result && ofChange) this.lastLintMs.set(uri, result.elapsedMs);
    if (result) this.log.debug(`Linted ${uri} version ${version} in ${Math.round(result.elapsedMs)} ms: ${result.diagnostics.length} finding${result.diagnostics.length === 1 ? "" : "s"}.`);
    if (!result || !isCurrent()) return;
    if (result.configuration) this.publisher.configurationProblems?.(result.configuration.file, result.configuration.problems);
    if (result.relevant) this.baseline.ensure(uri, result.baseline);
    this.store(uri, version, result.diagnostics, result.airflowPin);
  }

  private store(uri: string, version: number, diagnostics: LspDiagnostic[], airflowPin?: AirflowPin): void {
    this.published.set(uri, version);
    this.publisher.publish(uri, version, diagnostics);
    this.publisher.airflowVersion?.(uri, airflowPin);
  }
}
