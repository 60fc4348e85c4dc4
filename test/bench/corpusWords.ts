/** The vocabulary the corpus generator names teams, data, tasks and services with. */
export const TEAMS = ["finance", "marketing", "data_platform", "ml", "growth", "ops", "risk", "sales", "logistics", "product_analytics", "billing", "support"] as const;

export const DOMAINS = [
  "orders", "customers", "invoices", "events", "clicks", "payments", "inventory", "shipments", "campaigns", "sessions",
  "users", "products", "refunds", "ledger", "forecasts", "subscriptions", "tickets", "leads", "pageviews", "returns",
] as const;

export const VERBS = ["extract", "load", "transform", "validate", "publish", "aggregate", "dedupe", "enrich", "export", "sync", "snapshot", "score", "archive", "backfill"] as const;

export const SERVICES = ["batch", "spark", "emr", "dataproc", "sagemaker", "fivetran", "dbt_cloud", "glue", "athena", "render", "transcode", "geocode"] as const;

export const SCHEDULES = ['"@daily"', '"@hourly"', '"0 3 * * *"', '"30 */4 * * *"', '"@weekly"', "None", '"15 6 * * 1-5"'] as const;

export function camel(snake: string): string {
  return snake
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

export function title(snake: string): string {
  const words = snake.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
