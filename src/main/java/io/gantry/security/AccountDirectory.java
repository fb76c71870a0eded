package io.gantry.security;

import java.util.List;

/**
 * The accounts users belong to, as the accounting feature keeps them. Users are this package's;
 * accounts and associations are accounting's, which implements this so that a user's default
 * account is checked and joined in the same transaction that writes the user.
 */
public interface AccountDirectory {

    /**
     * Checks that {@code account} exists (a 400 on {@code field} when not) and gives {@code username}
     * an association in it when they have none.
     */
    void join(String username, String account, String field);

    /** The accounts {@code username} has an association in, by name. */
    List<String> accountsOf(String username);

    /** The accounts {@code username} coordinates (manages the sub-tree of), by name. */
    List<String> coordinatorOf(String username);

    /** Removes whatever accounting keeps of a user being deleted. */
    void forget(String username);
}
