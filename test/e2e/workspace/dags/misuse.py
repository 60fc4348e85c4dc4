"""A DAG with three state store mistakes, for the real-editor tests."""

from datetime import datetime, timezone

from airflow.sdk import DAG, Asset, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@task(retries=3)
def export_orders(task_state_store=None):
    cursor = task_state_store.get("cursor", default=0)
    task_state_store.set("cursor", cursor + 500, retention=7)
    task_state_store.set("last_error", None)


@task(outlets=[ORDERS])
def publish_watermark(asset_state_store=None):
    asset_state_store[ORDERS].set("watermark", "2026-01-01", retention=30)


with DAG(dag_id="orders_export", schedule="@hourly", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    export_orders() >> publish_watermark()
