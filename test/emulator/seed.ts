/**
 * Demo data: DAGs that use the state stores the way the reference describes (job ids kept across
 * retries, per-partition cursors of a mapped task, asset watermarks), with keys that need encoding.
 */
import { writer, type EmulatorState, type TaskScope } from "./state";

const DAY = 24 * 60 * 60 * 1000;

/** Well-known coordinates of the demo data, for tests. */
export const DEMO = {
  orders: {
    dagId: "orders_daily",
    runs: [
      "scheduled__2026-05-01T00:00:00+00:00",
      "scheduled__2026-05-02T00:00:00+00:00",
      "scheduled__2026-05-03T00:00:00+00:00",
      "manual__2026-05-03T10:15:00+00:00",
    ],
    /** The run with state-store entries on every task. */
    run: "scheduled__2026-05-03T00:00:00+00:00",
  },
  spark: { dagId: "spark_nightly", run: "scheduled__2026-05-03T02:00:00+00:00", taskId: "submit_spark_job" },
  partitions: { dagId: "partition_backfill", run: "manual__2026-05-02T08:00:00+00:00", taskId: "process_partition", mapIndices: [0, 1, 2, 3, 4, 5] },
  llm: { dagId: "llm_batch_scoring", run: "scheduled__2026-05-03T06:00:00+00:00", taskId: "score_batch" },
  assets: { orders: 1, customers: 2, clickstream: 3, churnModel: 4 },
} as const;

export function seedDemo(state: EmulatorState): void {
  const now = state.now().getTime();
  const inDays = (d: number) => new Date(now + d * DAY);
  const at = (iso: string) => new Date(iso);

  // ---- DAGs ----
  state.addDag({
    dag_id: "orders_daily",
    dag_display_name: "Orders daily load",
    description: "Extract orders from the shop database and load them into the warehouse.",
    owners: ["data-eng"],
    tags: [
      { name: "orders", dag_id: "orders_daily" },
      { name: "warehouse", dag_id: "orders_daily" },
    ],
    timetable_summary: "@daily",
  });
  state.addDag({
    dag_id: "spark_nightly",
    dag_display_name: "Spark nightly aggregation",
    description: "SparkSubmitOperator with durable=True: the Spark job id survives retries.",
    owners: ["platform"],
    tags: [{ name: "spark", dag_id: "spark_nightly" }],
    timetable_summary: "0 2 * * *",
  });
  state.addDag({
    dag_id: "partition_backfill",
    dag_display_name: "Partition backfill (mapped)",
    description: "One mapped task instance per partition, each with its own cursor.",
    owners: ["data-eng"],
    tags: [{ name: "mapped", dag_id: "partition_backfill" }],
    timetable_summary: null,
  });
  state.addDag({
    dag_id: "llm_batch_scoring",
    dag_display_name: "LLM batch scoring",
    description: "Submits an OpenAI batch and resumes it after a worker crash.",
    owners: ["ml"],
    tags: [{ name: "ml", dag_id: "llm_batch_scoring" }],
    timetable_summary: "0 6 * * *",
  });
  state.addDag({
    dag_id: "clickstream_hourly",
    dag_display_name: "Clickstream hourly",
    description: "Consumes the clickstream asset.",
    owners: ["analytics"],
    timetable_summary: "@hourly",
  });
  state.addDag({
    dag_id: "legacy_variables_dag",
    dag_display_name: "Legacy (Variables for state)",
    description: "Paused: still keeps its watermark in a Variable.",
    is_paused: true,
    owners: ["data-eng"],
    timetable_summary: "@daily",
  });

  // ---- orders_daily: 4 runs x 3 tasks ----
  const orderStates: [string, string, string, string][] = [
    [DEMO.orders.runs[0], "success", "scheduled", "2026-05-01T00:00:00+00:00"],
    [DEMO.orders.runs[1], "success", "scheduled", "2026-05-02T00:00:00+00:00"],
    [DEMO.orders.runs[2], "failed", "scheduled", "2026-05-03T00:00:00+00:00"],
    [DEMO.orders.runs[3], "running", "manual", "2026-05-03T10:15:00+00:00"],
  ];
  for (const [runId, runState, runType, date] of orderStates) {
    state.addRun({
      dag_id: "orders_daily",
      dag_run_id: runId,
      state: runState,
      run_type: runType,
      triggered_by: runType === "manual" ? "rest_api" : "timetable",
      logical_date: date,
      run_after: date,
      start_date: date,
      end_date: runState === "running" ? null : date.replace("T00:00:00", "T00:21:40"),
    });
    const tiStates =
      runState === "success"
        ? ["success", "success", "success"]
        : runState === "failed"
          ? ["success", "success", "failed"]
          : ["success", "running", null];
    ["extract_orders", "transform_orders", "load_orders"].forEach((taskId, i) => {
      state.addTaskInstance({
        dag_id: "orders_daily",
        dag_run_id: runId,
        task_id: taskId,
        state: tiStates[i],
        try_number: taskId === "load_orders" && runState === "failed" ? 3 : 1,
        max_tries: 2,
        operator: taskId === "load_orders" ? "BigQueryInsertJobOperator" : "_PythonDecoratedOperator",
        operator_name: taskId === "load_orders" ? "BigQueryInsertJobOperator" : "@task",
      });
    });
  }
  const failed: Omit<TaskScope, "task_id"> = { dag_id: "orders_daily", run_id: DEMO.orders.run, map_index: -1 };
  state.setTaskEntry({ ...failed, task_id: "extract_orders" }, "cursor", { last_id: 184213, page: 37 }, { expiresAt: inDays(27), updatedAt: at("2026-05-03T00:04:12Z") });
  state.setTaskEntry({ ...failed, task_id: "extract_orders" }, "checkpoint/2026-05-03", "done", { expiresAt: inDays(27), updatedAt: at("2026-05-03T00:05:01Z") });
  state.setTaskEntry({ ...failed, task_id: "load_orders" }, "bigquery_job_id", "job_7f3a9c1e_orders_20260503", { expiresAt: inDays(28), updatedAt: at("2026-05-03T00:12:44Z") });
  state.setTaskEntry({ ...failed, task_id: "load_orders" }, "attempts", [
    { try: 1, error: "Quota exceeded" },
    { try: 2, error: "Backend error" },
  ], { expiresAt: inDays(28), updatedAt: at("2026-05-03T00:20:02Z") });
  state.setTaskEntry({ ...failed, task_id: "load_orders" }, "stale_marker", true, { expiresAt: inDays(-1), updatedAt: at("2026-04-02T00:00:00Z") });
  state.setTaskEntry(
    { dag_id: "orders_daily", run_id: DEMO.orders.runs[3], task_id: "extract_orders", map_index: -1 },
    "cursor",
    { last_id: 185020, page: 2 },
    { expiresAt: inDays(30), updatedAt: at("2026-05-03T10:16:30Z") },
  );

  // ---- spark_nightly ----
  for (const [runId, runState] of [
    ["scheduled__2026-05-02T02:00:00+00:00", "success"],
    [DEMO.spark.run, "running"],
  ] as const) {
    state.addRun({ dag_id: "spark_nightly", dag_run_id: runId, state: runState, logical_date: runId.slice(11), run_after: runId.slice(11) });
    state.addTaskInstance({
      dag_id: "spark_nightly",
      dag_run_id: runId,
      task_id: "submit_spark_job",
      state: runState === "running" ? "running" : "success",
      try_number: runState === "running" ? 2 : 1,
      max_tries: 3,
      operator: "SparkSubmitOperator",
      operator_name: "SparkSubmitOperator",
    });
    state.addTaskInstance({ dag_id: "spark_nightly", dag_run_id: runId, task_id: "publish_report", state: runState === "running" ? null : "success" });
  }
  state.setTaskEntry(
    { dag_id: "spark_nightly", run_id: DEMO.spark.run, task_id: "submit_spark_job", map_index: -1 },
    "spark_job_id",
    "application_1714000000000_0042",
    { expiresAt: null, updatedAt: at("2026-05-03T02:00:41Z") },
  );

  // ---- partition_backfill: a mapped task ----
  state.addRun({
    dag_id: "partition_backfill",
    dag_run_id: DEMO.partitions.run,
    state: "running",
    run_type: "manual",
    triggered_by: "ui",
    logical_date: "2026-05-02T08:00:00+00:00",
    run_after: "2026-05-02T08:00:00+00:00",
  });
  state.addTaskInstance({ dag_id: "partition_backfill", dag_run_id: DEMO.partitions.run, task_id: "list_partitions" });
  const mappedStates = ["success", "success", "running", "up_for_retry", "running", "scheduled"];
  for (const i of DEMO.partitions.mapIndices) {
    state.addTaskInstance({
      dag_id: "partition_backfill",
      dag_run_id: DEMO.partitions.run,
      task_id: "process_partition",
      map_index: i,
      rendered_map_index: `partition=p${i}`,
      state: mappedStates[i],
      try_number: mappedStates[i] === "up_for_retry" ? 2 : 1,
      max_tries: 3,
    });
    if (i < 5) {
      const scope = { dag_id: "partition_backfill", run_id: DEMO.partitions.run, task_id: "process_partition", map_index: i };
      state.setTaskEntry(scope, "cursor", { partition: `p${i}`, offset: 1000 * (i + 1) }, { expiresAt: inDays(29), updatedAt: at("2026-05-02T08:30:00Z") });
      state.setTaskEntry(scope, "rows_done", 250 * (i + 1), { expiresAt: inDays(29), updatedAt: at("2026-05-02T08:31:00Z") });
    }
  }
  state.addTaskInstance({ dag_id: "partition_backfill", dag_run_id: DEMO.partitions.run, task_id: "reset_partitions", state: null });

  // ---- llm_batch_scoring: keys that need encoding ----
  state.addRun({
    dag_id: "llm_batch_scoring",
    dag_run_id: DEMO.llm.run,
    state: "running",
    logical_date: "2026-05-03T06:00:00+00:00",
    run_after: "2026-05-03T06:00:00+00:00",
  });
  state.addTaskInstance({ dag_id: "llm_batch_scoring", dag_run_id: DEMO.llm.run, task_id: "score_batch", state: "running", try_number: 2, max_tries: 2 });
  const llm = { dag_id: "llm_batch_scoring", run_id: DEMO.llm.run, task_id: "score_batch", map_index: -1 };
  state.setTaskEntry(llm, "openai_batch_id", "batch_68f1c2a4e0b48190", { expiresAt: inDays(30), updatedAt: at("2026-05-03T06:01:10Z") });
  state.setTaskEntry(llm, "input_file/s3://ml-bucket/batches/2026-05-03.jsonl", { lines: 12000, bytes: 5_242_880 }, { expiresAt: inDays(30), updatedAt: at("2026-05-03T06:00:55Z") });
  state.setTaskEntry(llm, "progress 100%", { completed: 11800, failed: 12, total: 12000 }, { expiresAt: inDays(30), updatedAt: at("2026-05-03T07:40:00Z") });
  state.setTaskEntry(llm, "résumé/état", { note: "reprise après échec", 重试: 1 }, { expiresAt: null, updatedAt: at("2026-05-03T07:41:00Z") });

  // ---- clickstream_hourly ----
  state.addRun({ dag_id: "clickstream_hourly", dag_run_id: "scheduled__2026-05-03T09:00:00+00:00", run_after: "2026-05-03T09:00:00+00:00", logical_date: "2026-05-03T09:00:00+00:00" });
  state.addTaskInstance({ dag_id: "clickstream_hourly", dag_run_id: "scheduled__2026-05-03T09:00:00+00:00", task_id: "aggregate_sessions" });

  // ---- assets ----
  state.addAsset({
    id: DEMO.assets.orders,
    name: "orders/daily",
    uri: "s3://warehouse/orders/daily",
    producing_tasks: [{ dag_id: "orders_daily", task_id: "load_orders" }],
  });
  state.addAsset({ id: DEMO.assets.customers, name: "customers/dim", uri: "s3://warehouse/customers/dim" });
  state.addAsset({
    id: DEMO.assets.clickstream,
    name: "events/clickstream",
    uri: "kafka://events/clickstream",
    group: "stream",
    consuming_tasks: [{ dag_id: "clickstream_hourly", task_id: "aggregate_sessions" }],
  });
  state.addAsset({ id: DEMO.assets.churnModel, name: "models/churn", uri: "gs://ml-models/churn", group: "model" });

  const ordersWriter = writer("task", { dag_id: "orders_daily", run_id: DEMO.orders.runs[1], task_id: "load_orders", map_index: -1 });
  state.setAssetEntry(DEMO.assets.orders, "watermark", "2026-05-02T00:00:00+00:00", ordersWriter, { updatedAt: at("2026-05-02T00:21:30Z") });
  state.setAssetEntry(DEMO.assets.orders, "row_count", 184213, ordersWriter, { updatedAt: at("2026-05-02T00:21:30Z") });
  state.setAssetEntry(DEMO.assets.orders, "schema_version", 3, writer("api"), { updatedAt: at("2026-04-20T09:00:00Z") });
  for (const i of DEMO.partitions.mapIndices) {
    state.setAssetEntry(
      DEMO.assets.clickstream,
      `offset_${i}`,
      48_000 + 1000 * i,
      writer("task", { dag_id: "partition_backfill", run_id: DEMO.partitions.run, task_id: "process_partition", map_index: i }),
      { updatedAt: at("2026-05-02T08:31:00Z") },
    );
  }
  state.setAssetEntry(DEMO.assets.clickstream, "consumer_lag", { seconds: 42, checked_at: "2026-05-03T09:05:00+00:00" }, writer("watcher"), {
    updatedAt: at("2026-05-03T09:05:00Z"),
  });
  state.setAssetEntry(DEMO.assets.clickstream, "migrated_from_variable", "2026-04-01T00:00:00+00:00", null, { updatedAt: at("2026-04-01T00:00:00Z") });
}
