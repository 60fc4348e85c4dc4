"""Incremental load of orders, keeping its watermark in the asset's state store.

Shows: AS101 (a datetime stored as is), AS104 (retention on the asset store),
AS201 (asset_state_store combined with **context). The consumer at the bottom is the correct form.
"""
from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import Asset, dag, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@dag(schedule="@hourly", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), catchup=False)
def orders_incremental():
    @task(inlets=[ORDERS], outlets=[ORDERS], retries=3)
    def load_new_orders(asset_state_store=None, **context):
        store = asset_state_store[ORDERS]
        since = store.get("watermark", default="2026-01-01T00:00:00+00:00")
        print(f"loading orders since {since} for {context['ds']}")
        store.set("watermark", datetime.now(tz=timezone.utc))
        store.set("rows_loaded", 1200, retention=7)

    @task(inlets=[ORDERS])
    def report_freshness(asset_state_store=None):
        watermark = asset_state_store[ORDERS].get("watermark")
        print(f"orders are fresh up to {watermark}")

    load_new_orders() >> report_freshness()


orders_incremental()
