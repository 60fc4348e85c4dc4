/** How a `# noqa` comment is read, as ruff reads it: bare (every rule) or with a list of codes. */

export interface NoqaComment {
  /** The codes listed, upper-cased; "all" for a bare `# noqa`. */
  codes: Set<string> | "all";
  /** Offset in the comment's text just after the last listed code, where another can be appended. */
  listEnd?: number;
}

const NOQA = /#\s*noqa(?::\s*([A-Z]+[0-9]+(?:\s*,?\s*[A-Z]+[0-9]+)*))?/i;

export function parseNoqa(commentText: string): NoqaComment | undefined {
  const match = NOQA.exec(commentText);
  if (!match) return undefined;
  if (!match[1]) return { codes: "all" };
  const codes = new Set(match[1].split(/[\s,]+/).filter(Boolean).map((code) => code.toUpperCase()));
  return { codes, listEnd: match.index + match[0].length };
}
