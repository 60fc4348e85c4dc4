"""Mapped tasks that each keep their own offset in the asset store (the correct form)."""
from datetime import datetime, timezone

from airflow.sdk import Asset, dag, task

EVENTS = Asset(name="events", uri="s3://lake/events")


@dag(schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), catchup=False)
def partitioned_events():
    @task(outlets=[EVENTS], retries=2)
    def ingest(partition_id: int, asset_state_store=None, task_state_store=None):
        store = asset_state_store[EVENTS]
        offset = store.get(f"offset_{partition_id}", default=0)
        task_state_store.set("started_at", datetime.now(tz=timezone.utc).isoformat())
        store.set(f"offset_{partition_id}", offset + 500)
        store.set(f"seen_ids_{partition_id}", sorted({1, 2, 3}))

    ingest.expand(partition_id=[0, 1, 2, 3])


partitioned_events()
