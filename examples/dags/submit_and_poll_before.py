"""Nightly feature build on Databricks, split into a submit task and a poll task.

Shows: AS405 (the submit returns as soon as Databricks accepts the run, and a poke-mode sensor
holds a worker slot for the whole run anyway), AS407 (the team is told the features are ready
when the run was merely accepted) and AS406 (a dashboard refresh that asks for deferral but waits
for nothing). submit_and_poll_after.py keeps the split the way Section 6 of the review guidance
allows it for a very long run on a deployment without a Triggerer; AS405's code actions fold it into
one deferrable or one durable task instead. `airflow-state-lint --format review` explains the
trade-off.
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
        poke_interval=60,
        timeout=timedelta(hours=6),
    )
    submit_features >> wait_features >> publish_features()
    submit_features >> notify_team()

    refresh_dashboards = DatabricksRunNowOperator(
        task_id="refresh_dashboards",
        job_id=4242,
        deferrable=True,
        wait_for_termination=False,
    )
    wait_features >> refresh_dashboards
