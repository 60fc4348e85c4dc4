/**
 * The MCP server's tools, each one run of the CLI's own command (cli/run.ts) in this process: the
 * same file search, rule options, workspace index, Airflow pins and git baselines, and whatever
 * project configuration the CLI reads, so an agent gets exactly what `airflow-state-lint` prints.
 */
import * as path from "node:path";
import { run } from "../cli/run";
import { unifiedDiff } from "./unifiedDiff";

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
 * What `airflow-state-lint --fix` would change, as a unified diff; the files are written only with
 * `write`, and then exactly the diff shown is what was written (the fixes of a second run would be
 * computed from the same texts).
 */
export async function fixTool(cwd: string, selection: Selection, write: boolean): Promise<ToolOutput> {
  const previews: { file: string; before: string; after: string }[] = [];
  const argv = ["--fix", "--format", "json", ...options(cwd, selection)];
  const preview = await runCli(cwd, argv, (file, before, after) => previews.push({ file, before, after }));
  if (preview.failed) return preview;
  previews.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const diff = previews.map(({ file, before, after }) => unifiedDiff(path.relative(cwd, file).split(path.sep).join("/"), before, after)).join("");
  if (diff === "") return { ...preview, text: "No safe fix applies to these files.\n" };
  if (!write) return { ...preview, text: diff };
  const written = await runCli(cwd, argv);
  return { text: `${diff}\nWritten to ${previews.length} file${previews.length === 1 ? "" : "s"}.\n`, notes: joinNotes(preview.notes, written.notes), failed: written.failed };
}

function options(cwd: string, { paths, select, ignore }: Selection): string[] {
  const argv = ["--exit-zero", "--no-cache"];
  if (select && select.length > 0) argv.push("--select", select.join(","));
  if (ignore && ignore.length > 0) argv.push("--ignore", ignore.join(","));
  // Absolute, so that no path can be taken for an option.
  argv.push(...(paths && paths.length > 0 ? paths : ["."]).map((given) => path.resolve(cwd, given)));
  return argv;
}

async function runCli(cwd: string, argv: string[], previewFix?: (file: string, before: string, after: string) => void): Promise<ToolOutput> {
  let text = "";
  let notes = "";
  const status = await run(argv, { cwd, stdout: (chunk) => (text += chunk), stderr: (chunk) => (notes += chunk), previewFix });
  return { text, notes, failed: status === USAGE_ERROR && text === "" };
}

function joinNotes(...notes: string[]): string {
  return notes.filter((note) => note !== "").join("");
}
