"""Exports a large table page by page, resuming from the last page after a retry.

Shows: AS102 (None stored), AS103 (an integer retention), AS107 (NaN stored). The second task is
the correct checkpoint loop.
"""
import math
from datetime import timedelta

import pendulum
from airflow.sdk import DAG, NEVER_EXPIRE, task
from airflow.providers.standard.operators.python import PythonOperator

CHECKPOINT_DAYS = 7


def export_pages(**context):
    store = context["task_state_store"]
    page = store.get("page", default=0)
    while page < 100:
        page += 1
        store.set("page", page, retention=CHECKPOINT_DAYS)
    store.set("page", None)
    store.set("error_rate", math.nan)


with DAG(
    dag_id="checkpointed_export",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    default_args={"retries": 3},
):
    export = PythonOperator(task_id="export_pages", python_callable=export_pages)

    @task(retries=5)
    def export_resumable(task_state_store=None):
        page = task_state_store.get("page", default=0)
        while page < 100:
            page += 1
            task_state_store.set("page", page, retention=timedelta(days=CHECKPOINT_DAYS))
        task_state_store.set("finished_at", pendulum.now("UTC").isoformat(), retention=NEVER_EXPIRE)
        task_state_store.delete("page")

    export >> export_resumable()
