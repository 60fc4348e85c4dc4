# SYNTAX TEST "source.python" "AS rule codes in noqa comments, read as the linter reads them"
store.set("day", None)  # noqa: AS102
#                               ^^^^^ comment.line.number-sign.python constant.other.rule-code.airflow-state-store
#                         ^^^^^ comment.line.number-sign.python - constant.other.rule-code.airflow-state-store
store.set("day", now)  # noqa: E501, AS101 AS107,as104
#                              ^^^^ comment.line.number-sign.python - constant.other.rule-code.airflow-state-store
#                                    ^^^^^ constant.other.rule-code.airflow-state-store
#                                          ^^^^^ constant.other.rule-code.airflow-state-store
#                                                ^^^^^ constant.other.rule-code.airflow-state-store
store.set("day", now)  #noqa:AS101 -- the value is a string already, AS102
#                            ^^^^^ constant.other.rule-code.airflow-state-store
#                                                                    ^^^^^ comment.line.number-sign.python - constant.other.rule-code.airflow-state-store
store.set("day", now)  # see noqa: AS101
#                                  ^^^^^ comment.line.number-sign.python - constant.other.rule-code.airflow-state-store
store.set("day", now)  # type: ignore  # noqa: AS101
#                                              ^^^^^ comment.line.number-sign.python constant.other.rule-code.airflow-state-store
store.set("day", now)  # noqa: AS1011 AS101
#                              ^^^^^^ comment.line.number-sign.python - constant.other.rule-code.airflow-state-store
#                                     ^^^^^ comment.line.number-sign.python constant.other.rule-code.airflow-state-store
print("# noqa: AS101")
#              ^^^^^ string.quoted.single.python - constant.other.rule-code.airflow-state-store
AS101 = 1  # AS101 outside a noqa list
# <----- - constant.other.rule-code.airflow-state-store
#            ^^^^^ comment.line.number-sign.python - constant.other.rule-code.airflow-state-store
