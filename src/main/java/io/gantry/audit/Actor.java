package io.gantry.audit;

/**
 * Who made an audited change, and under which authority: an ADMIN, an OPERATOR, a USER acting
 * as an account's coordinator, or a node agent joining with the join token. Built by the caller from its own notion of the signed-in user, so
 * that this package depends on none of the features that record into it.
 */
public record Actor(String username, Authority authority) {

    /** The authority a change was allowed under, as {@code GET /audit} shows it in {@code actorRole}. */
    public enum Authority {
        ADMIN, OPERATOR, COORDINATOR,
        /** A node agent, on the strength of the cluster's join token (no user signed in). */
        AGENT
    }

    /** Who joins with the join token: no user, only the token. */
    public static final String JOIN_TOKEN = "join-token";

    public Actor {
        if (username == null || username.isBlank() || authority == null) {
            throw new IllegalArgumentException("An audited change needs a user and an authority");
        }
    }

    /** An ADMIN, or else an OPERATOR: the two roles that act on what others own. */
    public static Actor staff(String username, boolean admin) {
        return new Actor(username, admin ? Authority.ADMIN : Authority.OPERATOR);
    }

    /** An agent that presented the join token. */
    public static Actor joinToken() {
        return new Actor(JOIN_TOKEN, Authority.AGENT);
    }

    /** A user allowed the change only as a coordinator of an account above its target. */
    public static Actor coordinator(String username) {
        return new Actor(username, Authority.COORDINATOR);
    }
}
