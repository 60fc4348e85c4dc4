"""Two asset store writes with a retention, which the asset store does not have; the lightbulb's fix-all drops both."""

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG, Asset, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@task(outlets=[ORDERS])
def publish_watermark(asset_state_store=None):
    store = asset_state_store[ORDERS]
    store.set("watermark", "2026-01-01", retention=timedelta(days=30))
    store.set("rows", 1200, retention=30)


with DAG(dag_id="orders_watermark", schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    publish_watermark()
