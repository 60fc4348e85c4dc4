"""A cursor stored with a retention in plain days; the quick fix makes it a timedelta."""

from datetime import datetime, timezone

from airflow.sdk import DAG, task


@task(retries=3)
def export_orders(task_state_store=None):
    cursor = task_state_store.get("cursor", default=0)
    task_state_store.set("cursor", cursor + 500, retention=7)


with DAG(dag_id="orders_cursor", schedule="@hourly", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    export_orders()
