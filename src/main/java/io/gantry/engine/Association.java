package io.gantry.engine;

import java.util.Objects;

/**
 * An association: an account, or a user within an account ({@code user} null for the account
 * itself). {@code fairShare} is the fair-share factor in [0,1] the accounting side computed;
 * {@code maxJobs} 0 means no limit; {@code grpTres} caps what all its running jobs hold together.
 */
public record Association(String account, String user, double fairShare, int maxJobs, Tres grpTres) {

    public Association {
        Objects.requireNonNull(account, "account");
        if (!(fairShare >= 0 && fairShare <= 1)) {
            throw new IllegalArgumentException("fair-share factor must be in [0,1]: " + fairShare);
        }
        grpTres = grpTres == null ? Tres.UNLIMITED : grpTres;
    }

    public static Association ofUser(String account, String user, double fairShare) {
        return new Association(account, user, fairShare, 0, Tres.UNLIMITED);
    }

    public static Association ofAccount(String account, double fairShare) {
        return new Association(account, null, fairShare, 0, Tres.UNLIMITED);
    }
}
