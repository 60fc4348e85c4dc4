# SYNTAX TEST "source.python" "state store names are scoped in code, not in strings or comments"
from airflow.sdk import NEVER_EXPIRE, ResumableJobMixin, task
#                       ^^^^^^^^^^^^ support.constant.airflow-state-store


@task(retries=3)
def export_pages(task_state_store=None, asset_state_store=None):
#                ^^^^^^^^^^^^^^^^ meta.function.parameters.python support.variable.airflow-state-store
#                                       ^^^^^^^^^^^^^^^^^ meta.function.parameters.python support.variable.airflow-state-store
#                                ^ keyword.operator.python - support.variable.airflow-state-store
    page = task_state_store.get("page", default=0)
#          ^^^^^^^^^^^^^^^^ support.variable.airflow-state-store
#                          ^^^^ - support.variable.airflow-state-store
    task_state_store.set("finished", True, retention=NEVER_EXPIRE)
#                                                    ^^^^^^^^^^^^ meta.function-call.arguments.python support.constant.airflow-state-store
    watermark = asset_state_store[ORDERS[0]].get("watermark")
#               ^^^^^^^^^^^^^^^^^ meta.item-access.python meta.indexed-name.python support.variable.airflow-state-store
#                                ^ meta.item-access.python punctuation.definition.arguments.begin.python - support.variable.airflow-state-store
#                                 ^^^^^^ meta.item-access.arguments.python constant.other.caps.python
#                                          ^ meta.item-access.python punctuation.definition.arguments.end.python
    run(task_state_store=task_state_store)
#       ^^^^^^^^^^^^^^^^ meta.function-call.arguments.python support.variable.airflow-state-store
#                        ^^^^^^^^^^^^^^^^ meta.function-call.arguments.python support.variable.airflow-state-store


@task(outlets=[ORDERS])
def annotated(asset_state_store: AssetStore | None = None):
#             ^^^^^^^^^^^^^^^^^ variable.parameter.function.language.python - support.variable.airflow-state-store
#                                             ^^^^ constant.language.python - keyword.illegal.name.python
    pass


def legacy(**context):
    store = context["task_state_store"]
#                    ^^^^^^^^^^^^^^^^ string.quoted.single.python - support.variable.airflow-state-store
    # the task_state_store survives retries; NEVER_EXPIRE keeps a key forever
#         ^^^^^^^^^^^^^^^^ comment.line.number-sign.python - support.variable.airflow-state-store
#                                            ^^^^^^^^^^^^ comment.line.number-sign.python - support.constant.airflow-state-store
    my_task_state_store = task_state_stores = 1
#   ^^^^^^^^^^^^^^^^^^^ - support.variable.airflow-state-store
#                         ^^^^^^^^^^^^^^^^^ - support.variable.airflow-state-store
    """Reads asset_state_store in a docstring."""
#            ^^^^^^^^^^^^^^^^^ string.quoted.docstring.multi.python - support.variable.airflow-state-store


class SparkOperator(ResumableJobMixin, BaseOperator):
    external_id_key = "spark_job_id"
#   ^^^^^^^^^^^^^^^ support.variable.property.airflow-state-store
#                      ^^^^^^^^^^^^ string.quoted.single.python - support.variable.property.airflow-state-store

    def execute(self, context):
        return self.execute_resumable(context)
#                   ^^^^^^^^^^^^^^^^^ meta.function-call.python meta.function-call.generic.python support.function.airflow-state-store
#                  ^ - support.function.airflow-state-store
#                                    ^ meta.function-call.python punctuation.definition.arguments.begin.python - support.function.airflow-state-store
#                                     ^^^^^^^ meta.function-call.python meta.function-call.arguments.python
#                                            ^ meta.function-call.python punctuation.definition.arguments.end.python

    def describe(self):
        return f"key {self.external_id_key} for {execute_resumable}"
#                          ^^^^^^^^^^^^^^^ meta.fstring.python support.variable.property.airflow-state-store
#                                                ^^^^^^^^^^^^^^^^^ meta.fstring.python support.function.airflow-state-store
#                ^^^ string.quoted.single.python - support.variable.property.airflow-state-store
