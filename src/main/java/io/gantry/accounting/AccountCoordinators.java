package io.gantry.accounting;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.security.CurrentUser;
import io.gantry.security.UserService;

/**
 * Account coordinators, like Slurm's: a coordinator of an account manages its whole sub-tree
 * (creates, changes and deletes sub-accounts, and adds, changes and removes users' associations
 * there) without being an ADMIN. Only ADMINs name coordinators.
 */
@Service
class AccountCoordinators {

    private final JdbcTemplate jdbc;
    private final AccountRepository accounts;
    private final UserService users;

    AccountCoordinators(JdbcTemplate jdbc, AccountRepository accounts, UserService users) {
        this.jdbc = jdbc;
        this.accounts = accounts;
        this.users = users;
    }

    @Transactional(readOnly = true)
    List<String> of(String account) {
        requireAccount(account);
        return jdbc.queryForList("SELECT user_name FROM account_coordinators WHERE account = ? ORDER BY user_name",
                String.class, account);
    }

    @Transactional
    List<String> set(String account, List<String> names) {
        requireAccount(account);
        if (names == null) {
            throw GantryException.badRequest("users", "is required (an empty list removes every coordinator)");
        }
        Set<String> unique = new java.util.TreeSet<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (name == null || users.find(name).isEmpty()) {
                throw GantryException.badRequest("users[" + i + "]", "no user '" + name + "'");
            }
            unique.add(name);
        }
        jdbc.update("DELETE FROM account_coordinators WHERE account = ?", account);
        for (String name : unique) {
            jdbc.update("INSERT INTO account_coordinators (account, user_name) VALUES (?, ?)", account, name);
        }
        return List.copyOf(unique);
    }

    /** Removes every coordinator of a deleted account, so a new account of that name starts without any. */
    @Transactional
    void forget(String account) {
        jdbc.update("DELETE FROM account_coordinators WHERE account = ?", account);
    }

    /**
     * Passes for ADMINs and for coordinators of {@code account} or of an account above it; 403
     * otherwise. An unknown account is left for the caller to report.
     */
    @Transactional(readOnly = true)
    void requireManager(CurrentUser caller, String account, String action) {
        if (caller.isAdmin() || account == null) {
            return;
        }
        Set<String> coordinated = new HashSet<>(jdbc.queryForList(
                "SELECT account FROM account_coordinators WHERE user_name = ?", String.class, caller.username()));
        Set<String> seen = new HashSet<>();
        for (String a = account; a != null && seen.add(a); a = accounts.findById(a).map(AccountEntity::parent).orElse(null)) {
            if (coordinated.contains(a)) {
                return;
            }
        }
        throw new GantryException(ProblemType.FORBIDDEN, "Only an ADMIN, or a coordinator of account '" + account
                + "' or of an account above it, may " + action);
    }

    private void requireAccount(String account) {
        if (!accounts.existsById(account)) {
            throw GantryException.notFound("Account", account);
        }
    }
}
