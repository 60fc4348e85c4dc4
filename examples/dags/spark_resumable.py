"""A crash-safe submit-and-poll operator built on ResumableJobMixin (the correct form).

Edit `external_id_key` below in a git checkout and AS301 reports it: retries already in flight
would look under the old key, find nothing, and submit the Spark job a second time.
"""
from datetime import datetime, timezone

from airflow.sdk import DAG, BaseOperator, ResumableJobMixin


class SparkBatchOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "spark_batch_id"

    def __init__(self, *, application: str, **kwargs):
        super().__init__(**kwargs)
        self.application = application

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return {"batch_id": f"batch-{context['run_id']}"}

    def get_job_status(self, external_id, context) -> str:
        return "SUCCEEDED"

    def is_job_active(self, status) -> bool:
        return status in ("PENDING", "RUNNING")

    def is_job_succeeded(self, status) -> bool:
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context) -> None:
        return None

    def get_job_result(self, external_id, context):
        return external_id


with DAG(dag_id="spark_batch", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    SparkBatchOperator(task_id="nightly_batch", application="s3://jobs/nightly.py", retries=3)
