"""Nightly feature build on Databricks, kept as a submit task and a reschedule sensor.

The run takes most of the night and this deployment has no Triggerer and few worker slots: Section 6
of the review guidance keeps the split then, with the sensor in `mode="reschedule"` so it frees its
slot between checks, and everything that needs the run's outcome depending on the sensor. The submit
keeps `durable=True` (the operator's default): a retry after a worker crash reconnects to the run
instead of submitting a second one. With a Triggerer, or for a shorter run, one task would do (see
AS405). Nothing here is reported.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.providers.databricks.hooks.databricks import DatabricksHook
from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator, DatabricksSubmitRunOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, task

FEATURE_RUN = {
    "run_name": "nightly-features",
    "tasks": [
        {
            "task_key": "features",
            "notebook_task": {"notebook_path": "/Repos/ml/features/build"},
            "job_cluster_key": "features",
        }
    ],
}


def run_finished(run_id: int) -> bool:
    """True once the run has ended; raises when it ended badly, so the sensor fails with it."""
    state = DatabricksHook().get_run_state(run_id)
    if state.is_terminal and not state.is_successful:
        raise RuntimeError(f"Databricks run {run_id} ended in {state.result_state}")
    return state.is_terminal


@task
def publish_features():
    """Points the feature store at tonight's tables."""


@task
def notify_team():
    """Tells the ML team tonight's features are ready."""


with DAG(
    dag_id="nightly_features",
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    default_args={"retries": 2},
):
    submit_features = DatabricksSubmitRunOperator(
        task_id="submit_features",
        json=FEATURE_RUN,
        wait_for_termination=False,
    )
    wait_features = PythonSensor(
        task_id="wait_features",
        python_callable=run_finished,
        op_args=[submit_features.output],
        mode="reschedule",
        poke_interval=600,
        timeout=timedelta(hours=10),
    )
    submit_features >> wait_features >> [publish_features(), notify_team()]

    refresh_dashboards = DatabricksRunNowOperator(
        task_id="refresh_dashboards",
        job_id=4242,
        deferrable=True,
        wait_for_termination=True,
    )
    wait_features >> refresh_dashboards
