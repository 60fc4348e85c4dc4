/**
 * The files of a DAG repository around the DAGs: helper modules (include/, plugins/, utils/) that
 * never import Airflow, the API clients the mixin operators call, and pytest files.
 */
import { ModuleWriter } from "./corpusModule";
import { camel, DOMAINS, title, VERBS } from "./corpusWords";
import { Random } from "./random";

function helperFunction(module: ModuleWriter, random: Random, used: Set<string>): string[] {
  const domain = random.pick(DOMAINS);
  let name = `${random.pick(["parse", "normalise", "build", "split", "merge", "format", "load", "clean"])}_${domain}`;
  for (let n = 2; used.has(name); n++) name = `${name.replace(/_\d+$/, "")}_${n}`;
  used.add(name);
  const shape = random.int(0, 4);
  switch (shape) {
    case 0:
      module.from("typing", "Any", "Iterable");
      return [`def ${name}(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:`, `    """${title(name)} rows, dropping the ones without an id."""`, `    result = []`, `    for row in rows:`, `        if not row.get("id"):`, `            continue`, `        row = {key.lower(): value for key, value in row.items()}`, `        row["${domain}_key"] = f"{row['id']}-{row.get('version', 0)}"`, `        result.append(row)`, `    return result`];
    case 1:
      module.import("re");
      return [`def ${name}(value: str) -> str:`, `    cleaned = re.sub(r"[^a-z0-9_]+", "_", value.strip().lower())`, `    if len(cleaned) > ${random.int(32, 128)}:`, `        cleaned = cleaned[:${random.int(16, 31)}]`, `    return cleaned.strip("_") or "${domain}"`];
    case 2:
      module.import("json");
      module.from("pathlib", "Path");
      return [`def ${name}(path: Path) -> dict:`, `    """Reads a JSON config, falling back to the defaults."""`, `    try:`, `        with path.open(encoding="utf-8") as handle:`, `            loaded = json.load(handle)`, `    except FileNotFoundError:`, `        loaded = {}`, `    return {**DEFAULTS, **loaded}`];
    case 3:
      module.from("datetime", "date", "timedelta");
      return [`def ${name}(start: date, end: date, step_days: int = ${random.int(1, 7)}):`, `    day = start`, `    while day < end:`, `        yield day, min(day + timedelta(days=step_days), end)`, `        day += timedelta(days=step_days)`];
    default:
      return [`def ${name}(sql: str, **params) -> str:`, `    """Fills the {placeholders} of a SQL template."""`, `    missing = [key for key in ("schema", "table") if key not in params]`, `    if missing:`, `        raise ValueError(f"missing {', '.join(missing)}")`, `    return sql.format(**params)`];
  }
}

function helperClass(module: ModuleWriter, random: Random, used: Set<string>): string[] {
  const domain = random.pick(DOMAINS);
  let name = `${camel(domain)}${random.pick(["Record", "Batch", "Window", "Summary", "Spec"])}`;
  for (let n = 2; used.has(name); n++) name = `${name.replace(/\d+$/, "")}${n}`;
  used.add(name);
  module.from("dataclasses", "dataclass", "field");
  return [
    "@dataclass(frozen=True)",
    `class ${name}:`,
    `    """One ${domain.replace(/s$/, "")} as the warehouse exports it."""`,
    "",
    "    id: str",
    `    ${domain}_count: int = 0`,
    "    tags: tuple[str, ...] = field(default_factory=tuple)",
    "",
    "    @property",
    "    def is_empty(self) -> bool:",
    `        return self.${domain}_count == 0`,
    "",
    "    def as_row(self) -> dict:",
    `        return {"id": self.id, "count": self.${domain}_count, "tags": list(self.tags)}`,
  ];
}

/** A helper module that never imports Airflow, of about `targetLines`. */
export function helperModule(random: Random, targetLines: number): string {
  const module = new ModuleWriter(`${title(random.pick(DOMAINS))} helpers shared by the DAGs.\n`);
  module.preamble.push(`DEFAULTS = {"batch_size": ${random.pick([500, 1000, 5000])}, "timeout": ${random.int(10, 300)}}`, `SQL_${random.pick(VERBS).toUpperCase()} = """`, `SELECT id, updated_at FROM {schema}.{table}`, `WHERE updated_at >= %(since)s`, `"""`);
  const used = new Set<string>();
  while (module.lineCount() < targetLines - 8) {
    module.body.push(...(random.chance(0.75) ? helperFunction(module, random, used) : helperClass(module, random, used)), "", "");
  }
  return module.render();
}

/** `include.clients.<service>`: the REST client the service's mixin operators call. */
export function clientModule(service: string): string {
  const module = new ModuleWriter(`A small client for the ${service.replace(/_/g, " ")} REST API.\n`);
  module.import("os");
  module.import("requests");
  const name = `${camel(service)}Client`;
  module.body.push(
    `class ${name}:`,
    `    def __init__(self, base_url: str | None = None, token: str | None = None):`,
    `        self.base_url = base_url or os.environ["${service.toUpperCase()}_URL"]`,
    `        self.session = requests.Session()`,
    `        self.session.headers["Authorization"] = f"Bearer {token or os.environ['${service.toUpperCase()}_TOKEN']}"`,
    "",
    ...["submit", "status", "result", "track"].flatMap((verb) => [
      `    def ${verb}(self, *args, **kwargs):`,
      `        response = self.session.post(f"{self.base_url}/${verb}", json={"args": args, **kwargs}, timeout=30)`,
      `        response.raise_for_status()`,
      `        return response.json()`,
      "",
    ]),
  );
  return module.render();
}

/** The shared helpers every DAG imports from (`include.common`). */
export function commonModule(): string {
  const module = new ModuleWriter("Helpers every DAG of this repository imports.\n");
  module.body.push(
    "def chunks(items, size):",
    "    for start in range(0, len(items), size):",
    "        yield items[start : start + size]",
    "",
    "",
    "def fetch_rows(table, **filters):",
    '    return [{"id": n, "table": table, **filters} for n in range(10)]',
    "",
    "",
    "def pages(table, after=0):",
    '    yield {"rows": fetch_rows(table), "last_id": after + 10}',
    "",
    "",
    "def upload(rows, prefix):",
    '    return f"{prefix}/{len(rows)}"',
  );
  return module.render();
}

/** A pytest file: fixtures, parametrised cases, mocks, and sometimes a DagBag import check. */
export function testModule(random: Random, targetLines: number, subject: string): string {
  const module = new ModuleWriter(`Tests of ${subject}.\n`);
  module.import("pytest");
  const lines: string[] = [];
  if (random.chance(0.3)) {
    module.from("airflow.models", "DagBag");
    lines.push("@pytest.fixture(scope=\"session\")", "def dag_bag():", '    return DagBag(dag_folder="dags", include_examples=False)', "", "", "def test_no_import_errors(dag_bag):", "    assert dag_bag.import_errors == {}", "", "", "def test_every_dag_has_tags(dag_bag):", "    for dag_id, dag in dag_bag.dags.items():", '        assert dag.tags, f"{dag_id} has no tags"', "", "");
  }
  module.from("unittest", "mock");
  let n = 0;
  while (module.lineCount() + lines.length < targetLines - 6) {
    const domain = random.pick(DOMAINS);
    n++;
    if (random.chance(0.4)) {
      lines.push(`@pytest.mark.parametrize(`, `    ("value", "expected"),`, `    [`, ...Array.from({ length: random.int(2, 5) }, (_, i) => `        ("${domain} ${i}", "${domain}_${i}"),`), `    ],`, `)`, `def test_${domain}_${n}_is_normalised(value, expected):`, `    assert value.replace(" ", "_") == expected`, "", "");
    } else {
      lines.push(`def test_${random.pick(VERBS)}_${domain}_${n}(tmp_path):`, `    with mock.patch("include.common.fetch_rows", return_value=[{"id": 1}]) as fetch:`, `        path = tmp_path / "${domain}.json"`, `        path.write_text("{}")`, `        assert path.exists()`, `    assert fetch.call_count == 0`, "", "");
    }
  }
  module.body.push(...lines);
  return module.render();
}
