/**
 * Expands a VS Code snippet body the way the editor does when every tab stop is left at its default:
 * the TextMate-style syntax of VS Code's snippet parser (`$1`, `${1:default}`, `${1|a,b|}`, `$0`,
 * nested placeholders, `$VAR` / `${VAR:default}`, the escapes `\$`, `\}`, `\\` and, in choices,
 * `\,` `\|`), mirrors filled from the first placeholder of their index that has a value, and the
 * whitespace adjustment on insertion (leading tabs become the editor's indentation; lines after the
 * first get the indentation of the line the snippet is inserted on).
 *
 * It is stricter than the editor where the editor silently falls back to literal text: an
 * unterminated or malformed `${...}` and transforms (`${1/re/fmt/}`) throw, so that a typo in a
 * snippet fails the test instead of being inserted as is.
 */

export type SnippetNode =
  | { kind: "text"; value: string }
  | { kind: "placeholder"; index: number; children: SnippetNode[] }
  | { kind: "choice"; index: number; options: string[] }
  | { kind: "variable"; name: string; children: SnippetNode[] | undefined };

/** Variables VS Code resolves itself; a snippet using one needs a value for it in the expansion. */
const EDITOR_VARIABLES = new Set([
  "TM_SELECTED_TEXT", "TM_CURRENT_LINE", "TM_CURRENT_WORD", "TM_LINE_INDEX", "TM_LINE_NUMBER",
  "TM_FILENAME", "TM_FILENAME_BASE", "TM_DIRECTORY", "TM_FILEPATH", "RELATIVE_FILEPATH",
  "CLIPBOARD", "WORKSPACE_NAME", "WORKSPACE_FOLDER", "CURSOR_INDEX", "CURSOR_NUMBER",
  "CURRENT_YEAR", "CURRENT_YEAR_SHORT", "CURRENT_MONTH", "CURRENT_MONTH_NAME", "CURRENT_MONTH_NAME_SHORT",
  "CURRENT_DATE", "CURRENT_DAY_NAME", "CURRENT_DAY_NAME_SHORT", "CURRENT_HOUR", "CURRENT_MINUTE",
  "CURRENT_SECOND", "CURRENT_SECONDS_UNIX", "CURRENT_TIMEZONE_OFFSET", "RANDOM", "RANDOM_HEX", "UUID",
  "BLOCK_COMMENT_START", "BLOCK_COMMENT_END", "LINE_COMMENT",
]);

class SnippetSyntaxError extends Error {
  constructor(message: string, source: string, offset: number) {
    super(`${message} at offset ${offset} of snippet: ${JSON.stringify(source)}`);
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly source: string) {}

  parse(): SnippetNode[] {
    const nodes = this.parseSequence(false);
    if (this.pos < this.source.length) throw this.error("unexpected text");
    return nodes;
  }

  /** Text, tab stops and variables up to the end, or up to the `}` closing the enclosing `${`. */
  private parseSequence(insidePlaceholder: boolean): SnippetNode[] {
    const nodes: SnippetNode[] = [];
    let text = "";
    const flush = () => {
      if (text) nodes.push({ kind: "text", value: text });
      text = "";
    };
    while (this.pos < this.source.length) {
      const ch = this.source[this.pos];
      if (ch === "\\") {
        const next = this.source[this.pos + 1];
        if (next === "$" || next === "}" || next === "\\") {
          text += next;
          this.pos += 2;
        } else {
          text += ch; // VS Code keeps a backslash that escapes nothing
          this.pos += 1;
        }
      } else if (ch === "}" && insidePlaceholder) {
        break;
      } else if (ch === "$") {
        const node = this.parseDollar();
        if (node) {
          flush();
          nodes.push(node);
        } else {
          text += ch;
          this.pos += 1;
        }
      } else {
        text += ch;
        this.pos += 1;
      }
    }
    flush();
    return nodes;
  }

  /** A construct starting at `$`, or undefined when the `$` is literal text. */
  private parseDollar(): SnippetNode | undefined {
    const rest = this.source.slice(this.pos + 1);
    let match = /^[0-9]+/.exec(rest);
    if (match) {
      this.pos += 1 + match[0].length;
      return { kind: "placeholder", index: Number(match[0]), children: [] };
    }
    match = /^[_a-zA-Z][_a-zA-Z0-9]*/.exec(rest);
    if (match) {
      this.pos += 1 + match[0].length;
      return { kind: "variable", name: match[0], children: undefined };
    }
    if (rest.startsWith("{")) return this.parseBraced();
    return undefined;
  }

  /** `${1}`, `${1:...}`, `${1|a,b|}`, `${VAR}`, `${VAR:...}`. */
  private parseBraced(): SnippetNode {
    const start = this.pos;
    this.pos += 2;
    const rest = this.source.slice(this.pos);
    const index = /^[0-9]+/.exec(rest);
    const name = index ? undefined : /^[_a-zA-Z][_a-zA-Z0-9]*/.exec(rest);
    if (!index && !name) throw this.error("`${` must be followed by a tab stop number or a variable name", start);
    this.pos += (index ?? name)![0].length;
    const after = this.source[this.pos];
    if (after === "/") throw this.error("transforms are not supported", start);
    if (after === "|" && index) return this.parseChoice(Number(index[0]), start);
    let children: SnippetNode[] = [];
    if (after === ":") {
      this.pos += 1;
      children = this.parseSequence(true);
    } else if (after !== "}") {
      throw this.error(`unexpected ${JSON.stringify(after ?? "end")} in \`\${...}\``, start);
    }
    if (this.source[this.pos] !== "}") throw this.error("unterminated `${`", start);
    this.pos += 1;
    return index
      ? { kind: "placeholder", index: Number(index[0]), children }
      : { kind: "variable", name: name![0], children: after === ":" ? children : undefined };
  }

  private parseChoice(index: number, start: number): SnippetNode {
    this.pos += 1; // |
    const options: string[] = [];
    let option = "";
    while (this.pos < this.source.length) {
      const ch = this.source[this.pos];
      const next = this.source[this.pos + 1];
      if (ch === "\\" && (next === "," || next === "|" || next === "\\")) {
        option += next;
        this.pos += 2;
      } else if (ch === ",") {
        options.push(option);
        option = "";
        this.pos += 1;
      } else if (ch === "|" && next === "}") {
        options.push(option);
        this.pos += 2;
        return { kind: "choice", index, options };
      } else {
        option += ch;
        this.pos += 1;
      }
    }
    throw this.error("unterminated choice `${N|...|}`", start);
  }

  private error(message: string, offset = this.pos): SnippetSyntaxError {
    return new SnippetSyntaxError(message, this.source, offset);
  }
}

export function parseSnippet(source: string): SnippetNode[] {
  return new Parser(source).parse();
}

/** What each tab stop holds when the snippet is inserted with its defaults. */
export interface TabStop {
  index: number;
  /** The default text (a choice's first option); "" when no placeholder of this index has one. */
  value: string;
  /** Whether a placeholder of this index has content or a choice (for `$0`: its own content). */
  hasDefault: boolean;
  /** Number of places the tab stop appears (the first placeholder with a value, and its mirrors). */
  occurrences: number;
}

export interface ExpandOptions {
  /** Values of the editor variables the snippet uses (`TM_FILENAME`, ...). */
  variables?: Readonly<Record<string, string>>;
  /** Leading whitespace of the line the snippet is inserted on; added to every following non-empty line. */
  indentation?: string;
  /** Spaces per leading tab (Python files: 4, spaces). */
  tabSize?: number;
}

export interface Expansion {
  text: string;
  tabStops: Map<number, TabStop>;
}

/** Expands a snippet body (`body` of a snippet file: a string or lines joined with `\n`) with its defaults. */
export function expandSnippet(body: string | readonly string[], options: ExpandOptions = {}): Expansion {
  const expander = new DefaultExpander(parseSnippet(typeof body === "string" ? body : body.join("\n")), options);
  return { text: adjustWhitespace(expander.text(), options.indentation ?? "", options.tabSize ?? 4), tabStops: expander.tabStops() };
}

/**
 * VS Code's rule: walking the snippet in order, the first placeholder of an index that has content
 * (or a choice) gives its value to every placeholder of that index; `$0` keeps its own content.
 */
class DefaultExpander {
  private readonly definitions = new Map<number, SnippetNode[] | string>();
  private readonly occurrences = new Map<number, number>();
  private readonly finalContent: SnippetNode[][] = [];
  private readonly values = new Map<number, string>();

  constructor(private readonly nodes: SnippetNode[], private readonly options: ExpandOptions) {
    this.collect(nodes);
  }

  text(): string {
    return this.render(this.nodes, new Set());
  }

  tabStops(): Map<number, TabStop> {
    const stops = new Map<number, TabStop>();
    for (const [index, occurrences] of [...this.occurrences].sort((a, b) => a[0] - b[0])) {
      const value = index === 0 ? this.render(this.finalContent[0] ?? [], new Set()) : this.definitions.has(index) ? this.valueOf(index, new Set()) : "";
      const hasDefault = index === 0 ? value !== "" : this.definitions.has(index);
      stops.set(index, { index, value, hasDefault, occurrences });
    }
    return stops;
  }

  private collect(list: SnippetNode[]): void {
    for (const node of list) {
      if (node.kind === "placeholder" || node.kind === "choice") {
        this.occurrences.set(node.index, (this.occurrences.get(node.index) ?? 0) + 1);
      }
      if (node.kind === "choice" && !this.definitions.has(node.index)) this.definitions.set(node.index, node.options[0] ?? "");
      if (node.kind === "placeholder") {
        if (node.index === 0) this.finalContent.push(node.children);
        else if (node.children.length > 0 && !this.definitions.has(node.index)) this.definitions.set(node.index, node.children);
        this.collect(node.children);
      }
      if (node.kind === "variable" && node.children) this.collect(node.children);
    }
  }

  /** The default of a tab stop; `resolving` breaks a placeholder that mirrors itself (`${1:a $1}`). */
  private valueOf(index: number, resolving: Set<number>): string {
    const known = this.values.get(index);
    if (known !== undefined) return known;
    const definition = this.definitions.get(index)!;
    const value = typeof definition === "string" ? definition : this.render(definition, new Set([...resolving, index]));
    this.values.set(index, value);
    return value;
  }

  private render(nodes: SnippetNode[], resolving: Set<number>): string {
    let out = "";
    for (const node of nodes) {
      switch (node.kind) {
        case "text":
          out += node.value;
          break;
        case "choice":
          out += this.valueOf(node.index, resolving);
          break;
        case "placeholder":
          if (node.index !== 0 && this.definitions.has(node.index) && !resolving.has(node.index)) out += this.valueOf(node.index, resolving);
          else out += this.render(node.children, resolving);
          break;
        case "variable": {
          const value = this.options.variables?.[node.name];
          if (value !== undefined) out += value;
          else if (node.children) out += this.render(node.children, resolving);
          else if (EDITOR_VARIABLES.has(node.name)) throw new Error(`no value given for the editor variable $${node.name}`);
          else out += node.name; // VS Code inserts an unknown variable's name as a placeholder
          break;
        }
      }
    }
    return out;
  }
}

/** What the editor does to the inserted text: leading tabs to spaces, then the insertion line's indentation. */
function adjustWhitespace(text: string, indentation: string, tabSize: number): string {
  return text
    .split("\n")
    .map((line, i) => {
      const leading = /^[ \t]*/.exec(line)![0];
      let columns = 0;
      for (const ch of leading) columns = ch === "\t" ? columns - (columns % tabSize) + tabSize : columns + 1;
      const normalized = " ".repeat(columns) + line.slice(leading.length);
      return i === 0 || normalized === "" ? normalized : indentation + normalized;
    })
    .join("\n");
}
