/**
 * A deterministic corpus of Python files shaped like real Airflow DAG repositories, for the CLI
 * benchmark: mostly DAGs that never touch a state store, about a tenth using the stores or
 * ResumableJobMixin operators, helper modules and tests around them, and about 1% half-typed files
 * that do not parse. The same seed gives the same files, byte for byte.
 *
 * CLI: `node out/test/bench/corpus.js DIR [--seed N] [--files N]`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { dagFile, dagName } from "./corpusDags";
import { clientModule, commonModule, helperModule, testModule } from "./corpusSupport";
import { ResumableOperator, resumableModule, storeDag } from "./corpusStores";
import { DOMAINS, SERVICES, TEAMS, VERBS } from "./corpusWords";
import { Random } from "./random";

export type CorpusFileKind = "dag" | "store-dag" | "resumable-operators" | "helper" | "test" | "unparseable";

export interface CorpusFile {
  /** Relative to the corpus folder, with forward slashes. */
  path: string;
  kind: CorpusFileKind;
  text: string;
}

export interface CorpusOptions {
  seed: number;
  /** How many .py files to generate. */
  files: number;
}

export const DEFAULT_CORPUS: CorpusOptions = { seed: 9, files: 4000 };

/** What a repository pins: Airflow 3.3, so the store rules apply and none of AS501/AS502 fires. */
const REQUIREMENTS = "apache-airflow==3.3.0\napache-airflow-providers-amazon==9.8.0\napache-airflow-providers-snowflake==6.4.0\n";

/** How many files of each kind a corpus of `files` holds; DAGs without stores take the rest. */
function mix(files: number): Record<Exclude<CorpusFileKind, "dag">, number> {
  return {
    unparseable: Math.max(2, Math.round(files * 0.01)),
    "resumable-operators": Math.max(2, Math.round(files * 0.03)),
    "store-dag": Math.max(2, Math.round(files * 0.07)),
    test: Math.round(files * 0.1),
    helper: Math.round(files * 0.12),
  };
}

/** Lines a DAG or module aims at: mostly 30 to 180, some up to 600; `huge` ones 2,000 and more. */
function targetLines(random: Random, huge: boolean): number {
  if (huge) return random.int(2000, 3200);
  const roll = random.next();
  if (roll < 0.45) return random.int(30, 70);
  if (roll < 0.8) return random.int(70, 180);
  if (roll < 0.95) return random.int(180, 400);
  return random.int(400, 600);
}

class Names {
  private readonly used = new Set<string>();

  unique(base: string): string {
    let name = base;
    for (let n = 2; this.used.has(name); n++) name = `${base}_${n}`;
    this.used.add(name);
    return name;
  }
}

export function generateCorpus({ seed, files }: CorpusOptions): CorpusFile[] {
  const random = new Random(seed);
  const counts = mix(files);
  const kinds: CorpusFileKind[] = [];
  for (const [kind, count] of Object.entries(counts) as [CorpusFileKind, number][]) for (let i = 0; i < count; i++) kinds.push(kind);
  while (kinds.length < files) kinds.push("dag");
  kinds.length = files;
  random.shuffle(kinds);
  // A few DAGs of 2,000+ lines, as every large repository has.
  const dagIndices = kinds.flatMap((kind, index) => (kind === "dag" ? [index] : []));
  const huge = new Set(random.sample(dagIndices, Math.max(3, Math.round(files * 0.002))));

  const names = new Names();
  const output: CorpusFile[] = [];
  const operators: ResumableOperator[] = [];
  const services: string[] = [];
  const pending: { index: number; kind: CorpusFileKind; random: Random }[] = kinds.map((kind, index) => ({ index, kind, random: random.fork() }));

  // The mixin operator modules first: the store DAGs import their classes.
  for (const file of pending.filter((f) => f.kind === "resumable-operators")) {
    const service = names.unique(SERVICES[services.length % SERVICES.length]);
    services.push(service);
    const moduleName = `plugins.operators.${service}`;
    const { text, operators: defined } = resumableModule(file.random, service, moduleName);
    operators.push(...defined);
    output.push({ path: `plugins/operators/${service}.py`, kind: "resumable-operators", text });
  }
  // The modules every DAG imports from are part of the helpers' share.
  const fixedHelpers: CorpusFile[] = [{ path: "include/common.py", kind: "helper", text: commonModule() }, ...services.map((service): CorpusFile => ({ path: `include/clients/${service}.py`, kind: "helper", text: clientModule(service) }))];
  output.push(...fixedHelpers);
  let helperSlotsTaken = fixedHelpers.length;

  for (const { index, kind, random: fileRandom } of pending) {
    switch (kind) {
      case "dag": {
        const name = names.unique(dagName(fileRandom));
        output.push({ path: dagPath(fileRandom, name), kind, text: dagFile(fileRandom, name, targetLines(fileRandom, huge.has(index))) });
        break;
      }
      case "store-dag": {
        const name = names.unique(dagName(fileRandom));
        output.push({ path: `dags/${name.split("_")[0]}/${name}.py`, kind, text: storeDag(fileRandom, name, targetLines(fileRandom, false), operators) });
        break;
      }
      case "unparseable": {
        const name = names.unique(`wip_${dagName(fileRandom)}`);
        const text = dagFile(fileRandom, name, targetLines(fileRandom, false), { style: "classic" });
        output.push({ path: `dags/${fileRandom.pick(TEAMS)}/${name}.py`, kind, text: halfTyped(fileRandom, text) });
        break;
      }
      case "helper": {
        if (helperSlotsTaken-- > 0) break;
        const folder = fileRandom.pick(["include", "include", "plugins/utils", "utils", "dags/common", "include/transforms"]);
        const name = names.unique(`${fileRandom.pick(DOMAINS)}_${fileRandom.pick(["utils", "helpers", "schema", "sql", "io", "config"])}`);
        output.push({ path: `${folder}/${name}.py`, kind, text: helperModule(fileRandom, Math.min(400, targetLines(fileRandom, false))) });
        break;
      }
      case "test": {
        const folder = fileRandom.pick(["tests/dags", "tests/dags", "tests/include", "tests/plugins"]);
        const subject = names.unique(`${fileRandom.pick(DOMAINS)}_${fileRandom.pick(VERBS)}`);
        output.push({ path: `${folder}/test_${subject}.py`, kind, text: testModule(fileRandom, Math.min(300, targetLines(fileRandom, false)), subject.replace(/_/g, " ")) });
        break;
      }
      case "resumable-operators":
        break;
    }
  }
  return output;
}

function dagPath(random: Random, name: string): string {
  const team = name.split("_")[0];
  const roll = random.next();
  if (roll < 0.3) return `dags/${name}.py`;
  if (roll < 0.85) return `dags/${team}/${name}.py`;
  return `dags/${team}/${random.pick(["daily", "hourly", "marts", "ingestion", "exports"])}/${name}.py`;
}

/** A DAG file as saved in the middle of typing an operator call: an unterminated string, an open parenthesis. */
function halfTyped(random: Random, text: string): string {
  const lines = text.split("\n");
  const candidates = lines.flatMap((line, index) => (index >= lines.length / 3 && line.includes('task_id="') ? [index] : []));
  const at = candidates.length > 0 ? random.pick(candidates) : lines.length - 2;
  const line = lines[at];
  const cut = line.includes('task_id="') ? line.indexOf('task_id="') + 'task_id="'.length + random.int(0, 3) : line.length;
  return [...lines.slice(0, at), line.slice(0, cut)].join("\n");
}

/** Writes the corpus (and a requirements.txt pinning Airflow 3.3) under `dir`; returns what it wrote. */
export function writeCorpus(dir: string, options: CorpusOptions = DEFAULT_CORPUS): CorpusFile[] {
  const files = generateCorpus(options);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "requirements.txt"), REQUIREMENTS);
  const folders = new Set(files.map((file) => path.dirname(path.join(dir, ...file.path.split("/")))));
  for (const folder of folders) fs.mkdirSync(folder, { recursive: true });
  for (const file of files) fs.writeFileSync(path.join(dir, ...file.path.split("/")), file.text);
  return files;
}

if (require.main === module) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { seed: { type: "string" }, files: { type: "string" } } });
  if (positionals.length !== 1) {
    console.error("usage: node out/test/bench/corpus.js DIR [--seed N] [--files N]");
    process.exit(2);
  }
  const options = { seed: Number(values.seed ?? DEFAULT_CORPUS.seed), files: Number(values.files ?? DEFAULT_CORPUS.files) };
  const written = writeCorpus(positionals[0], options);
  const byKind = new Map<string, number>();
  for (const file of written) byKind.set(file.kind, (byKind.get(file.kind) ?? 0) + 1);
  console.log(`wrote ${written.length} files to ${positionals[0]}: ${[...byKind].map(([kind, n]) => `${n} ${kind}`).join(", ")}`);
}
