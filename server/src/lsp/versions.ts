/**
 * What the server runs as, for its first log line: its own version and the parser's. A bug report
 * that starts with the log then says which build and grammar produced what it shows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { packageVersion } from "../docs/location";

export interface ServerVersions {
  server: string;
  treeSitter: string;
  treeSitterPython: string;
  node: string;
}

export function serverVersions(): ServerVersions {
  return {
    server: versionOr(packageVersion),
    treeSitter: versionOr(() => installedVersion(require.resolve("tree-sitter"))),
    treeSitterPython: versionOr(() => installedVersion(require.resolve("tree-sitter-python"))),
    node: process.versions.node,
  };
}

/** The version in the package.json above a package's entry point (the packages stay outside the bundle). */
function installedVersion(entry: string): string {
  for (let dir = path.dirname(entry); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest)) return (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version?: string }).version ?? "unknown";
  }
  return "unknown";
}

/** A version that cannot be read is reported as unknown rather than keeping the server from starting. */
function versionOr(read: () => string): string {
  try {
    return read() || "unknown";
  } catch {
    return "unknown";
  }
}

export function describeVersions(versions: ServerVersions): string {
  return `Airflow State Store language server ${versions.server} (tree-sitter ${versions.treeSitter}, tree-sitter-python ${versions.treeSitterPython}, Node ${versions.node})`;
}
