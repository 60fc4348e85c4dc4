/**
 * The worker thread that owns the open documents' syntax trees and runs the engine. It applies every
 * incremental change to its `PythonDocument` (tree.edit + incremental re-parse) and answers lint and
 * fix-all requests in the order they were posted, so a request always sees every change sent before it.
 */
import { parentPort } from "node:worker_threads";
import { ContentChange, fixAll, lint, LintOptions, PythonDocument, Rule } from "../engine";
import { changedLinesEdit } from "./changedLines";
import { errorText } from "./logger";
import { suppressionEdit } from "./suppression";
import type { FixAllResult, FromWorker, LintedDiagnostic, LintResult, ToWorker, WorkerLintOptions, WorkerRequest } from "./workerProtocol";

/** Distinct rule failures already logged; a rule that throws on every keystroke is reported once. */
const MAX_REMEMBERED_FAILURES = 1000;

export function runLintWorker(): void {
  const port = parentPort;
  if (!port) throw new Error("runLintWorker must run in a worker thread");
  const documents = new Map<string, PythonDocument>();
  const loggedFailures = new Set<string>();
  const post = (message: FromWorker) => port.postMessage(message);

  const ruleErrorLogger = (uri: string) => (rule: Rule, error: unknown) => {
    const detail = errorText(error);
    const key = `${rule.code}\n${detail}`;
    if (loggedFailures.has(key)) return;
    if (loggedFailures.size >= MAX_REMEMBERED_FAILURES) loggedFailures.clear();
    loggedFailures.add(key);
    post({ type: "log", level: "error", message: `Rule ${rule.code} failed on ${uri}; the other rules still ran.\n${detail}` });
  };

  const engineOptions = (uri: string, options: WorkerLintOptions): LintOptions => ({ ...options, onRuleError: ruleErrorLogger(uri) });

  function lintDocument(document: PythonDocument, options: WorkerLintOptions): LintResult {
    const relevant = document.isRelevant();
    const diagnostics = lint(document, engineOptions(document.uri, options)).map(
      (d): LintedDiagnostic => ({
        code: d.code,
        severity: d.severity,
        message: d.message,
        range: d.range,
        fix: d.fix && {
          title: d.fix.title,
          safe: d.fix.safe,
          kind: d.fix.kind,
          edits: d.fix.edits.map((e) => ({ range: { start: document.positionAt(e.start), end: document.positionAt(e.end) }, newText: e.newText })),
        },
        suppression: suppressionEdit(document, d.range.start.line, d.code),
      }),
    );
    return { version: document.version, relevant, diagnostics };
  }

  function fixAllDocument(document: PythonDocument, options: WorkerLintOptions): FixAllResult {
    const fixed = fixAll(document.uri, document.getText(), engineOptions(document.uri, options));
    return { version: document.version, edit: fixed.applied > 0 ? changedLinesEdit(document, fixed.text) : undefined };
  }

  function answer(request: WorkerRequest): LintResult | FixAllResult | undefined {
    const document = documents.get(request.uri);
    if (!document || document.version !== request.version) return undefined;
    return request.type === "lint" ? lintDocument(document, request.options) : fixAllDocument(document, request.options);
  }

  function applyChange(uri: string, changes: ContentChange[], version: number): void {
    const document = documents.get(uri);
    if (!document) return;
    try {
      document.update(changes, version);
    } catch (error) {
      // A half-applied change leaves text and tree out of step with the editor: start over from its text.
      documents.delete(uri);
      post({ type: "log", level: "error", message: `Could not apply a change to ${uri}; reloading it. ${errorText(error)}` });
      post({ type: "lost", uri });
    }
  }

  port.on("message", (message: ToWorker) => {
    try {
      switch (message.type) {
        case "open":
          documents.set(message.uri, new PythonDocument(message.uri, message.text, message.version));
          break;
        case "change":
          applyChange(message.uri, message.changes, message.version);
          break;
        case "close":
          documents.delete(message.uri);
          break;
        default:
          post({ type: "reply", id: message.id, result: answer(message) });
      }
    } catch (error) {
      const detail = errorText(error);
      if ("id" in message) post({ type: "failed", id: message.id, message: detail });
      else post({ type: "log", level: "error", message: `Lint worker failed on ${message.type} of ${message.uri}: ${detail}` });
    }
  });
}
