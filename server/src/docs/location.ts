/**
 * Where the package lives on disk and where each rule's page is inside it. Shared by the docs
 * generator (which writes the pages) and the CLI (which links to them from SARIF), so that both
 * agree on one layout whether they run from out/ (tsc), dist/ (esbuild) or an installed package.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const PACKAGE_NAME = "airflow-state-store";

let cachedRoot: string | undefined;

/** The folder holding this package's package.json, found by walking up from the running file. */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && readManifest(manifest)?.name === PACKAGE_NAME) return (cachedRoot = dir);
    if (path.dirname(dir) === dir) throw new Error(`Cannot find the ${PACKAGE_NAME} package.json above ${__dirname}`);
  }
}

export function packageVersion(): string {
  return readManifest(path.join(packageRoot(), "package.json"))?.version ?? "0.0.0";
}

/** The folder of the generated rule pages, relative to the package root. */
export const RULE_DOCS_FOLDER = "docs/rules";

/** `docs/rules/AS102.md`, relative to the package root, with forward slashes. */
export function ruleDocRelativePath(code: string): string {
  return `${RULE_DOCS_FOLDER}/${code}.md`;
}

function readManifest(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}
