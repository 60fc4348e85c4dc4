/**
 * The minority of a DAG repository that uses Airflow 3.3's state stores: `ResumableJobMixin`
 * operator modules (most written as documented, some with the mistakes the AS3xx rules catch) and
 * DAGs whose tasks keep state in `task_state_store` / `asset_state_store`, correctly or not.
 */
import { DagFile, dagFile, Unit } from "./corpusDags";
import { ModuleWriter } from "./corpusModule";
import { camel, DOMAINS, title } from "./corpusWords";
import { Random } from "./random";

/** A mixin operator class of the corpus, for the DAGs that import it. */
export interface ResumableOperator {
  module: string;
  className: string;
}

const SIX_METHODS = ["submit_job", "get_job_status", "is_job_active", "is_job_succeeded", "poll_until_complete", "get_job_result"] as const;

function method(name: (typeof SIX_METHODS)[number], client: string, preRelease: boolean): string[] {
  switch (name) {
    case "submit_job":
      return [`    def submit_job(self, context):`, `        job = ${client}().submit(self.job_name, run_id=context["run_id"], payload=self.payload)`, `        log.info("submitted %s", job["id"])`, `        return job["id"]`];
    case "get_job_status":
      return [`    def get_job_status(self, external_id${preRelease ? "" : ", context"}) -> str:`, `        return ${client}().status(external_id)["state"]`];
    case "is_job_active":
      return [`    def is_job_active(self, status) -> bool:`, `        return status in ("QUEUED", "PENDING", "RUNNING")`];
    case "is_job_succeeded":
      return [`    def is_job_succeeded(self, status) -> bool:`, `        return status == "SUCCEEDED"`];
    case "poll_until_complete":
      return [`    def poll_until_complete(self, external_id, context) -> None:`, `        while True:`, `            state = ${client}().status(external_id)["state"]`, `            if state == "FAILED":`, `                raise RuntimeError(f"job {external_id} failed")`, `            if state == "SUCCEEDED":`, `                return`, `            time.sleep(self.poll_interval)`];
    case "get_job_result":
      return [`    def get_job_result(self, external_id, context):`, `        return ${client}().result(external_id)`];
  }
}

/**
 * A module of one to three mixin operators for `service`; the first defines its own
 * `external_id_key` (what AS301 guards), later ones derive from it and sometimes set their own.
 */
export function resumableModule(random: Random, service: string, moduleName: string): { text: string; operators: ResumableOperator[] } {
  const module = new ModuleWriter(`Operators for the ${service.replace(/_/g, " ")} service, resumable across worker crashes.\n\nA retry reconnects to the job it submitted instead of submitting a second one.\n`);
  module.from("__future__", "annotations");
  module.import("logging");
  module.import("time");
  const client = `${camel(service)}Client`;
  module.from(`include.clients.${service}`, client);
  module.preamble.push("log = logging.getLogger(__name__)");
  const flawed = random.chance(0.3);
  const mistake = flawed ? random.pick(["order", "missing", "no-key", "execute", "pre-release", "none-return"]) : "";
  const base = `${camel(service)}JobOperator`;
  module.from("airflow.sdk", "BaseOperator", "ResumableJobMixin");
  const bases = mistake === "order" ? "BaseOperator, ResumableJobMixin" : "ResumableJobMixin, BaseOperator";
  const lines = [`class ${base}(${bases}):`, `    """Submits a ${service.replace(/_/g, " ")} job and waits for it."""`, ""];
  if (mistake !== "no-key") lines.push(`    external_id_key = "${service}_job_id"`);
  lines.push(`    template_fields = ("job_name", "payload")`, `    ui_color = "#${random.int(0x100000, 0xffffff).toString(16)}"`, "");
  lines.push(`    def __init__(self, *, job_name: str, payload: dict | None = None, poll_interval: int = ${random.pick([15, 30, 60])}, **kwargs):`, `        super().__init__(**kwargs)`, `        self.job_name = job_name`, `        self.payload = payload or {}`, `        self.poll_interval = poll_interval`, "");
  if (mistake === "execute") lines.push(`    def execute(self, context):`, `        job_id = self.submit_job(context)`, `        self.poll_until_complete(job_id, context)`, `        return self.get_job_result(job_id, context)`, "");
  else lines.push(`    def execute(self, context):`, `        return self.execute_resumable(context)`, "");
  const omitted = mistake === "missing" ? random.pick(SIX_METHODS) : undefined;
  for (const name of SIX_METHODS) {
    if (name === omitted) continue;
    let text = method(name, client, mistake === "pre-release");
    if (name === "submit_job" && mistake === "none-return") text = text.slice(0, -1).concat([`        ${client}().track(job["id"])`]);
    lines.push(...text, "");
  }
  const operators: ResumableOperator[] = [{ module: moduleName, className: base }];
  const subclasses = random.int(0, 2);
  for (let i = 0; i < subclasses; i++) {
    const kind = random.pick(["Nightly", "Backfill", "Priority", "Regional"]);
    const className = `${camel(service)}${kind}${i > 0 ? i + 1 : ""}Operator`;
    lines.push("", `class ${className}(${operators[operators.length - 1].className}):`, `    """${kind} ${service.replace(/_/g, " ")} jobs."""`, "");
    if (random.chance(0.6)) lines.push(`    external_id_key = "${service}_${kind.toLowerCase()}_job_id"`, "");
    lines.push(`    def submit_job(self, context):`, `        self.payload.setdefault("priority", "${kind.toLowerCase()}")`, `        return super().submit_job(context)`);
    operators.push({ module: moduleName, className });
  }
  module.body.push(...lines);
  return { text: module.render(), operators };
}

/** Task-store and asset-store tasks for a TaskFlow DAG, about 10% of them with a mistake. */
function storeTasks(file: DagFile, body: string[], indent: string, operators: readonly ResumableOperator[]): Unit[] {
  const random = file.random;
  file.module.from("airflow.sdk", "Asset");
  file.module.from("datetime", "datetime", "timezone", "timedelta");
  const assets: string[] = [];
  for (let i = random.int(1, 3); i > 0; i--) {
    const domain = random.pick(DOMAINS);
    const asset = file.unique(domain.toUpperCase());
    file.module.preamble.push(`${asset} = Asset(name="${file.team}/${domain}", uri="s3://${file.team.replace(/_/g, "-")}/${domain}")`);
    assets.push(asset);
  }
  file.module.preamble.push("");
  const units: Unit[] = [];
  const count = random.int(2, 5);
  for (let i = 0; i < count; i++) {
    const domain = random.pick(DOMAINS);
    const asset = random.pick(assets);
    const bad = random.chance(0.25);
    const name = file.unique(`${random.pick(["load", "export", "sync", "ingest"])}_${domain}`);
    const shape = random.int(0, 3);
    if (shape === 0) {
      body.push(
        `${indent}@task(outlets=[${bad && random.chance(0.3) ? random.pick(assets.filter((a) => a !== asset)) ?? asset : asset}], retries=${random.int(1, 4)})`,
        `${indent}def ${name}(asset_state_store=None${bad && random.chance(0.4) ? ", **context" : ""}):`,
        `${indent}    store = asset_state_store[${asset}]`,
        `${indent}    watermark = store.get("watermark", default="2026-01-01T00:00:00+00:00")`,
        `${indent}    rows = fetch_rows("${domain}", since=watermark)`,
        bad ? `${indent}    store.set("watermark", ${random.pick(["datetime.utcnow().isoformat()", "datetime.now(tz=timezone.utc)", "datetime.now(tz=timezone.utc).isoformat(), retention=timedelta(days=30)"])})` : `${indent}    store.set("watermark", datetime.now(tz=timezone.utc).isoformat())`,
        `${indent}    return len(rows)`,
        "",
      );
    } else if (shape === 1) {
      body.push(
        `${indent}@task(retries=${random.int(1, 5)})`,
        `${indent}def ${name}(task_state_store=None):`,
        `${indent}    cursor = task_state_store.get("${bad && random.chance(0.3) ? `${domain}.cursor` : "cursor"}", default=0)`,
        `${indent}    for page in pages("${domain}", after=cursor):`,
        `${indent}        upload(page["rows"], prefix="${domain}")`,
        `${indent}        task_state_store.set("cursor", page["last_id"]${bad ? random.pick([", retention=7", ""]) : ", retention=timedelta(days=7)"})`,
        ...(bad && random.chance(0.5) ? [`${indent}    task_state_store.set("seen", {page["last_id"] for page in pages("${domain}")})`] : []),
        `${indent}    task_state_store.delete("cursor")`,
        "",
      );
    } else if (shape === 2) {
      body.push(
        `${indent}@task(retries=${random.int(1, 3)})`,
        `${indent}def ${name}(**context):`,
        `${indent}    tss = context["${bad ? random.pick(["task_state", "task_store"]) : "task_state_store"}"]`,
        `${indent}    started = tss.get("started_at")`,
        `${indent}    if started is None:`,
        `${indent}        tss.set("started_at", datetime.now(tz=timezone.utc).isoformat())`,
        `${indent}    tss.set("attempt", ${bad ? "None" : `{"n": context["ti"].try_number}`})`,
        "",
      );
    } else {
      body.push(
        `${indent}@task(outlets=[${asset}], retries=2)`,
        `${indent}def ${name}(partition: int, asset_state_store=None, task_state_store=None):`,
        `${indent}    store = asset_state_store[${asset}]`,
        `${indent}    offset = store.get(${bad ? `"offset"` : `f"offset_{partition}"`}, default=0)`,
        `${indent}    store.set(${bad ? `"offset"` : `f"offset_{partition}"`}, offset + ${random.pick([100, 500, 1000])})`,
        ...(bad ? [`${indent}    task_state_store.clear()`] : []),
        "",
      );
      const result = file.unique(`${name}_mapped`);
      body.push(`${indent}${result} = ${name}.expand(partition=[${Array.from({ length: random.int(2, 6) }, (_, n) => n).join(", ")}])`, "");
      units.push(result);
      continue;
    }
    file.module.from("include.common", "fetch_rows", "pages", "upload");
    const result = file.unique(`${name}_done`);
    body.push(`${indent}${result} = ${name}()`, "");
    units.push(result);
  }
  for (const operator of random.sample(operators, random.int(0, 2))) {
    file.module.from(operator.module, operator.className);
    const variable = file.unique(`run_${operator.className.replace(/Operator$/, "").replace(/[A-Z]/g, (c, at: number) => (at ? "_" : "") + c.toLowerCase())}`);
    const extra = random.chance(0.1) ? ", retries=0" : random.chance(0.1) ? ", durable=False" : `, retries=${random.int(1, 4)}`;
    body.push(`${indent}${variable} = ${operator.className}(task_id="${variable}", job_name="${random.pick(DOMAINS)}_${title(file.team).toLowerCase().replace(/ /g, "_")}"${extra})`, "");
    units.push(variable);
  }
  return units;
}

/** An Airflow 3 DAG whose store tasks come first, then ordinary tasks up to `targetLines`. */
export function storeDag(random: Random, name: string, targetLines: number, operators: readonly ResumableOperator[]): string {
  return dagFile(random, name, targetLines, { flavour: "airflow3", style: "taskflow", extraTasks: (file, body, indent) => storeTasks(file, body, indent, operators) });
}
