/**
 * `airflow-state-mcp`: a Model Context Protocol server over stdio for coding agents outside VS
 * Code, with three tools: `lint` (the findings as the CLI's JSON), `review` (the Markdown review)
 * and `fix` (the safe fixes as a diff, written only when asked).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { packageVersion } from "../docs/location";
import { fixTool, lintTool, reviewTool, ToolOutput } from "./tools";

export const SERVER_NAME = "airflow-state-mcp";

export function createServer(cwd: string): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: packageVersion() });
  const selection = {
    paths: z
      .array(z.string())
      .optional()
      .describe(`Python files or folders to check (folders are searched for *.py). Relative paths are resolved against ${cwd}; default: that folder.`),
    select: z.array(z.string()).optional().describe("Check only these rules: codes or prefixes such as AS1 or AS201."),
    ignore: z.array(z.string()).optional().describe("Skip these rules: codes or prefixes."),
  };
  server.registerTool(
    "lint",
    {
      title: "Lint Airflow DAG files",
      description:
        "Checks Apache Airflow 3.3 DAG files for state store misuse (task_state_store, asset_state_store, ResumableJobMixin). Returns a JSON array of findings: path, code, severity, message, line, column, endLine, endColumn, fix (title and whether it is safe) — the same as `airflow-state-lint --format json`.",
      inputSchema: selection,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input) => result(await lintTool(cwd, input)),
  );
  server.registerTool(
    "review",
    {
      title: "Review an Airflow DAG file for state store misuse",
      description:
        "A Markdown review of each DAG file: what its tasks keep in the state stores, the findings grouped by category, why each matters at run time and how to fix it — the same as `airflow-state-lint --format review`.",
      inputSchema: selection,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input) => result(await reviewTool(cwd, input)),
  );
  server.registerTool(
    "fix",
    {
      title: "Safe fixes for Airflow DAG files",
      description:
        "The safe fixes `airflow-state-lint --fix` would apply, as a unified diff. Nothing is written unless `write` is true; then the files are changed exactly as the diff shows.",
      inputSchema: { ...selection, write: z.boolean().optional().describe("Write the fixes to the files (default false: only show the diff).") },
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ write, ...input }) => result(await fixTool(cwd, input, write === true)),
  );
  return server;
}

function result(output: ToolOutput): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: output.failed ? output.notes : output.text }];
  if (!output.failed && output.notes !== "") content.push({ type: "text", text: output.notes });
  return { content, isError: output.failed };
}
