import type { InvalidateQueryFilters, QueryClient } from '@tanstack/react-query';

/**
 * Reads the queries {@code filters} picks again after a change (one this tab made, or one the event stream
 * told of), so that the view shows it. Invalidating alone does not do that for a query whose first read is still
 * on its way (a page or tab just opened, on a busy server): TanStack Query joins that read rather than start
 * another (it starts another only for a query that has data), and the read began before the change. So such
 * first reads are dropped first, and then everything picked is read again. Seen twice: a user created right
 * after opening the Users tab was missing from its list, and a job that started while its page was loading stayed
 * PENDING there until its next change.
 */
export async function rereadAfterChange(queryClient: QueryClient, filters: InvalidateQueryFilters): Promise<void> {
  await queryClient.cancelQueries({
    ...filters,
    predicate: (query) => query.state.data === undefined && (filters.predicate?.(query) ?? true),
  });
  await queryClient.invalidateQueries(filters);
}
