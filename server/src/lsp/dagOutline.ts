/**
 * `airflowStateStore/dagOutline`: the DAG ids and task ids of an open document, with their ranges,
 * for the store browser's code lens (client/src/storeBrowser/vscode/codeLens.ts sends it; the method
 * name is repeated there as DAG_OUTLINE_METHOD, and test/storeBrowser/dagOutlineLsp.test.ts checks
 * both ends against the built server).
 *
 * The document's lint worker makes the outline, from the tree it holds: the connection thread never
 * parses, so an outline of a large file never holds up a keystroke's diagnostics. Answers are cached
 * per document version, and files over MAX_OUTLINED_CHARACTERS get an empty outline.
 */
import type { Connection } from "vscode-languageserver";
import type { DagOutline } from "../engine/features/outline";
import type { OpenDocuments } from "./documents";
import type { LintWorkerPool } from "./lintWorkerPool";
import { errorText, type Logger } from "./logger";

export const DAG_OUTLINE_METHOD = "airflowStateStore/dagOutline";

export interface DagOutlineParams {
  textDocument: { uri: string };
}

/** About 15,000 lines of Python; a full parse of that stays under 100 ms. */
export const MAX_OUTLINED_CHARACTERS = 500_000;

const EMPTY: DagOutline = { dags: [] };

/** `worker` is undefined until the server is initialized (the outline is then empty). */
export function registerDagOutline(connection: Connection, documents: OpenDocuments, worker: () => Pick<LintWorkerPool, "dagOutline"> | undefined, log: Logger): void {
  const cache = new Map<string, { version: number; outline: DagOutline }>();
  connection.onRequest(DAG_OUTLINE_METHOD, async (params: DagOutlineParams): Promise<DagOutline> => {
    const uri = params?.textDocument?.uri;
    const document = typeof uri === "string" ? documents.get(uri) : undefined;
    if (!document) {
      if (typeof uri === "string") cache.delete(uri);
      return EMPTY;
    }
    const { version } = document;
    const cached = cache.get(document.uri);
    if (cached?.version === version) return cached.outline;
    const running = worker();
    if (!running) return EMPTY;
    let outline = EMPTY;
    if (document.text.length <= MAX_OUTLINED_CHARACTERS) {
      try {
        const result = await running.dagOutline(document.uri, version);
        // The document moved on meanwhile: the client asks again for the new version.
        if (!result) return EMPTY;
        outline = result.outline;
      } catch (error) {
        log.error(`Outlining ${document.uri} failed: ${errorText(error)}`);
      }
    }
    cache.set(document.uri, { version, outline });
    // didClose has one handler, the server's; closed documents are dropped here instead.
    if (cache.size > documents.all().length) for (const key of cache.keys()) if (!documents.get(key)) cache.delete(key);
    return outline;
  });
}
