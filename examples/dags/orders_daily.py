"""Loads the day's orders into the warehouse, resuming the extract where a failed try stopped.

The Airflow emulator (`npm run emulator`) serves this DAG: with its environment active in the
Airflow State view, each task below gets a code lens with its state store entries in the latest
run ("State store: 1 entry (latest run)" above extract_orders). No findings: the correct forms.
"""
from datetime import timedelta

import pendulum
from airflow.sdk import dag, task

PAGE_SIZE = 500


def fetch_orders(after_id, limit):
    """Stands in for the shop database: the next `limit` order ids after `after_id`."""
    return [after_id + i for i in range(1, limit + 1)] if after_id < 184_000 else []


@dag(
    dag_id="orders_daily",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    default_args={"retries": 2},
)
def orders_daily():
    @task
    def extract_orders(task_state_store=None):
        # The cursor survives a retry: a new try starts after the last page that was kept.
        cursor = task_state_store.get("cursor", default={"last_id": 0, "page": 0})
        while rows := fetch_orders(cursor["last_id"], PAGE_SIZE):
            cursor = {"last_id": rows[-1], "page": cursor["page"] + 1}
            task_state_store.set("cursor", cursor, retention=timedelta(days=30))
        return cursor["page"]

    @task
    def transform_orders(pages):
        return pages

    @task
    def load_orders(pages):
        print(f"loaded {pages} pages")

    load_orders(transform_orders(extract_orders()))


orders_daily()
