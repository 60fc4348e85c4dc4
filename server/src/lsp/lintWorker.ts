/**
 * The worker thread that owns its open documents' syntax trees and runs the engine. It applies every
 * incremental change to its `PythonDocument` (tree.edit + incremental re-parse) as it arrives, so a
 * request always sees every change sent before it. Interactive requests (hover, completion, review,
 * code actions, fix-all) are answered at once; lints are queued and run one per turn of the event
 * loop, so a request arriving meanwhile waits for one lint at most, and a queued lint of a version
 * that a later change replaced is answered as superseded without running. Only documents being
 * edited keep their trees between requests (workerDocuments.ts). A lint sends the findings as the
 * editor shows them, made without their fixes' edits: those are made, and placed with the
 * suppression edits, when a code action asks (findingActions.ts).
 * It also holds the workspace index rules follow imports through (workerWorkspace.ts), resolves the
 * project configuration and Airflow version each document's project pins from disk
 * (workerConfiguration.ts: rule selection and severities, exclusions, AS501 and AS502), and
 * answers review, hover and completion requests from the same trees.
 */
import { parentPort } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import { completionsAt, ContentChange, fixAll, fixesOf, FoundDiagnostic, hoverAt, lint, LintOptions, LintOptionsWithEdits, Position, PythonDocument, reviewMarkdown, Rule, TextEdit, WorkspaceClasses } from "../engine";
import type { FileConfiguration } from "../engine/project";
import { outlineOf } from "../engine/features/outline";
import { changedLinesEdit } from "./changedLines";
import { ruleDocumentationUri } from "./diagnostics";
import { diagnosticsUpdate } from "./diagnosticUpdates";
import { findingActions } from "./findingActions";
import { errorText } from "./logger";
import type {
  CodeActionsResult,
  CompletionResult,
  DiagnosticsUpdate,
  FindingReference,
  FixAllResult,
  FromWorker,
  HoverResult,
  LintResult,
  PlacedEdit,
  ReviewResult,
  ToWorker,
  WorkerLintOptions,
  WorkerRequest,
  WorkerResult,
} from "./workerProtocol";
import { TreeCollector, workerCollector } from "./treeCollector";
import { WorkerDocuments } from "./workerDocuments";
import { WorkerConfiguration } from "./workerConfiguration";
import { WorkerWorkspace } from "./workerWorkspace";
import { workerYoungCollector, YoungCollector } from "./youngCollector";

/** Distinct rule failures already logged; a rule that throws on every keystroke is reported once. */
const MAX_REMEMBERED_FAILURES = 1000;

export function runLintWorker(): void {
  const port = parentPort;
  if (!port) throw new Error("runLintWorker must run in a worker thread");
  const trees = new TreeCollector(workerCollector());
  const documents = new WorkerDocuments(Date.now, () => trees.treeReleased());
  const loggedFailures = new Set<string>();
  const post = (message: FromWorker) => port.postMessage(message);
  const workspace = new WorkerWorkspace(
    documents,
    (uris) => post({ type: "dependentsChanged", uris }),
    (message) => post({ type: "log", level: "error", message }),
  );
  const configurations = new WorkerConfiguration((message) => post({ type: "log", level: "error", message }));

  const ruleErrorLogger = (uri: string) => (rule: Rule, error: unknown) => {
    const detail = errorText(error);
    const key = `${rule.code}\n${detail}`;
    if (loggedFailures.has(key)) return;
    if (loggedFailures.size >= MAX_REMEMBERED_FAILURES) loggedFailures.clear();
    loggedFailures.add(key);
    post({ type: "log", level: "error", message: `Rule ${rule.code} failed on ${uri}; the other rules still ran.\n${detail}` });
  };

  const engineOptions = (uri: string, options: WorkerLintOptions, classes: WorkspaceClasses, configuration: FileConfiguration): LintOptionsWithEdits => ({
    ...configuration.lint,
    path: options.path,
    baselineText: options.baselineText,
    workspace: classes,
    airflowPin: configuration.airflowPin,
    onRuleError: ruleErrorLogger(uri),
  });

  const editorOverrides = (options: WorkerLintOptions) => ({ severities: options.severities, preference: options.configurationPreference });

  function lintDocument(document: PythonDocument, options: WorkerLintOptions): LintResult {
    const started = performance.now();
    const configuration = configurations.forLint(document.uri, options.path, editorOverrides(options));
    const { airflowPin, baseline } = configuration;
    const file = configuration.configurationFile;
    const configurationFile = file !== undefined ? { file, problems: configuration.problems } : undefined;
    // An excluded file is not checked, as the CLI leaves it out.
    if (configuration.excluded) {
      workspace.linted(document.uri, document.version, undefined);
      return { version: document.version, relevant: false, diagnostics: sent(document, []), baseline, configuration: configurationFile, elapsedMs: performance.now() - started };
    }
    const relevant = document.isRelevant();
    // Most findings are never asked for their fixes' edits, which every keystroke would otherwise make and move.
    const lintOptions: LintOptions = { ...engineOptions(document.uri, options, workspace.forLint(document.uri), configuration), fixEdits: false };
    const linter = documents.linterFor(document.uri);
    const found = linter?.lint(document, lintOptions) ?? lint(document, lintOptions);
    workspace.linted(document.uri, document.version, linter?.lastMode, linter?.lastModel);
    return { version: document.version, relevant, diagnostics: sent(document, found, lintOptions), airflowPin, baseline, configuration: configurationFile, elapsedMs: performance.now() - started };
  }

  /** The findings as a change to those sent last for the document, remembered for the next lint and for code actions. */
  function sent(document: PythonDocument, findings: readonly FoundDiagnostic[], options?: LintOptions): DiagnosticsUpdate {
    const update = diagnosticsUpdate(documents.lastLint(document.uri), findings);
    documents.linted(document.uri, document.version, update.id, findings, options);
    return update;
  }

  /** The actions of the findings the client shows, from the document's last lint (none unless it was of this version). */
  function codeActionsOf(document: PythonDocument, requested: FindingReference[]): CodeActionsResult | undefined {
    const last = documents.lastLint(document.uri);
    if (!last || last.version !== document.version) return undefined;
    const options = last.options;
    // The model of the lint whose findings these are, when it built one and still holds it (the document is being edited).
    const model = documents.linterFor(document.uri)?.lastModel;
    return findingActions(document, last.findings, requested, last.fixes, options && ((findings) => fixesOf(document, options, findings, model)));
  }

  /** The review sees what a lint sees, but like fix-all it is not published, so what it consults is not remembered. */
  function reviewDocument(document: PythonDocument, options: WorkerLintOptions): ReviewResult {
    const markdown = reviewMarkdown(document, engineOptions(document.uri, options, workspace.classes, configurations.peek(options.path, editorOverrides(options))));
    return { version: document.version, markdown };
  }

  function fixAllDocument(document: PythonDocument, options: WorkerLintOptions): FixAllResult {
    const configuration = configurations.peek(options.path, editorOverrides(options));
    if (configuration.excluded) return { version: document.version };
    const fixed = fixAll(document.uri, document.getText(), engineOptions(document.uri, options, workspace.classes, configuration));
    return { version: document.version, edit: fixed.applied > 0 ? changedLinesEdit(document, fixed.text) : undefined };
  }

  function hoverDocument(document: PythonDocument, position: Position): HoverResult | undefined {
    const hover = hoverAt(document, document.offsetAt(position), ruleDocumentationUri);
    return hover && { range: { start: document.positionAt(hover.start), end: document.positionAt(hover.end) }, markdown: hover.markdown };
  }

  function completeDocument(document: PythonDocument, position: Position): CompletionResult {
    const place = (edit: TextEdit): PlacedEdit => ({ range: { start: document.positionAt(edit.start), end: document.positionAt(edit.end) }, newText: edit.newText });
    const items = completionsAt(document, document.offsetAt(position)).map((s) => ({
      label: s.label,
      filterText: s.filterText,
      sortText: s.sortText,
      detail: s.detail,
      documentation: s.documentation,
      edit: place({ start: s.start, end: s.end, newText: s.newText }),
      snippet: s.snippet,
      additionalEdits: s.additionalEdits.map(place),
    }));
    return { items };
  }

  function answer(request: WorkerRequest): WorkerResult | undefined {
    const document = documents.get(request.uri);
    if (!document || document.version !== request.version) return undefined;
    try {
      switch (request.type) {
        case "lint":
          return lintDocument(document, request.options);
        case "codeActions":
          return codeActionsOf(document, request.findings);
        case "fixAll":
          return fixAllDocument(document, request.options);
        case "review":
          return reviewDocument(document, request.options);
        case "hover":
          return hoverDocument(document, request.position);
        case "completion":
          return completeDocument(document, request.position);
        case "dagOutline":
          return { outline: outlineOf(document.analysedText(), () => document.tree) };
      }
    } finally {
      if (request.type === "lint" && !documents.isBeingEdited(request.uri)) workspace.refreshNow(request.uri);
      documents.settle(request.uri);
    }
  }

  function reply(request: WorkerRequest): void {
    try {
      post({ type: "reply", id: request.id, result: answer(request) });
    } catch (error) {
      post({ type: "failed", id: request.id, message: errorText(error) });
    }
  }

  const queuedLints: WorkerRequest[] = [];
  let lintTurnScheduled = false;
  const young = new YoungCollector(workerYoungCollector(), () => queuedLints.length === 0);

  /** One lint per turn: messages that arrived meanwhile (changes, hovers) are handled between two lints. */
  function scheduleLintTurn(): void {
    if (lintTurnScheduled || queuedLints.length === 0) return;
    lintTurnScheduled = true;
    setImmediate(() => {
      lintTurnScheduled = false;
      const next = queuedLints.shift();
      if (next) reply(next);
      if (queuedLints.length === 0) {
        trees.idle();
        young.lintsAnswered();
      }
      scheduleLintTurn();
    });
  }

  function applyChange(uri: string, changes: ContentChange[], version: number): void {
    try {
      documents.change(uri, changes, version);
    } catch (error) {
      // A half-applied change leaves text and tree out of step with the editor: start over from its text.
      post({ type: "log", level: "error", message: `Could not apply a change to ${uri}; reloading it. ${errorText(error)}` });
      post({ type: "lost", uri });
    }
  }

  port.on("message", (message: ToWorker) => {
    try {
      switch (message.type) {
        case "stop":
          // Between two tasks, never inside the parser's native code: ending the thread here is safe.
          process.exit(0);
        case "open":
          documents.open(message.uri, message.text, message.version);
          workspace.opened(message.uri);
          break;
        case "change":
          applyChange(message.uri, message.changes, message.version);
          workspace.changed(message.uri);
          break;
        case "close":
          documents.close(message.uri);
          workspace.closed(message.uri);
          configurations.closed(message.uri);
          break;
        case "workspaceRoots":
          workspace.setRoots(message.roots);
          break;
        case "index":
          workspace.enqueue(message.files);
          break;
        case "unindex":
          workspace.remove(message.paths);
          break;
        case "projectFilesChanged": {
          const uris = configurations.filesChanged(message.paths).filter((uri) => documents.has(uri));
          if (uris.length > 0) post({ type: "dependentsChanged", uris });
          break;
        }
        case "lint":
          trees.busy();
          queuedLints.push(message);
          scheduleLintTurn();
          break;
        default:
          reply(message);
      }
    } catch (error) {
      const detail = errorText(error);
      if ("id" in message) post({ type: "failed", id: message.id, message: detail });
      else post({ type: "log", level: "error", message: `Lint worker failed on ${message.type}${"uri" in message ? ` of ${message.uri}` : ""}: ${detail}` });
    }
  });
}
