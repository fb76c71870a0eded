package io.gantry.engine;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the engine needs to keep guarantees (issue 16): every account's {@link Quota}; how long a
 * borrowing job runs at least before it may be reclaimed ({@code minRuntimeSeconds}); and the
 * running jobs already told to stop for a reclaim ({@code stopping}: in their grace time, or their
 * end not yet reported), whose resources a reclaim counts as coming back instead of choosing more
 * victims. {@code borrowing} is the last plan's {@link Plan#borrowing()} (null when unknown, e.g.
 * right after a restart): only those running jobs may still borrow, so what an account borrows
 * can only shrink between starts, which are checked against the limits. Without it, the running
 * jobs are placed by start time alone, and jobs started in the same second may be placed in
 * another order than the plan that started them. {@code borrowedAt} is the last plan's
 * {@link Plan#borrowedAt()} (empty when unknown): a borrowing job that fits nowhere now (its lenders'
 * own jobs grew) is counted where it borrowed, so what is borrowed at each account only shrinks too.
 * No account with a guarantee: quotas are off and nothing changes.
 */
public record QuotaTree(List<Quota> accounts, long minRuntimeSeconds, Set<JobId> stopping, Set<JobId> borrowing,
        Map<JobId, Map<String, String>> borrowedAt) {

    public static final QuotaTree NONE = new QuotaTree(List.of(), 0, Set.of(), null);

    /** A tree whose borrowing jobs' accounts they borrow at are not known. */
    public QuotaTree(List<Quota> accounts, long minRuntimeSeconds, Set<JobId> stopping, Set<JobId> borrowing) {
        this(accounts, minRuntimeSeconds, stopping, borrowing, Map.of());
    }

    /** A tree whose running jobs' borrowing is not known: derived from start order alone. */
    public QuotaTree(List<Quota> accounts, long minRuntimeSeconds, Set<JobId> stopping) {
        this(accounts, minRuntimeSeconds, stopping, null);
    }

    public QuotaTree {
        accounts = accounts == null ? List.of() : List.copyOf(accounts);
        borrowing = borrowing == null ? null : Set.copyOf(borrowing);
        borrowedAt = borrowedAt == null ? Map.of() : Map.copyOf(borrowedAt);
        stopping = stopping == null ? Set.of() : Set.copyOf(stopping);
        if (minRuntimeSeconds < 0) {
            throw new IllegalArgumentException("minimum run time must not be negative");
        }
    }

    /** True when some account holds a guarantee. */
    public boolean active() {
        for (Quota q : accounts) {
            for (long v : q.guaranteed().values()) {
                if (v > 0) {
                    return true;
                }
            }
        }
        return false;
    }
}
