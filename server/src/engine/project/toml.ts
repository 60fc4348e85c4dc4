/**
 * A small TOML reader for `pyproject.toml` and the linter's configuration files: tables, arrays of
 * tables, dotted keys, strings (all four kinds), arrays and inline tables, each value with the line
 * it starts on, which is what lets a configuration problem name its line. Numbers, booleans and
 * dates are checked against TOML's grammar and kept as raw text. It rejects, with `TomlError` and
 * the line, what TOML forbids and a user gets wrong: text it cannot read, a key given twice, a table
 * defined twice, a value later used as a table, an inline table extended, a bare word that is not a
 * number, boolean or date. It is lenient on the rest of the grammar's fine print (control
 * characters in strings, newlines in inline tables).
 */

export type TomlValue =
  | { type: "string"; value: string; line: number }
  | { type: "array"; items: TomlValue[]; line: number }
  | { type: "table"; entries: Map<string, TomlValue>; line: number }
  | { type: "other"; raw: string; line: number };

export type TomlTable = Extract<TomlValue, { type: "table" }>;

export class TomlError extends Error {
  constructor(
    /** 1-based line of the problem. */
    readonly line: number,
    /** What is wrong, without the line. */
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

export function parseToml(text: string): TomlTable {
  return new TomlReader(text).document();
}

/** The value at a key path (`["tool", "poetry", "dependencies"]`), looking through tables only. */
export function tomlLookup(table: TomlTable, path: readonly string[]): TomlValue | undefined {
  let current: TomlValue | undefined = table;
  for (const key of path) {
    if (current?.type !== "table") return undefined;
    current = current.entries.get(key);
  }
  return current;
}

const BARE_KEY = /[A-Za-z0-9_-]/;
/** Booleans, integers (decimal, hex, octal, binary), floats, and dates and times, as TOML writes them. */
const BARE_VALUE = new RegExp(
  [
    "true|false",
    "[+-]?(?:0|[1-9](?:_?\\d)*)",
    "0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*",
    "[+-]?(?:0|[1-9](?:_?\\d)*)(?:\\.\\d(?:_?\\d)*)?(?:[eE][+-]?\\d(?:_?\\d)*)?",
    "[+-]?(?:inf|nan)",
    "\\d{4}-\\d{2}-\\d{2}(?:[Tt ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:[Zz]|[+-]\\d{2}:\\d{2})?)?",
    "\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?",
  ]
    .map((form) => `^(?:${form})$`)
    .join("|"),
);
const ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", e: "\x1b", '"': '"', "\\": "\\" };

class TomlReader {
  private pos = 0;
  private line = 1;
  /** Tables a `[header]` defined: a second header for one is an error. */
  private readonly defined = new Set<TomlTable>();
  /** Inline tables and static arrays: complete where they are written, so nothing may add to them. */
  private readonly closed = new Set<TomlValue>();

  constructor(private readonly text: string) {}

  document(): TomlTable {
    const root: TomlTable = { type: "table", entries: new Map(), line: 1 };
    let current = root;
    for (;;) {
      this.skipBlank(true);
      if (this.pos >= this.text.length) return root;
      if (this.peek() === "[") {
        const arrayOfTables = this.text.startsWith("[[", this.pos);
        this.pos += arrayOfTables ? 2 : 1;
        const line = this.line;
        const path = this.keyPath();
        this.expect(arrayOfTables ? "]]" : "]");
        current = arrayOfTables ? this.appendTable(root, path, line) : this.defineTable(root, path, line);
      } else {
        const line = this.line;
        const path = this.keyPath();
        this.expect("=");
        this.skipBlank(false);
        this.assign(current, path, this.value(), line);
      }
      this.endOfLine();
    }
  }

  private keyPath(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipBlank(false);
      const c = this.peek();
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const start = this.pos;
        while (this.pos < this.text.length && BARE_KEY.test(this.text[this.pos])) this.pos++;
        if (start === this.pos) throw this.error("expected a key");
        parts.push(this.text.slice(start, this.pos));
      }
      this.skipBlank(false);
      if (this.peek() !== ".") return parts;
      this.pos++;
    }
  }

  private value(): TomlValue {
    const line = this.line;
    const c = this.peek();
    if (this.text.startsWith('"""', this.pos)) return { type: "string", value: this.multilineString('"""'), line };
    if (this.text.startsWith("'''", this.pos)) return { type: "string", value: this.multilineString("'''"), line };
    if (c === '"') return { type: "string", value: this.basicString(), line };
    if (c === "'") return { type: "string", value: this.literalString(), line };
    if (c === "[") return this.array(line);
    if (c === "{") return this.inlineTable(line);
    const start = this.pos;
    while (this.pos < this.text.length && !/[,\]}#\r\n]/.test(this.text[this.pos])) this.pos++;
    const raw = this.text.slice(start, this.pos).trim();
    if (raw === "") throw this.error("expected a value");
    if (!BARE_VALUE.test(raw)) throw this.error(`${raw} is not a TOML value (strings need quotes)`);
    return { type: "other", raw, line };
  }

  private array(line: number): TomlValue {
    this.pos++;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipBlank(true);
      if (this.peek() === "]") break;
      items.push(this.value());
      this.skipBlank(true);
      if (this.peek() === ",") this.pos++;
      else if (this.peek() !== "]") throw this.error("expected , or ] in an array");
    }
    this.pos++;
    const array: TomlValue = { type: "array", items, line };
    this.closed.add(array);
    return array;
  }

  private inlineTable(line: number): TomlValue {
    this.pos++;
    const table: TomlTable = { type: "table", entries: new Map(), line };
    for (;;) {
      this.skipBlank(true);
      if (this.peek() === "}") break;
      const keyLine = this.line;
      const path = this.keyPath();
      this.expect("=");
      this.skipBlank(false);
      this.assign(table, path, this.value(), keyLine);
      this.skipBlank(true);
      if (this.peek() === ",") this.pos++;
      else if (this.peek() !== "}") throw this.error("expected , or } in an inline table");
    }
    this.pos++;
    this.closed.add(table);
    return table;
  }

  private basicString(): string {
    this.pos++;
    let value = "";
    for (;;) {
      const c = this.text[this.pos++];
      if (c === undefined || c === "\n") throw this.error("unterminated string");
      if (c === '"') return value;
      value += c === "\\" ? this.escape() : c;
    }
  }

  private literalString(): string {
    const end = this.text.indexOf("'", this.pos + 1);
    const newline = this.text.indexOf("\n", this.pos + 1);
    if (end === -1 || (newline !== -1 && newline < end)) throw this.error("unterminated string");
    const value = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return value;
  }

  private multilineString(delimiter: string): string {
    this.pos += 3;
    // Up to two quotes may directly precede the closing delimiter and belong to the string.
    let end = this.text.indexOf(delimiter, this.pos);
    if (end === -1) throw this.error("unterminated string");
    while (this.text[end + 3] === delimiter[0] && end + 3 < this.text.length) end++;
    let raw = this.text.slice(this.pos, end);
    this.countLines(raw);
    this.pos = end + 3;
    if (raw.startsWith("\r\n")) raw = raw.slice(2);
    else if (raw.startsWith("\n")) raw = raw.slice(1);
    if (delimiter === "'''") return raw;
    return raw.replace(/\\(?:[ \t]*\r?\n\s*|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (sequence) => {
      if (/^\\[ \t]*\r?\n/.test(sequence)) return "";
      return unescape(sequence.slice(1)) ?? sequence;
    });
  }

  private escape(): string {
    const c = this.text[this.pos];
    const width = c === "u" ? 5 : c === "U" ? 9 : 1;
    const sequence = this.text.slice(this.pos, this.pos + width);
    const value = unescape(sequence);
    if (value === undefined) throw this.error(`invalid escape \\${c}`);
    this.pos += width;
    return value;
  }

  private assign(table: TomlTable, path: string[], value: TomlValue, line: number): void {
    const parent = this.tableAt(table, path.slice(0, -1), line);
    const key = path[path.length - 1];
    if (parent.entries.has(key)) throw new TomlError(line, `${path.join(".")} is given twice`);
    parent.entries.set(key, value);
  }

  /** The table a `[header]` names, which no other header may name. */
  private defineTable(root: TomlTable, path: readonly string[], line: number): TomlTable {
    const table = this.tableAt(root, path, line);
    if (this.defined.has(table)) throw new TomlError(line, `the table [${path.join(".")}] is defined twice`);
    this.defined.add(table);
    return table;
  }

  /** The table at `path`, created (with any missing parents) when absent; through an array of tables, its last element. */
  private tableAt(root: TomlTable, path: readonly string[], line: number): TomlTable {
    let current = root;
    for (const [index, key] of path.entries()) {
      let next = current.entries.get(key);
      if (next?.type === "array" && !this.closed.has(next) && next.items.length > 0 && next.items[next.items.length - 1].type === "table") {
        next = next.items[next.items.length - 1];
      }
      if (!next) {
        next = { type: "table", entries: new Map(), line };
        current.entries.set(key, next);
      } else if (next.type !== "table" || this.closed.has(next)) {
        throw new TomlError(line, `${path.slice(0, index + 1).join(".")} already has a value, so it cannot be a table here`);
      }
      current = next;
    }
    return current;
  }

  private appendTable(root: TomlTable, path: readonly string[], line: number): TomlTable {
    const parent = this.tableAt(root, path.slice(0, -1), line);
    const key = path[path.length - 1];
    let array = parent.entries.get(key);
    if (array === undefined) {
      array = { type: "array", items: [], line };
      parent.entries.set(key, array);
    } else if (array.type !== "array" || this.closed.has(array)) {
      throw new TomlError(line, `${path.join(".")} already has a value, so it cannot be an array of tables`);
    }
    const table: TomlTable = { type: "table", entries: new Map(), line };
    array.items.push(table);
    return table;
  }

  /** Skips spaces and tabs, and with `newlines` also line breaks and comments. */
  private skipBlank(newlines: boolean): void {
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === " " || c === "\t") this.pos++;
      else if (newlines && (c === "\n" || c === "\r")) {
        if (c === "\n") this.line++;
        this.pos++;
      } else if (newlines && c === "#") this.skipComment();
      else return;
    }
  }

  private skipComment(): void {
    while (this.pos < this.text.length && this.text[this.pos] !== "\n") this.pos++;
  }

  private endOfLine(): void {
    this.skipBlank(false);
    if (this.peek() === "#") this.skipComment();
    if (this.peek() === "\r") this.pos++;
    if (this.pos < this.text.length && this.peek() !== "\n") throw this.error("expected the end of the line");
  }

  private expect(token: string): void {
    this.skipBlank(false);
    if (!this.text.startsWith(token, this.pos)) throw this.error(`expected ${token}`);
    this.pos += token.length;
  }

  private peek(): string {
    return this.text[this.pos];
  }

  private countLines(text: string): void {
    for (const c of text) if (c === "\n") this.line++;
  }

  private error(message: string): TomlError {
    return new TomlError(this.line, message);
  }
}

/** The character an escape sequence (without its backslash: `n`, `u00e9`) stands for. */
function unescape(sequence: string): string | undefined {
  if (sequence.length === 1) return ESCAPES[sequence];
  if (/^u[0-9A-Fa-f]{4}$|^U[0-9A-Fa-f]{8}$/.test(sequence)) return String.fromCodePoint(parseInt(sequence.slice(1), 16));
  return undefined;
}
