import type { InvalidateQueryFilters, Query, QueryClient } from "@tanstack/react-query";

/**
 * Refreshes the queries a write changed. A first load still on its way was read before the
 * write, and TanStack's invalidation waits for a fetch in flight instead of asking again while
 * the query has no data yet: such loads are cancelled first, so the refresh asks again (else a
 * list misses what was just added, until its next refetch). Queries with data need nothing
 * more: invalidation cancels their fetch in flight itself.
 */
export async function refreshAfterWrite(qc: QueryClient, filters: InvalidateQueryFilters = {}): Promise<void> {
  const matches = filters.predicate;
  await qc.cancelQueries({ ...filters, predicate: (q: Query) => q.state.data === undefined && (matches ? matches(q) : true) });
  await qc.invalidateQueries(filters);
}
