/**
 * `airflowStateStore/review`: the request the "Review this DAG" command sends for the Markdown review
 * of an open document (server/src/lsp/reviewRequest.ts answers it; client/src/reviewCommand.ts sends
 * it). Both ends import this file, so it imports nothing: the client bundle takes only these lines.
 */

export const REVIEW_METHOD = "airflowStateStore/review";

export interface ReviewParams {
  /** The document, as the client sends it; it must be open. */
  uri: string;
}

export interface ReviewResponse {
  /** The review, as `airflow-state-lint --format review` writes it for the same text and project. */
  markdown: string;
  /** The document version the review describes. */
  version: number;
}
