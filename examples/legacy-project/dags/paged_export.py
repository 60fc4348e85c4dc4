"""Exports a table page by page, keeping its place in the task state store across retries.

The code is right for Airflow 3.3, but ../requirements.txt pins apache-airflow==2.10.5, which has no
state stores: the task parameter is never filled in, and the first `get` fails. Shows AS501 (once,
at the first store use) and AS502 (`durable=True` does nothing before 3.3) when the linter is given
the project's pin.
"""
import pendulum
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.sdk import DAG, task

with DAG(
    dag_id="legacy_paged_export",
    schedule="@daily",
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    default_args={"retries": 3},
):

    @task
    def export_pages(task_state_store=None):
        page = task_state_store.get("page", default=0)
        while page < 100:
            page += 1
            task_state_store.set("page", page)
        task_state_store.delete("page")

    aggregate = SparkSubmitOperator(task_id="aggregate", application="jobs/aggregate.py", durable=True)

    export_pages() >> aggregate
