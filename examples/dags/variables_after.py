"""The nightly warehouse sync with its state where it belongs (the correct form of variables_before.py).

The watermark lives in the store of the asset it describes, the export cursor and the dbt run id in
each task instance's own store (kept across its retries, separate for every run), and the Spark job
is run by a ResumableJobMixin operator: the code actions of AS401–AS404 produce these forms, and the
generated operator's stubs were filled in by hand.
"""
from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Asset, BaseOperator, ResumableJobMixin, dag, task

from include.clients import DbtCloudClient, SparkClient, WarehouseClient

ORDERS = Asset(name="warehouse/orders", uri="s3://warehouse/orders")


class SparkAggregateOperator(ResumableJobMixin, BaseOperator):
    """Runs the nightly Spark aggregation; a retry reconnects to the job it already submitted."""

    external_id_key = "spark_aggregate_job_id"

    def __init__(self, *, application: str, **kwargs):
        super().__init__(**kwargs)
        self.application = application
        self.client = SparkClient(conn_id="spark_default")

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.client.submit(self.application)

    def get_job_status(self, external_id, context) -> str:
        return self.client.status(external_id)

    def is_job_active(self, status) -> bool:
        return status in ("SUBMITTED", "RUNNING")

    def is_job_succeeded(self, status) -> bool:
        return status == "FINISHED"

    def poll_until_complete(self, external_id, context) -> None:
        self.client.wait(external_id)

    def get_job_result(self, external_id, context):
        return None


@dag(schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), catchup=False)
def warehouse_sync():
    @task(outlets=[ORDERS], retries=3)
    def load_orders(asset_state_store=None):
        warehouse = WarehouseClient()
        since = asset_state_store[ORDERS].get("orders_last_processed_at", default="2026-01-01T00:00:00+00:00")
        warehouse.copy_orders_changed_since(since)
        asset_state_store[ORDERS].set("orders_last_processed_at", datetime.now(tz=timezone.utc).isoformat())

    @task(retries=3)
    def export_invoices(task_state_store=None):
        warehouse = WarehouseClient()
        cursor = int(task_state_store.get("invoice_export_cursor", default=0))
        for page in warehouse.invoice_pages_after(cursor):
            warehouse.upload_invoices(page)
            cursor = page.last_id
            task_state_store.set("invoice_export_cursor", str(cursor))

    @task(retries=2)
    def run_dbt_models(task_state_store=None):
        dbt = DbtCloudClient(account_id=42)
        run_id = task_state_store.get("dbt_run_id")
        if run_id is None:
            run_id = dbt.trigger_job(job_id=7)
            task_state_store.set("dbt_run_id", run_id)
        dbt.wait_for_run(run_id)

    aggregate = SparkAggregateOperator(task_id="aggregate", application="s3://jobs/aggregate.py", retries=2)
    load_orders() >> [export_invoices(), run_dbt_models()] >> aggregate


warehouse_sync()
