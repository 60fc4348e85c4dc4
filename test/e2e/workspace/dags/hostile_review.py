"""A DAG whose keys, values and task ids carry Markdown and HTML, for the review's real-editor test.

None of it may become a link, an image or an element in the rendered review: it is shown as text.
"""

from datetime import datetime

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, Asset, task


@task(retries=3)
def load(task_state_store=None, asset_state_store=None):
    task_state_store.set("a`](command:workbench.action.quit)<img src=x onerror=alert(1)>`.b", None)
    task_state_store.set('k`<a href="command:workbench.action.quit">quit</a>`/', datetime.now())
    asset_state_store[Asset("``[open](command:workbench.action.terminal.new)<b>bold</b>`")].set("k", 1)


with DAG(dag_id="hostile_review", schedule=None, start_date=datetime(2026, 1, 1)):
    submit = DatabricksSubmitRunOperator(task_id="s`[run](command:workbench.action.quit)<i>x</i>`", json={}, wait_for_termination=False)
    wait = PythonSensor(task_id="w`<img src=y onerror=alert(2)>`", python_callable=print, op_args=[submit.output])
    submit >> wait
    load()
