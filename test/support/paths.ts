import * as path from "node:path";

/** The repository root, from compiled tests in out/test/... as well as from sources. */
export const repoRoot = path.resolve(__dirname, __dirname.includes(`${path.sep}out${path.sep}`) ? "../../.." : "../..");

export function fromRoot(...segments: string[]): string {
  return path.join(repoRoot, ...segments);
}
