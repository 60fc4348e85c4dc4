/** Paged collections: `limit` / `offset` in, `{<items>: [...], total_entries}` out. */
import { InvalidResponseError } from "./errors";
import type { HttpResponse } from "./http";
import { checkPageParam } from "./validate";
import type { Page, PageParams } from "./types";

/** Query parameters for a page; validated before sending. */
export function pageQuery(params: PageParams | undefined): { limit?: number; offset?: number } {
  return { limit: checkPageParam("limit", params?.limit), offset: checkPageParam("offset", params?.offset) };
}

/** Reads `{[field]: [...], total_entries}` into a Page, checking the shape. */
export function toPage<T>(body: unknown, field: string, offset: number, res?: Pick<HttpResponse, "status" | "text">): Page<T> {
  const obj = body as Record<string, unknown> | null;
  const items = obj && typeof obj === "object" ? obj[field] : undefined;
  const total = obj && typeof obj === "object" ? obj.total_entries : undefined;
  if (!Array.isArray(items) || typeof total !== "number") {
    throw new InvalidResponseError(
      `Airflow's response has no "${field}" list with "total_entries"`,
      res?.status ?? 200,
      res?.text ?? JSON.stringify(body) ?? "",
    );
  }
  const nextOffset = offset + items.length;
  return { items: items as T[], totalEntries: total, offset, nextOffset, hasMore: items.length > 0 && nextOffset < total };
}

/**
 * Iterates over every item of a collection, one page at a time (the server may cap `limit`;
 * the next offset comes from what it really returned).
 */
export async function* paginate<T>(
  fetchPage: (params: Required<PageParams>) => Promise<Page<T>>,
  pageSize = 100,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const page = await fetchPage({ limit: pageSize, offset });
    yield* page.items;
    if (!page.hasMore) return;
    offset = page.nextOffset;
  }
}
