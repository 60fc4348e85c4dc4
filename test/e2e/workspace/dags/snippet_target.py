"""The real-editor tests replace the placeholder task with the ResumableJobMixin operator snippet."""

from datetime import datetime, timezone

from airflow.sdk import DAG, BaseOperator, ResumableJobMixin, task


@task
def placeholder(task_state_store=None):
    task_state_store.set("replaced_by_the_snippet", None)


@task(retries=3)
def export_orders(task_state_store=None):
    task_state_store.set("cursor", 500, retention=7)


with DAG(dag_id="resumable_snippet", schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    MyJobOperator(task_id="my_job", retries=3) >> export_orders()
