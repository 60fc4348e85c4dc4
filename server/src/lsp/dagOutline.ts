/**
 * `airflowStateStore/dagOutline`: the DAG ids and task ids of an open document, with their ranges,
 * for the store browser's code lens (client/src/storeBrowser/vscode/codeLens.ts sends it; the method
 * name is repeated there as DAG_OUTLINE_METHOD, and test/storeBrowser/dagOutlineLsp.test.ts checks
 * both ends against the built server).
 *
 * It parses on the connection thread rather than in the lint worker: the outline is one parse and
 * a small walk (no rules), answers are cached per document version, and files over
 * MAX_OUTLINED_CHARACTERS get an empty outline. Moving it into the worker, which already holds the
 * syntax trees, needs a new worker message.
 */
import type { Connection } from "vscode-languageserver";
import { DagOutline, outlineOfText } from "../engine/features/outline";
import type { OpenDocuments } from "./documents";
import { errorText, type Logger } from "./logger";

export const DAG_OUTLINE_METHOD = "airflowStateStore/dagOutline";

export interface DagOutlineParams {
  textDocument: { uri: string };
}

/** About 15,000 lines of Python; a full parse of that stays under 100 ms. */
export const MAX_OUTLINED_CHARACTERS = 500_000;

const EMPTY: DagOutline = { dags: [] };

export function registerDagOutline(connection: Connection, documents: OpenDocuments, log: Logger): void {
  const cache = new Map<string, { version: number; outline: DagOutline }>();
  connection.onRequest(DAG_OUTLINE_METHOD, (params: DagOutlineParams): DagOutline => {
    const uri = params?.textDocument?.uri;
    const document = typeof uri === "string" ? documents.get(uri) : undefined;
    if (!document) {
      if (typeof uri === "string") cache.delete(uri);
      return EMPTY;
    }
    const cached = cache.get(document.uri);
    if (cached?.version === document.version) return cached.outline;
    let outline = EMPTY;
    if (document.text.length <= MAX_OUTLINED_CHARACTERS) {
      try {
        outline = outlineOfText(document.text);
      } catch (error) {
        log.error(`Outlining ${document.uri} failed: ${errorText(error)}`);
      }
    }
    cache.set(document.uri, { version: document.version, outline });
    // didClose has one handler, the server's; closed documents are dropped here instead.
    if (cache.size > documents.all().length) for (const key of cache.keys()) if (!documents.get(key)) cache.delete(key);
    return outline;
  });
}
