/**
 * How suppression comments are read, as ruff reads them: `# noqa` (bare: every rule) or
 * `# noqa: AS101, AS102` for the line it ends, and `# airflow-state-lint: noqa` (with or without
 * codes) on a line of its own for the whole file, like ruff's `# ruff: noqa`.
 *
 * The comments come from files anyone can write, and these patterns run in untrusted workspaces
 * too, so each must take time linear in the comment's length. A backtracking engine is quadratic
 * when two adjacent `\s*` can split one run of spaces between them (the old separator
 * `\s*,?\s*` did, when the comma was absent): a separator here is `\s*` and then, only after a
 * comma, more white space, so a run of spaces has one way to be read.
 */

export interface NoqaComment {
  /** The codes listed, upper-cased; "all" for a bare comment. */
  codes: Set<string> | "all";
  /** Offset in the comment's text just after the last listed code, where another can be appended. */
  listEnd?: number;
}

/** A rule code as ruff reads one: letters, then digits. */
const CODE = String.raw`[A-Z]+[0-9]+`;
/** Codes separated by white space, a comma, or both. */
const CODE_LIST = String.raw`${CODE}(?:\s*(?:,\s*)?${CODE})*`;

const LINE_NOQA = new RegExp(String.raw`#\s*noqa(?::\s*(${CODE_LIST}))?`, "i");
/** Only at the start of the comment: `# airflow-state-lint: noqa: AS101`. */
const FILE_NOQA = new RegExp(String.raw`^#\s*airflow-state-lint:\s*noqa(?::\s*(${CODE_LIST}))?`, "i");
const CODE_SEPARATOR = /[\s,]+/;

/** The tool's name in a file-level comment, as users write it. */
export const FILE_NOQA_PREFIX = "# airflow-state-lint: noqa";

/** A line's `# noqa` comment; undefined when the comment is none. */
export function parseNoqa(commentText: string): NoqaComment | undefined {
  return readComment(LINE_NOQA, commentText);
}

/** A file-level `# airflow-state-lint: noqa[: codes]` comment; undefined when the comment is none. */
export function parseFileNoqa(commentText: string): NoqaComment | undefined {
  return readComment(FILE_NOQA, commentText);
}

function readComment(pattern: RegExp, commentText: string): NoqaComment | undefined {
  const match = pattern.exec(commentText);
  if (!match) return undefined;
  if (!match[1]) return { codes: "all" };
  return { codes: splitCodes(match[1]), listEnd: match.index + match[0].length };
}

function splitCodes(list: string): Set<string> {
  return new Set(list.split(CODE_SEPARATOR).filter(Boolean).map((code) => code.toUpperCase()));
}
