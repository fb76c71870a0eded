package io.gantry.audit;

/**
 * Who made an audited change, and under which authority: an ADMIN, an OPERATOR, or a USER acting
 * as an account's coordinator. Built by the caller from its own notion of the signed-in user, so
 * that this package depends on none of the features that record into it.
 */
public record Actor(String username, Authority authority) {

    /** The authority a change was allowed under, as {@code GET /audit} shows it in {@code actorRole}. */
    public enum Authority {
        ADMIN, OPERATOR, COORDINATOR
    }

    public Actor {
        if (username == null || username.isBlank() || authority == null) {
            throw new IllegalArgumentException("An audited change needs a user and an authority");
        }
    }

    /** An ADMIN, or else an OPERATOR: the two roles that act on what others own. */
    public static Actor staff(String username, boolean admin) {
        return new Actor(username, admin ? Authority.ADMIN : Authority.OPERATOR);
    }

    /** A user allowed the change only as a coordinator of an account above its target. */
    public static Actor coordinator(String username) {
        return new Actor(username, Authority.COORDINATOR);
    }
}
