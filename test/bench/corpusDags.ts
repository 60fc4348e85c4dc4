/**
 * Airflow 2 and Airflow 3 DAG files that never touch a state store, as most files of a real DAG
 * repository are: `with DAG(...)` files of operators (Bash, Python, SQL, provider transfers,
 * sensors, Kubernetes), TaskFlow `@dag`/`@task` files, task groups, dynamic task mapping,
 * `default_args` with retries, Variables, XCom and naive `datetime.utcnow()` timestamps.
 */
import { ModuleWriter } from "./corpusModule";
import { DOMAINS, SCHEDULES, TEAMS, title, VERBS } from "./corpusWords";
import { Random } from "./random";

export type Flavour = "airflow2" | "airflow3";
export type DagStyle = "classic" | "taskflow";

const CORE_MODULES: Record<Flavour, Record<string, string>> = {
  airflow2: {
    DAG: "airflow",
    dag: "airflow.decorators",
    task: "airflow.decorators",
    task_group: "airflow.decorators",
    TaskGroup: "airflow.utils.task_group",
    Variable: "airflow.models",
    chain: "airflow.models.baseoperator",
    BashOperator: "airflow.operators.bash",
    PythonOperator: "airflow.operators.python",
    ShortCircuitOperator: "airflow.operators.python",
    EmptyOperator: "airflow.operators.empty",
    TriggerDagRunOperator: "airflow.operators.trigger_dagrun",
    ExternalTaskSensor: "airflow.sensors.external_task",
  },
  airflow3: {
    DAG: "airflow.sdk",
    dag: "airflow.sdk",
    task: "airflow.sdk",
    task_group: "airflow.sdk",
    TaskGroup: "airflow.sdk",
    Variable: "airflow.sdk",
    chain: "airflow.sdk",
    BashOperator: "airflow.providers.standard.operators.bash",
    PythonOperator: "airflow.providers.standard.operators.python",
    ShortCircuitOperator: "airflow.providers.standard.operators.python",
    EmptyOperator: "airflow.providers.standard.operators.empty",
    TriggerDagRunOperator: "airflow.providers.standard.operators.trigger_dagrun",
    ExternalTaskSensor: "airflow.providers.standard.sensors.external_task",
  },
};

/** A DAG file being generated: its module, its flavour and the names it has used so far. */
export class DagFile {
  readonly module: ModuleWriter;
  readonly team: string;
  readonly domain: string;
  readonly dagId: string;
  private readonly used = new Set<string>();
  private logger = false;

  constructor(
    readonly random: Random,
    readonly flavour: Flavour,
    readonly style: DagStyle,
    name: string,
  ) {
    this.team = random.pick(TEAMS);
    this.domain = random.pick(DOMAINS);
    this.dagId = name;
    this.module = new ModuleWriter(`${title(name)}.\n\nOwned by the ${this.team.replace(/_/g, " ")} team. ${random.pick(PURPOSES)}\n`);
  }

  /** Imports `name` from where this file's Airflow version keeps it. */
  core(name: string): string {
    this.module.from(CORE_MODULES[this.flavour][name], name);
    return name;
  }

  provider(module: string, name: string): string {
    this.module.from(module, name);
    return name;
  }

  /** A Python identifier not used yet in this file, built from `base`. */
  unique(base: string): string {
    let name = base;
    for (let n = 2; this.used.has(name); n++) name = `${base}_${n}`;
    this.used.add(name);
    return name;
  }

  /** A module-level `log` for the callables that log. */
  log(): string {
    if (!this.logger) {
      this.module.import("logging");
      this.module.preamble.push("log = logging.getLogger(__name__)", "");
      this.logger = true;
    }
    return "log";
  }

  variableDefault(): string {
    return this.flavour === "airflow2" ? "default_var" : "default";
  }
}

const PURPOSES = [
  "Runs after the nightly warehouse load.",
  "Feeds the dashboards the business reviews every morning.",
  "Backfills are safe: every task is idempotent per data interval.",
  "Alerts go to the team's on-call channel.",
  "Keep the schedule in sync with the upstream export.",
  "Migrated from cron in 2024.",
];

/** A task, task group or mapped task added to a DAG body: what dependencies are written between. */
export type Unit = string;

/**
 * Statements of a Python callable's body: fetch rows, then some of reading the run's context,
 * Variables and XCom, logging, skipping, uploading. `withContext`: the function takes `**context`.
 */
export function callableBody(file: DagFile, indent: string, random: Random, { upstream, withContext }: { upstream?: string; withContext: boolean }): string[] {
  const domain = random.pick(DOMAINS);
  const variable = () => file.core("Variable");
  const always: (() => string[])[] = [
    () => [`bucket = ${variable()}.get("${file.team}_bucket", ${file.variableDefault()}="s3://${file.team.replace(/_/g, "-")}-data")`],
    () => [`${file.log()}.info("fetched %d ${domain} rows", len(rows))`],
    () => [`started_at = ${useDatetime(file)}.utcnow()`],
    () => [`threshold = float(${variable()}.get("${domain}_threshold", ${file.variableDefault()}="0.95"))`, `if len(rows) * threshold < 1:`, `    ${file.log()}.warning("too few ${domain} rows")`],
    () => [`for batch in chunks(rows, ${random.pick([100, 500, 1000])}):`, `    upload(batch, prefix="${domain}")`],
    () => [`config = ${variable()}.get("${file.dagId}_config", deserialize_json=True, ${file.variableDefault()}={})`, `limit = config.get("limit", ${random.int(10, 999)})`, `rows = rows[:limit]`],
    () => [`by_key = {row["id"]: row for row in rows if row.get("id") is not None}`],
  ];
  const needingContext: (() => string[])[] = [
    () => [`ds = context["ds"]`],
    () => [`context["ti"].xcom_push(key="${domain}_count", value=len(rows))`],
    () => (upstream ? [`previous = context["ti"].xcom_pull(task_ids="${upstream}")`, `if previous is None:`, `    ${file.log()}.warning("nothing from ${upstream}")`] : [`run_id = context["run_id"]`]),
    () => {
      file.module.from("airflow.exceptions", "AirflowSkipException");
      return [`if not context["params"].get("enabled", True):`, `    raise AirflowSkipException("disabled by params")`];
    },
    () => [`summary = {`, `    "table": "${domain}",`, `    "interval_start": str(context["data_interval_start"]),`, `    "interval_end": str(context["data_interval_end"]),`, `}`],
  ];
  file.module.from("include.common", "chunks", "fetch_rows", "upload");
  const lines = [`rows = fetch_rows("${domain}"${withContext ? `, day=context["ds"]` : ""})`];
  for (const make of random.sample(withContext ? [...always, ...needingContext] : always, random.int(2, 6))) lines.push(...make());
  lines.push(random.pick([`return {"table": "${domain}", "rows": len(rows)}`, "return len(rows)", "return None"]));
  return lines.map((line) => indent + line);
}

function useDatetime(file: DagFile): string {
  file.module.from("datetime", "datetime");
  return "datetime";
}

function kwargs(indent: string, pairs: [string, string][]): string[] {
  return pairs.map(([key, value]) => `${indent}    ${key}=${value},`);
}

function operatorCall(indent: string, variable: string, operator: string, pairs: [string, string][]): string[] {
  return [`${indent}${variable} = ${operator}(`, ...kwargs(indent, pairs), `${indent})`];
}

function retriesPair(random: Random): [string, string][] {
  return random.chance(0.3) ? [["retries", String(random.int(0, 5))]] : [];
}

/** One operator of the kinds DAG repositories are full of; returns the task's variable. */
export function operatorTask(file: DagFile, body: string[], indent: string, upstream?: string): Unit {
  const random = file.random;
  const domain = random.pick(DOMAINS);
  const verb = random.pick(VERBS);
  const variable = file.unique(`${verb}_${domain}`);
  const kind = random.int(0, 11);
  switch (kind) {
    case 0:
    case 1: {
      const callable = file.unique(`_${verb}_${domain}`);
      file.module.preamble.push(`def ${callable}(**context):`, `    """${title(verb)} the ${domain} of the data interval."""`, ...callableBody(file, "    ", random, { upstream, withContext: true }), "", "");
      body.push(...operatorCall(indent, variable, file.core("PythonOperator"), [["task_id", `"${variable}"`], ["python_callable", callable], ...(random.chance(0.4) ? [["op_kwargs", `{"table": "${domain}"}`] as [string, string]] : []), ...retriesPair(random)]));
      break;
    }
    case 2:
    case 3:
      body.push(...operatorCall(indent, variable, file.core("BashOperator"), [["task_id", `"${variable}"`], ["bash_command", random.pick([`"dbt run --profiles-dir /opt/dbt --select ${domain}+ --target prod"`, `"python /opt/jobs/${verb}_${domain}.py --date {{ ds }}"`, `"aws s3 sync s3://raw/${domain}/{{ ds }} /tmp/${domain}"`])], ...(random.chance(0.3) ? [["env", `{"ENV": "prod", "TEAM": "${file.team}"}`] as [string, string]] : []), ...retriesPair(random)]));
      break;
    case 4: {
      const operator = file.provider("airflow.providers.common.sql.operators.sql", "SQLExecuteQueryOperator");
      body.push(`${indent}${variable} = ${operator}(`, `${indent}    task_id="${variable}",`, `${indent}    conn_id="warehouse",`, `${indent}    sql="""`, `${indent}        INSERT INTO analytics.${domain}_daily`, `${indent}        SELECT date_trunc('day', created_at) AS day, count(*) AS n`, `${indent}        FROM raw.${domain}`, `${indent}        WHERE created_at >= '{{ data_interval_start }}' AND created_at < '{{ data_interval_end }}'`, `${indent}        GROUP BY 1`, `${indent}    """,`, `${indent})`);
      break;
    }
    case 5: {
      const operator = file.provider("airflow.providers.snowflake.operators.snowflake", "SnowflakeOperator");
      body.push(...operatorCall(indent, variable, operator, [["task_id", `"${variable}"`], ["snowflake_conn_id", `"snowflake_${file.team}"`], ["sql", `"sql/${domain}/${verb}.sql"`], ["params", `{"schema": "${file.team}"}`]]));
      break;
    }
    case 6: {
      const operator = file.provider("airflow.providers.google.cloud.operators.bigquery", "BigQueryInsertJobOperator");
      body.push(`${indent}${variable} = ${operator}(`, `${indent}    task_id="${variable}",`, `${indent}    configuration={`, `${indent}        "query": {`, `${indent}            "query": "SELECT * FROM \`proj.${file.team}.${domain}\` WHERE day = '{{ ds }}'",`, `${indent}            "useLegacySql": False,`, `${indent}        }`, `${indent}    },`, `${indent}    location="EU",`, `${indent})`);
      break;
    }
    case 7: {
      const operator = file.provider("airflow.providers.amazon.aws.transfers.s3_to_redshift", "S3ToRedshiftOperator");
      body.push(...operatorCall(indent, variable, operator, [["task_id", `"${variable}"`], ["schema", `"${file.team}"`], ["table", `"${domain}"`], ["s3_bucket", `"raw-${domain}"`], ["s3_key", `"${domain}/{{ ds }}"`], ["copy_options", `["FORMAT AS PARQUET"]`]]));
      break;
    }
    case 8: {
      const operator = file.provider("airflow.providers.cncf.kubernetes.operators.pod", "KubernetesPodOperator");
      body.push(...operatorCall(indent, variable, operator, [["task_id", `"${variable}"`], ["name", `"${variable.replace(/_/g, "-")}"`], ["namespace", `"${file.team.replace(/_/g, "-")}"`], ["image", `"registry.example.com/${file.team}/${domain}:${random.int(1, 40)}.${random.int(0, 9)}"`], ["cmds", `["python", "-m", "jobs.${verb}"]`], ["arguments", `["--date", "{{ ds }}"]`], ["get_logs", "True"], ["is_delete_operator_pod", "True"], ...retriesPair(random)]));
      break;
    }
    case 9: {
      const sensor = random.chance(0.5) ? file.provider("airflow.providers.amazon.aws.sensors.s3", "S3KeySensor") : file.core("ExternalTaskSensor");
      const pairs: [string, string][] = sensor === "S3KeySensor" ? [["bucket_key", `"s3://landing/${domain}/{{ ds }}/_SUCCESS"`]] : [["external_dag_id", `"${random.pick(TEAMS)}_${domain}_load"`], ["external_task_id", `"publish"`]];
      const waiter = file.unique(`wait_for_${domain}`);
      body.push(...operatorCall(indent, waiter, sensor, [["task_id", `"${waiter}"`], ...pairs, ["mode", `"reschedule"`], ["poke_interval", String(random.pick([60, 300, 600]))], ["timeout", String(random.pick([3600, 6 * 3600]))]]));
      return waiter;
    }
    case 10: {
      const operator = file.provider("airflow.providers.slack.operators.slack_webhook", "SlackWebhookOperator");
      body.push(...operatorCall(indent, variable, operator, [["task_id", `"${variable}"`], ["slack_webhook_conn_id", `"slack_${file.team}"`], ["message", `"${title(domain)} for {{ ds }} are ready"`]]));
      break;
    }
    default: {
      const operator = random.chance(0.5) ? file.provider("airflow.providers.apache.spark.operators.spark_submit", "SparkSubmitOperator") : file.provider("airflow.providers.databricks.operators.databricks", "DatabricksRunNowOperator");
      const pairs: [string, string][] = operator === "SparkSubmitOperator" ? [["application", `"s3://jobs/${verb}_${domain}.py"`], ["conn_id", `"spark_default"`], ["application_args", `["--date", "{{ ds }}"]`]] : [["job_id", String(random.int(100, 99999))], ["databricks_conn_id", `"databricks_${file.team}"`]];
      body.push(...operatorCall(indent, variable, operator, [["task_id", `"${variable}"`], ...pairs, ["retries", String(random.int(1, 4))]]));
    }
  }
  return variable;
}

/** A task group of two to four operators wired in sequence. */
export function taskGroup(file: DagFile, body: string[], indent: string): Unit {
  const group = file.unique(`${file.random.pick(DOMAINS)}_${file.random.pick(["checks", "staging", "exports", "quality", "marts"])}`);
  body.push(`${indent}with ${file.core("TaskGroup")}(group_id="${group}"${file.random.chance(0.3) ? `, tooltip="${title(group)}"` : ""}) as ${group}:`);
  const inner: Unit[] = [];
  const count = file.random.int(2, 4);
  for (let i = 0; i < count; i++) inner.push(operatorTask(file, body, indent + "    ", inner[inner.length - 1]));
  body.push(`${indent}    ${inner.join(" >> ")}`, "");
  return group;
}

/** An operator mapped over a list at run time (`.partial(...).expand(...)`). */
export function mappedOperator(file: DagFile, body: string[], indent: string): Unit {
  const random = file.random;
  const domain = random.pick(DOMAINS);
  const constant = file.unique(`${domain.toUpperCase()}_${random.pick(["REGIONS", "PARTITIONS", "TABLES", "SHARDS"])}`);
  file.module.preamble.push(`${constant} = [${Array.from({ length: random.int(2, 8) }, (_, i) => `"${domain}_${i}"`).join(", ")}]`, "");
  const variable = file.unique(`export_${domain}`);
  if (random.chance(0.5)) {
    body.push(`${indent}${variable} = ${file.core("BashOperator")}.partial(task_id="${variable}", retries=${random.int(0, 3)}).expand(`, `${indent}    bash_command=[f"python /opt/jobs/export.py --part {part}" for part in ${constant}]`, `${indent})`);
  } else {
    const callable = file.unique(`_export_${domain}_part`);
    file.module.preamble.push(`def ${callable}(part, **context):`, ...callableBody(file, "    ", random, { withContext: true }), "", "");
    body.push(`${indent}${variable} = ${file.core("PythonOperator")}.partial(task_id="${variable}", python_callable=${callable}).expand(`, `${indent}    op_kwargs=[{"part": part} for part in ${constant}]`, `${indent})`);
  }
  return variable;
}

/** A TaskFlow task, defined and called in the `@dag` function; returns the variable of its result. */
export function decoratedTask(file: DagFile, body: string[], indent: string, upstream?: Unit): Unit {
  const random = file.random;
  const domain = random.pick(DOMAINS);
  const name = file.unique(`${random.pick(VERBS)}_${domain}`);
  const decorator = random.pick(["@task", "@task", `@task(retries=${random.int(1, 5)})`, `@task(task_id="${name}", retries=2)`, "@task.virtualenv(requirements=[\"pandas==2.2.3\"])", "@task.short_circuit"]);
  file.core("task");
  const mapped = !!upstream && random.chance(0.2);
  const withContext = random.chance(0.4);
  const parameters = [...(upstream ? [mapped ? "item" : "upstream_rows"] : []), ...(withContext ? ["**context"] : [])];
  body.push(`${indent}${decorator}`, `${indent}def ${name}(${parameters.join(", ")}):`);
  body.push(...callableBody(file, indent + "    ", random, { withContext }), "");
  const result = file.unique(`${name}_result`);
  if (mapped) body.push(`${indent}${result} = ${name}.expand(item=${upstream})`);
  else body.push(`${indent}${result} = ${name}(${upstream ?? ""})`);
  body.push("");
  return result;
}

/** A `@task_group` of TaskFlow tasks. */
export function decoratedGroup(file: DagFile, body: string[], indent: string): Unit {
  const name = file.unique(`${file.random.pick(DOMAINS)}_pipeline`);
  body.push(`${indent}@${file.core("task_group")}(group_id="${name}")`, `${indent}def ${name}():`);
  let last: Unit | undefined;
  const count = file.random.int(2, 3);
  for (let i = 0; i < count; i++) last = decoratedTask(file, body, indent + "    ", last);
  body.push(`${indent}    return ${last}`, "");
  const result = file.unique(`${name}_done`);
  body.push(`${indent}${result} = ${name}()`, "");
  return result;
}

function defaultArgs(file: DagFile): string[] {
  const random = file.random;
  file.module.from("datetime", "timedelta");
  return [
    "default_args = {",
    `    "owner": "${file.team}",`,
    `    "depends_on_past": ${random.chance(0.2) ? "True" : "False"},`,
    `    "email": ["${file.team.replace(/_/g, "-")}-alerts@example.com"],`,
    `    "email_on_failure": ${random.chance(0.7) ? "True" : "False"},`,
    `    "retries": ${random.int(0, 4)},`,
    `    "retry_delay": timedelta(minutes=${random.pick([1, 5, 10, 15])}),`,
    ...(random.chance(0.3) ? [`    "execution_timeout": timedelta(hours=${random.int(1, 6)}),`] : []),
    "}",
    "",
  ];
}

function startDate(file: DagFile): string {
  if (file.random.chance(0.35)) {
    file.module.import("pendulum");
    return `pendulum.datetime(${file.random.int(2021, 2026)}, ${file.random.int(1, 12)}, 1, tz="UTC")`;
  }
  file.module.from("datetime", "datetime");
  return `datetime(${file.random.int(2021, 2026)}, ${file.random.int(1, 12)}, ${file.random.int(1, 28)})`;
}

/** Writes `extra` (the store-using tasks of a store DAG, or nothing) and ordinary tasks until the file has `targetLines`. */
export function dagFile(random: Random, name: string, targetLines: number, options: { flavour?: Flavour; style?: DagStyle; extraTasks?: (file: DagFile, body: string[], indent: string) => Unit[] } = {}): string {
  const flavour = options.flavour ?? (random.chance(0.55) ? "airflow2" : "airflow3");
  const style = options.style ?? (random.chance(0.4) ? "taskflow" : "classic");
  const file = new DagFile(random, flavour, style, name);
  const module = file.module;
  if (random.chance(0.6)) module.preamble.push(...defaultArgs(file));
  const schedule = random.pick(SCHEDULES);
  const scheduleKey = flavour === "airflow2" && random.chance(0.5) ? "schedule_interval" : "schedule";
  const header: [string, string][] = [
    ["dag_id", `"${name}"`],
    ...(module.preamble.length > 0 ? [["default_args", "default_args"] as [string, string]] : []),
    [scheduleKey, schedule],
    ["start_date", startDate(file)],
    ["catchup", "False"],
    ...(random.chance(0.4) ? [["max_active_runs", "1"] as [string, string]] : []),
    ["tags", `["${file.team}", "${file.domain}"]`],
  ];
  const body: string[] = [];
  const indent = "    ";
  const units: Unit[] = [];
  if (options.extraTasks) units.push(...options.extraTasks(file, body, indent));
  const rendered = () => module.lineCount() + body.length;
  do {
    const roll = random.next();
    if (style === "taskflow") {
      if (roll < 0.6) units.push(decoratedTask(file, body, indent, random.chance(0.5) ? units[units.length - 1] : undefined));
      else if (roll < 0.75) units.push(decoratedGroup(file, body, indent));
      else units.push(operatorTask(file, body, indent));
    } else if (roll < 0.7) units.push(operatorTask(file, body, indent, units[units.length - 1]));
    else if (roll < 0.85) units.push(taskGroup(file, body, indent));
    else units.push(mappedOperator(file, body, indent));
    body.push("");
  } while (rendered() < targetLines - 12);
  body.push(...dependencies(file, units, indent));
  if (style === "taskflow") {
    module.body.push(`@${file.core("dag")}(`, ...kwargs("", header), ")", `def ${name}():`, ...body, "", "", `${name}()`);
  } else {
    module.body.push(`with ${file.core("DAG")}(`, ...kwargs("", header), ") as dag:", ...body);
  }
  return module.render();
}

/** The `>>` and `chain(...)` lines that wire the units in roughly the order they were added. */
function dependencies(file: DagFile, units: Unit[], indent: string): string[] {
  const random = file.random;
  const lines: string[] = [];
  if (units.length < 2) return lines;
  if (random.chance(0.25)) {
    const start = file.unique("start");
    const end = file.unique("end");
    lines.push(`${indent}${start} = ${file.core("EmptyOperator")}(task_id="${start}")`, `${indent}${end} = ${file.core("EmptyOperator")}(task_id="${end}", trigger_rule="none_failed")`);
    units = [start, ...units, end];
  }
  if (random.chance(0.3)) {
    lines.push(`${indent}${file.core("chain")}(${units.join(", ")})`);
    return lines;
  }
  for (let i = 0; i + 1 < units.length; ) {
    const fan = Math.min(random.int(1, 3), units.length - i - 1);
    const targets = units.slice(i + 1, i + 1 + fan);
    lines.push(`${indent}${units[i]} >> ${targets.length === 1 ? targets[0] : `[${targets.join(", ")}]`}`);
    i += fan;
  }
  return lines;
}

export function dagName(random: Random): string {
  return `${random.pick(TEAMS)}_${random.pick(DOMAINS)}_${random.pick(VERBS)}`;
}

