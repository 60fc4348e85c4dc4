"""Orders and clickstream loads that keep their progress in their assets' state stores.

Shows: AS202 (a store indexed with an asset the task does not declare), AS203 (the store used
without an asset in a task that has two), AS204 (every map index writing the same asset key) and
AS205 (clear() in a mapped task, which clears one index). Each sits next to its correct form.
"""
from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Asset, dag, task

RAW_ORDERS = Asset(name="orders/raw", uri="s3://landing/orders")
ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")
CLICKS = Asset(name="clicks", uri="s3://lake/clicks")


def fetch_orders_since(watermark: str) -> list[dict]:
    return [{"id": 1, "updated_at": watermark}]


def read_partition(partition_id: int, offset: int) -> int:
    return offset + 500 * (partition_id + 1)


@dag(schedule="@hourly", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), catchup=False)
def orders_and_clicks():
    @task(inlets=[RAW_ORDERS], outlets=[ORDERS], retries=3)
    def load_orders(asset_state_store=None):
        # Two concrete assets: the un-indexed store cannot tell which one is meant (AS203).
        since = asset_state_store.get("watermark", default="2026-01-01T00:00:00+00:00")
        rows = fetch_orders_since(since)
        # Correct: indexed with the asset the watermark belongs to.
        asset_state_store[ORDERS].set("watermark", datetime.now(tz=timezone.utc).isoformat())
        asset_state_store[ORDERS].set("rows_loaded", len(rows))

    @task(outlets=[ORDERS])
    def report_freshness(asset_state_store=None):
        # Correct: ORDERS is this task's outlet.
        watermark = asset_state_store[ORDERS].get("watermark")
        # CLICKS is neither an inlet nor an outlet of this task: KeyError (AS202).
        clicks_offset = asset_state_store[CLICKS].get("offset_0")
        print(f"orders fresh up to {watermark}, clicks at {clicks_offset}")

    @task(outlets=[CLICKS], retries=2)
    def ingest_clicks(partition_id: int, asset_state_store=None, task_state_store=None):
        store = asset_state_store[CLICKS]
        # Correct: one key per map index.
        offset = store.get(f"offset_{partition_id}", default=0)
        store.set(f"offset_{partition_id}", read_partition(partition_id, offset))
        # Every index writes the same key: the last one to finish wins (AS204).
        store.set("ingested_at", datetime.now(tz=timezone.utc).isoformat())
        # Clears this index's keys only, whatever the intent (AS205).
        task_state_store.clear()

    @task(outlets=[CLICKS])
    def compact_clicks(partition_id: int, asset_state_store=None, task_state_store=None):
        # Correct: a shared key written by a single index.
        if partition_id == 0:
            asset_state_store[CLICKS].set("compacted_at", datetime.now(tz=timezone.utc).isoformat())
        # Correct: only this index's keys are meant, and the comment says so.
        # (`clear(all_map_indices=False)` would raise TypeError: AS207.)
        task_state_store.clear()  # noqa: AS205

    load_orders() >> report_freshness()
    ingest_clicks.expand(partition_id=[0, 1, 2, 3]) >> compact_clicks.expand(partition_id=[0, 1, 2, 3])


orders_and_clicks()
