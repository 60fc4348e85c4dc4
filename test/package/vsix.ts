/**
 * Builds the extension's .vsix the way `npm run package` does, from the bundles already in dist/.
 * vsce's command line would first run `vscode:prepublish`, which rewrites dist/ while other test
 * files may be starting dist/server.js; vsce's own `pack` step is the same packaging without it.
 */
import { fromRoot } from "../support/paths";

/** The options `npm run package` gives on vsce's command line (see package.json). */
const PACKAGE_OPTIONS = {
  // README links to docs/rules/*.md stay relative: they open inside the installed extension.
  rewriteRelativeLinks: false,
  allowMissingRepository: true,
};

interface VscePackModule {
  pack(options: { cwd: string; packagePath: string; rewriteRelativeLinks: boolean; allowMissingRepository: boolean }): Promise<{ packagePath: string }>;
}

export async function packVsix(outFile: string): Promise<string> {
  // vsce 3 has no public API that skips prepublish; its package module is pinned with vsce's version.
  const vsce = require("@vscode/vsce/out/package") as VscePackModule;
  const log = console.log;
  // vsce prints the packed file tree; the test reports what it finds itself.
  console.log = () => undefined;
  try {
    const { packagePath } = await vsce.pack({ cwd: fromRoot(), packagePath: outFile, ...PACKAGE_OPTIONS });
    return packagePath;
  } finally {
    console.log = log;
  }
}
