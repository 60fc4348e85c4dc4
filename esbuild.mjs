// Bundles the client, the language server, the CLI and the MCP server into dist/. The native parser packages stay
// external: node-gyp-build finds their prebuilds relative to their own package folders.
import * as esbuild from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: true,
  minify: process.argv.includes("--minify"),
  external: ["vscode", "tree-sitter", "tree-sitter-python"],
  logLevel: "warning",
};

await Promise.all([
  esbuild.build({ ...common, entryPoints: ["client/src/extension.ts"], outfile: "dist/client.js" }),
  esbuild.build({ ...common, entryPoints: ["server/src/lsp/main.ts"], outfile: "dist/server.js" }),
  // The language server's worker threads: the engine without the protocol library (see workerMain.ts).
  esbuild.build({ ...common, entryPoints: ["server/src/lsp/workerMain.ts"], outfile: "dist/workerMain.js" }),
  esbuild.build({ ...common, entryPoints: ["server/src/cli/main.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" } }),
  esbuild.build({ ...common, entryPoints: ["server/src/mcp/main.ts"], outfile: "dist/mcp.js", banner: { js: "#!/usr/bin/env node" } }),
]);
