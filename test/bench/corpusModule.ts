/**
 * A Python module being written by the corpus generator: its imports gathered as the code that needs
 * them is added, then rendered in the order a formatter (isort) would leave them.
 */
export class ModuleWriter {
  private readonly fromImports = new Map<string, Set<string>>();
  private readonly plainImports = new Set<string>();
  /** Module-level code above the main body (constants, helper functions, classes). */
  readonly preamble: string[] = [];
  readonly body: string[] = [];

  constructor(private readonly docstring: string) {}

  from(module: string, ...names: string[]): void {
    const known = this.fromImports.get(module) ?? new Set<string>();
    for (const name of names) known.add(name);
    this.fromImports.set(module, known);
  }

  import(module: string): void {
    this.plainImports.add(module);
  }

  /** About the lines `render` gives (long import lists wrap): cheap enough to ask after every addition. */
  lineCount(): number {
    return this.docstring.split("\n").length + this.plainImports.size + this.fromImports.size + 8 + this.preamble.length + this.body.length;
  }

  render(): string {
    const standard: string[] = [];
    const thirdParty: string[] = [];
    const local: string[] = [];
    const groupOf = (module: string) => (STANDARD_LIBRARY.has(module.split(".")[0]) ? standard : LOCAL_PACKAGES.has(module.split(".")[0]) ? local : thirdParty);
    for (const module of [...this.plainImports].sort()) groupOf(module).push(`import ${module}`);
    for (const module of [...this.fromImports.keys()].sort()) {
      const names = [...this.fromImports.get(module)!].sort();
      const line = `from ${module} import ${names.join(", ")}`;
      groupOf(module).push(line.length <= 100 ? line : `from ${module} import (\n${names.map((n) => `    ${n},`).join("\n")}\n)`);
    }
    const future = standard.filter((line) => line.startsWith("from __future__"));
    const sections = [future, standard.filter((line) => !future.includes(line)), thirdParty, local].filter((group) => group.length > 0).map((group) => group.join("\n"));
    const parts = [`"""${this.docstring}"""`, ...sections];
    if (this.preamble.length > 0) parts.push(this.preamble.join("\n"));
    if (this.body.length > 0) parts.push(this.body.join("\n"));
    return parts.join("\n\n").replace(/\n{4,}/g, "\n\n\n") + "\n";
  }
}

const STANDARD_LIBRARY = new Set(["__future__", "datetime", "json", "logging", "os", "re", "time", "typing", "dataclasses", "pathlib", "functools", "itertools", "collections", "hashlib", "unittest", "textwrap", "csv", "uuid", "enum", "decimal"]);
const LOCAL_PACKAGES = new Set(["include", "plugins", "dags", "utils", "tests"]);
