/**
 * Answers `airflowStateStore/review` with the engine's Markdown review of an open document, computed
 * in the lint worker with everything a lint of it uses: the rule severities of its settings, the
 * workspace index, the Airflow version its project pins and its git baseline.
 */
import { Connection, ErrorCodes, LSPErrorCodes, ResponseError } from "vscode-languageserver";
import type { BaselineStore } from "./baseline";
import { lintOptions, MAX_LINTED_CHARACTERS } from "./diagnostics";
import type { OpenDocuments } from "./documents";
import type { LintWorkerPool } from "./lintWorkerPool";
import { errorText, Logger } from "./logger";
import { REVIEW_METHOD, ReviewParams, ReviewResponse } from "./reviewProtocol";
import type { SettingsStore } from "./settings";

export interface ReviewServices {
  worker: LintWorkerPool;
  settings: SettingsStore;
  baseline: BaselineStore;
}

/** A document edited while its review is computed is reviewed again at its new version, this many times at most. */
const MAX_ATTEMPTS = 3;

/** `services` answers undefined until the server is initialized. */
export function registerReview(connection: Connection, documents: OpenDocuments, services: () => ReviewServices | undefined, log: Logger): void {
  connection.onRequest(REVIEW_METHOD, async (params: ReviewParams): Promise<ReviewResponse> => {
    try {
      return await review(documents, services(), params);
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      log.error(`${REVIEW_METHOD} failed: ${errorText(error)}`);
      throw new ResponseError(ErrorCodes.InternalError, `The review failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

async function review(documents: OpenDocuments, running: ReviewServices | undefined, params: ReviewParams): Promise<ReviewResponse> {
  const uri = params?.uri;
  if (typeof uri !== "string") throw new ResponseError(ErrorCodes.InvalidParams, `${REVIEW_METHOD} needs the uri of an open document.`);
  if (!running) throw new ResponseError(ErrorCodes.ServerNotInitialized, "The Airflow State Store language server is still starting.");
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const document = documents.get(uri);
    if (!document) throw new ResponseError(ErrorCodes.InvalidParams, `${uri} is not open as a Python document.`);
    if (document.text.length > MAX_LINTED_CHARACTERS) {
      throw new ResponseError(ErrorCodes.InvalidRequest, `The file is not checked: ${document.text.length} characters is over the limit of ${MAX_LINTED_CHARACTERS}.`);
    }
    const { version } = document;
    const settings = await running.settings.forDocument(uri);
    const result = await running.worker.review(uri, version, lintOptions(uri, settings, running.baseline.textFor(uri)));
    if (result) return { markdown: result.markdown, version: result.version };
  }
  throw new ResponseError(LSPErrorCodes.ContentModified, "The file kept changing while it was reviewed; run the review again.");
}
