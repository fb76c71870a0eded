import type { QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * Reads a query again after a change this tab made (a user created, a partition changed), so that the view shows
 * it. A read already on its way began before the change and cannot have it: it is dropped and a new one made.
 * Invalidating alone does not do that while the query's first read is still on its way (the tab has just opened,
 * on a busy server): TanStack Query then joins that read rather than start another, and the list stayed without
 * the change until something else refreshed it.
 */
export async function rereadAfterChange(queryClient: QueryClient, queryKey: QueryKey): Promise<void> {
  await queryClient.cancelQueries({ queryKey });
  await queryClient.invalidateQueries({ queryKey });
}
