/**
 * The glob patterns of the configuration's `exclude` and `per-file-ignores`, as ruff reads them: `*`
 * and `?` stay within one path segment, `**` spans segments, `[abc]` / `[!abc]` are classes and
 * `{a,b}` alternatives. A pattern with a `/` is anchored at the configuration file's folder; one
 * without names a file or folder anywhere below it (`tests`, `*_test.py`).
 */

export interface GlobPattern {
  /** The pattern as written, for messages. */
  text: string;
  anchored: boolean;
  regex: RegExp;
}

/** The pattern compiled; undefined when it is empty or its brackets and braces do not close. */
export function compileGlob(text: string): GlobPattern | undefined {
  const trimmed = text.trim().replace(/^\.\//, "").replace(/\/+$/, "");
  const anchored = trimmed.includes("/");
  const pattern = trimmed.replace(/^\/+/, "");
  if (pattern === "") return undefined;
  const source = translate(pattern);
  return source === undefined ? undefined : { text, anchored, regex: new RegExp(`^${source}$`) };
}

/**
 * Whether a path (relative to the configuration's folder, with `/`) is matched, itself or through a
 * folder it is in: `dags/legacy` matches `dags/legacy/old.py`.
 */
export function globMatches(glob: GlobPattern, relativePath: string): boolean {
  const segments = relativePath.split("/");
  if (!glob.anchored) return segments.some((segment) => glob.regex.test(segment));
  for (let end = segments.length; end > 0; end--) if (glob.regex.test(segments.slice(0, end).join("/"))) return true;
  return false;
}

function translate(pattern: string): string | undefined {
  let out = "";
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      const atStart = i === 0 || pattern[i - 1] === "/";
      const slashAfter = pattern[i + 2] === "/";
      if (atStart && slashAfter) {
        out += "(?:[^/]*/)*";
        i += 2;
      } else if (atStart && i + 2 === pattern.length) {
        out += ".*";
        i += 1;
      } else {
        out += "[^/]*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return undefined;
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      out += `[${negated ? "^/" : ""}${body.replace(/[\\\]]/g, "\\$&")}]`;
      i = close;
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else out += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return braces === 0 ? out : undefined;
}
