/**
 * Reads a file's committed text, the baseline that AS301 compares `external_id_key` against.
 * Never throws: no git, a file outside a repository, an untracked file or an unknown revision all
 * mean "no baseline", and the rule stays silent.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";

const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

function git(args: string[], cwd: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, timeout: timeoutMs, maxBuffer: MAX_BASELINE_BYTES, windowsHide: true }, (error, stdout) => {
      resolve(error ? undefined : stdout);
    });
  });
}

/** The text of `filePath` at `revision` (default `HEAD`), or undefined when there is none. */
export async function committedText(filePath: string, revision = "HEAD", timeoutMs = 5000): Promise<string | undefined> {
  // git reports the top level with symlinks resolved, so the file's path must be too.
  const absolute = await fs.realpath(filePath).catch(() => undefined);
  if (!absolute) return undefined;
  const directory = path.dirname(absolute);
  const top = await git(["rev-parse", "--show-toplevel"], directory, timeoutMs);
  if (!top) return undefined;
  const relative = path.relative(top.trim(), absolute).split(path.sep).join("/");
  // `--` ends the revisions, so a path is never taken for one; it does not stop a revision that starts
  // with a dash from being read as an option, which is why the CLI refuses such a `--baseline`.
  return git(["show", `${revision}:${relative}`, "--"], directory, timeoutMs);
}
