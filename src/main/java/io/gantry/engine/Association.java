package io.gantry.engine;

import java.util.Objects;

/**
 * An association: an account, or a user within an account ({@code user} null for the account
 * itself). {@code parent} is the parent account of an account's own association (null for a root,
 * and for a user's association, whose parent is its account's). {@code fairShare} is the fair-share
 * factor in [0,1] the accounting side computed; {@code limits} are its own, enforced at its level of
 * the tree (see {@link AssocLimits}).
 */
public record Association(String account, String user, String parent, double fairShare, AssocLimits limits) {

    public Association {
        Objects.requireNonNull(account, "account");
        if (!(fairShare >= 0 && fairShare <= 1)) {
            throw new IllegalArgumentException("fair-share factor must be in [0,1]: " + fairShare);
        }
        limits = limits == null ? AssocLimits.NONE : limits;
        parent = user == null ? parent : null;
    }

    /** An association outside any tree, with only {@code MaxJobs} (0: no limit) and {@code GrpTRES}. */
    public Association(String account, String user, double fairShare, int maxJobs, Tres grpTres) {
        this(account, user, null, fairShare, AssocLimits.of(maxJobs, grpTres));
    }

    public static Association ofUser(String account, String user, double fairShare) {
        return new Association(account, user, null, fairShare, AssocLimits.NONE);
    }

    public static Association ofAccount(String account, double fairShare) {
        return new Association(account, null, null, fairShare, AssocLimits.NONE);
    }

    /** An account's own association under {@code parent} (null: a root). */
    public static Association ofAccount(String account, String parent, AssocLimits limits) {
        return new Association(account, null, parent, 1.0, limits);
    }

    public int maxJobs() {
        return limits.maxJobs();
    }

    public Tres grpTres() {
        return limits.grpTres();
    }
}
