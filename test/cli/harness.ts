/** Runs the built CLI (dist/cli.js) as a child process on temporary folders. */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromRoot } from "../support/paths";

export const CLI = fromRoot("dist", "cli.js");

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliEnvironment {
  /** Added to the child's environment. */
  env?: Record<string, string>;
  /** Options for node itself, before the script (e.g. `--require`). */
  nodeArgs?: readonly string[];
  /** Standard input. */
  input?: string;
}

export function runCli(args: readonly string[], cwd: string, environment: CliEnvironment = {}): CliRun {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does).`);
  const result = spawnSync(process.execPath, [...(environment.nodeArgs ?? []), CLI, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    input: environment.input,
    env: { ...process.env, ...environment.env },
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A file tree: path relative to the root → text, bytes, or a symbolic link's target. */
export type Tree = Record<string, string | Buffer | { symlink: string }>;

const created: string[] = [];

/** A fresh folder holding `tree`. Its real path, so that it matches the child's process.cwd(). */
export function makeTree(tree: Tree): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "airflow-state-lint-")));
  created.push(root);
  writeTree(root, tree);
  return root;
}

export function writeTree(root: string, tree: Tree): void {
  for (const [relative, content] of Object.entries(tree)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (typeof content === "object" && !Buffer.isBuffer(content)) fs.symlinkSync(content.symlink, file);
    else fs.writeFileSync(file, content);
  }
}

export function removeTrees(): void {
  for (const root of created.splice(0)) fs.rmSync(root, { recursive: true, force: true });
}
