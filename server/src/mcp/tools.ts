/**
 * The MCP server's tools, each one run of the CLI's own command (cli/run.ts) in this process: the
 * same file search, rule options, workspace index, Airflow pins and git baselines, and whatever
 * project configuration the CLI reads, so an agent gets exactly what `airflow-state-lint` prints.
 */
import * as path from "node:path";
import { run } from "../cli/run";

export interface Selection {
  /** Files or folders; relative ones are resolved against `cwd`. Default: `cwd` itself. */
  paths?: string[];
  /** Rule codes or prefixes, as `--select` / `--ignore`. */
  select?: string[];
  ignore?: string[];
}

export interface ToolOutput {
  text: string;
  /** The CLI's warnings and errors (unreadable files, a broken pin file, …). */
  notes: string;
  /** The CLI could not run: a usage error (a path that does not exist, an unknown rule code). */
  failed: boolean;
}

/** The CLI's exit status for its own usage errors. */
const USAGE_ERROR = 2;

/** `airflow-state-lint --format json`: every finding, as the CLI's JSON array. */
export function lintTool(cwd: string, selection: Selection): Promise<ToolOutput> {
  return runCli(cwd, ["--format", "json", ...options(cwd, selection)]);
}

/** `airflow-state-lint --format review`: the Markdown review of each file. */
export function reviewTool(cwd: string, selection: Selection): Promise<ToolOutput> {
  return runCli(cwd, ["--format", "review", ...options(cwd, selection)]);
}

/**
 * What `airflow-state-lint --fix` would change, as the unified diff of `--diff`; the files are
 * written only with `write`, and then exactly the diff shown is what was written (the fixes of a
 * second run are computed from the same texts).
 */
export async function fixTool(cwd: string, selection: Selection, write: boolean): Promise<ToolOutput> {
  const preview = await runCli(cwd, ["--diff", ...options(cwd, selection)]);
  if (preview.failed) return preview;
  // `--diff` sums up on standard error ("Would fix 2 problems in 1 file."); the diff itself says that.
  const notes = preview.notes.replace(/^(Would fix .*|No fixes would be made\.)\n/m, "");
  if (preview.text === "") return { text: "No safe fix applies to these files.\n", notes, failed: false };
  if (!write) return { ...preview, notes };
  const files = preview.text.split("\n").filter((line) => line.startsWith("+++ b/")).length;
  const written = await runCli(cwd, ["--fix", "--format", "json", ...options(cwd, selection)]);
  return { text: `${preview.text}\nWritten to ${files} file${files === 1 ? "" : "s"}.\n`, notes: joinNotes(notes, written.notes), failed: written.failed };
}

function options(cwd: string, { paths, select, ignore }: Selection): string[] {
  const argv = ["--exit-zero", "--no-cache"];
  if (select && select.length > 0) argv.push("--select", select.join(","));
  if (ignore && ignore.length > 0) argv.push("--ignore", ignore.join(","));
  // Absolute, so that no path can be taken for an option.
  argv.push(...(paths && paths.length > 0 ? paths : ["."]).map((given) => path.resolve(cwd, given)));
  return argv;
}

async function runCli(cwd: string, argv: string[]): Promise<ToolOutput> {
  let text = "";
  let notes = "";
  const status = await run(argv, { cwd, stdout: (chunk) => (text += chunk), stderr: (chunk) => (notes += chunk) });
  return { text, notes, failed: status === USAGE_ERROR && text === "" };
}

function joinNotes(...notes: string[]): string {
  return notes.filter((note) => note !== "").join("");
}
