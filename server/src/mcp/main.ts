/** Entry point of `airflow-state-mcp` (bundled to dist/mcp.js): the MCP server on standard input and output. */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createServer, SERVER_NAME } from "./server";

createServer(process.cwd())
  .connect(new StdioServerTransport())
  .catch((error: unknown) => {
    process.stderr.write(`${SERVER_NAME}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
