"""The nightly warehouse sync as it was first written: every piece of state in Variables and XCom.

Shows: AS401 (a task's progress cursor in a Variable), AS402 (a watermark in a Variable),
AS403 (a job id pushed to XCom to find it on a retry) and AS404 (a hand-written
reconnect-or-submit through a Variable). variables_after.py is the same DAG with the state where it
belongs; each rule's code action rewrites this file towards it.
"""
from __future__ import annotations

from datetime import datetime, timezone

from airflow.models import BaseOperator, Variable
from airflow.sdk import Asset, dag, task

from include.clients import DbtCloudClient, SparkClient, WarehouseClient

ORDERS = Asset(name="warehouse/orders", uri="s3://warehouse/orders")


class SparkAggregateOperator(BaseOperator):
    """Runs the nightly Spark aggregation and waits for it."""

    def __init__(self, *, application: str, **kwargs):
        super().__init__(**kwargs)
        self.application = application
        self.client = SparkClient(conn_id="spark_default")

    def execute(self, context):
        job_id = Variable.get("spark_aggregate_job_id", default_var=None)
        if job_id and self.client.status(job_id) in ("SUBMITTED", "RUNNING"):
            self.client.wait(job_id)
        else:
            job_id = self.client.submit(self.application)
            Variable.set("spark_aggregate_job_id", job_id)
            self.client.wait(job_id)


@dag(schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), catchup=False)
def warehouse_sync():
    @task(outlets=[ORDERS], retries=3)
    def load_orders():
        warehouse = WarehouseClient()
        since = Variable.get("orders_last_processed_at", default_var="2026-01-01T00:00:00+00:00")
        warehouse.copy_orders_changed_since(since)
        Variable.set("orders_last_processed_at", datetime.now(tz=timezone.utc).isoformat())

    @task(retries=3)
    def export_invoices():
        warehouse = WarehouseClient()
        cursor = int(Variable.get("invoice_export_cursor", default_var=0))
        for page in warehouse.invoice_pages_after(cursor):
            warehouse.upload_invoices(page)
            cursor = page.last_id
            Variable.set("invoice_export_cursor", cursor)

    @task(retries=2)
    def run_dbt_models(ti=None):
        dbt = DbtCloudClient(account_id=42)
        run_id = ti.xcom_pull(key="dbt_run_id", task_ids=ti.task_id)
        if run_id is None:
            run_id = dbt.trigger_job(job_id=7)
            ti.xcom_push(key="dbt_run_id", value=run_id)
        dbt.wait_for_run(run_id)

    aggregate = SparkAggregateOperator(task_id="aggregate", application="s3://jobs/aggregate.py", retries=2)
    load_orders() >> [export_invoices(), run_dbt_models()] >> aggregate


warehouse_sync()
