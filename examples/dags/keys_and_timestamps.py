"""Paginated sync of a CRM's contacts, resuming from the last page after a retry.

Shows: AS105 (keys with dots or slashes, a number as a key), AS106 (a context key from the stores'
development that never shipped) and AS206 (`datetime.utcnow()`, a naive timestamp). The tasks at
the bottom are the correct forms.
"""
from __future__ import annotations

from datetime import datetime, timezone

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG, Asset, get_current_context, task

CONTACTS = Asset(name="crm/contacts", uri="s3://lake/crm/contacts")
CURSOR_KEY = "crm.contacts/cursor"


def fetch_page(cursor):
    return {"contacts": [], "next_cursor": None}


def sync_contacts(**context):
    store = context["task_state_store"]
    cursor = store.get(CURSOR_KEY)
    while True:
        page = fetch_page(cursor)
        cursor = page["next_cursor"]
        if cursor is None:
            break
        store.set(CURSOR_KEY, cursor)
    store.set(1, "finished")
    store.set("finished_at", datetime.utcnow().isoformat())


with DAG(
    dag_id="crm_contacts_sync",
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    default_args={"retries": 3},
):
    legacy_sync = PythonOperator(task_id="sync_contacts", python_callable=sync_contacts)

    @task(outlets=[CONTACTS])
    def legacy_freshness():
        store = get_current_context()["asset_store"][CONTACTS]
        store.set("synced_at", datetime.utcnow().isoformat())

    @task(retries=3)
    def sync_contacts_resumable(task_state_store=None):
        cursor = task_state_store.get("contacts_cursor")
        while True:
            page = fetch_page(cursor)
            cursor = page["next_cursor"]
            if cursor is None:
                break
            task_state_store.set("contacts_cursor", cursor)
        task_state_store.set("finished_at", datetime.now(tz=timezone.utc).isoformat())
        task_state_store.delete("contacts_cursor")

    @task(outlets=[CONTACTS])
    def publish_freshness():
        store = get_current_context()["asset_state_store"][CONTACTS]
        store.set("synced_at", datetime.now(tz=timezone.utc).isoformat())

    legacy_sync >> legacy_freshness() >> sync_contacts_resumable() >> publish_freshness()
