package io.gantry.accounting;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.ProblemType;
import io.gantry.audit.Actor;
import io.gantry.security.CurrentUser;
import io.gantry.security.UserService;

/**
 * Account coordinators, like Slurm's: a coordinator of an account manages the accounts below it
 * (creates, changes and deletes sub-accounts and their own associations) and the users'
 * associations in its sub-tree, without being an ADMIN. As in Slurm, a coordinator may not change
 * their own account (its shares and limits are what the ADMIN gave it), nor their own association
 * anywhere, and may grant only QOS their account already allows. Only ADMINs name coordinators.
 */
@Service
class AccountCoordinators {

    private final JdbcTemplate jdbc;
    private final AccountRepository accounts;
    private final AssociationRepository associations;
    private final UserService users;

    AccountCoordinators(JdbcTemplate jdbc, AccountRepository accounts, AssociationRepository associations,
            UserService users) {
        this.jdbc = jdbc;
        this.accounts = accounts;
        this.associations = associations;
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

    /** Who may create an account under {@code parent}: an ADMIN, or a coordinator of it or an account above it. */
    @Transactional(readOnly = true)
    Actor mayCreateAccountUnder(CurrentUser caller, String parent) {
        return managing(caller, parent, false, "create accounts under it").actor();
    }

    /**
     * Who may change or delete {@code account} itself (its shares, description, parent; its own
     * association's limits and QOS): an ADMIN, or a coordinator of an account strictly above it.
     */
    @Transactional(readOnly = true)
    Actor mayChangeAccount(CurrentUser caller, String account, String action) {
        return managing(caller, account, true, action).actor();
    }

    /**
     * Who may create, change or remove {@code user}'s association in {@code account} ({@code user}
     * null: the account's own association), setting {@code request}'s QOS: an ADMIN; or a coordinator
     * of an account above it (of the account itself for a user's association) who is not that user
     * and grants only QOS their account allows. {@code current} is the association as it is (null when
     * creating): QOS it already has are not a grant.
     */
    @Transactional(readOnly = true)
    Actor mayWriteAssociation(CurrentUser caller, String account, String user, AccountingViews.AssociationRequest request,
            AccountingViews.Association current, String action) {
        if (!caller.isAdmin() && caller.username().equals(user)) {
            throw new GantryException(ProblemType.FORBIDDEN, "A coordinator may not " + action
                    + " their own association (user '" + user + "' in account '" + account + "'); ask an ADMIN");
        }
        Management management = managing(caller, account, user == null, action);
        if (request != null) {
            management.requireGrantable(request, current);
        }
        return management.actor();
    }

    /**
     * The QOS a coordinator's new association gets when the request names none: what their account
     * allows, as Slurm's new associations inherit their parent's (an empty list would allow every QOS).
     */
    @Transactional(readOnly = true)
    Optional<List<String>> inheritedQos(CurrentUser caller, String account) {
        return managing(caller, account, false, "add users to it").allowed().map(List::copyOf);
    }

    /**
     * The caller's authority over {@code account}: ADMINs have it everywhere; a coordinator through
     * the accounts they coordinate at or above it ({@code strictlyBelow}: only above it). 403 when
     * neither, as for an unknown account, which is in no coordinator's sub-tree (an ADMIN gets the
     * service's 400 or 404).
     */
    private Management managing(CurrentUser caller, String account, boolean strictlyBelow, String action) {
        if (caller.isAdmin()) {
            return new Management(Actor.staff(caller.username(), true), List.of());
        }
        Set<String> coordinated = new HashSet<>(jdbc.queryForList(
                "SELECT account FROM account_coordinators WHERE user_name = ?", String.class, caller.username()));
        List<String> through = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String start = account == null ? null
                : strictlyBelow ? accounts.findById(account).map(AccountEntity::parent).orElse(null) : account;
        for (String a = start; a != null && seen.add(a); a = accounts.findById(a).map(AccountEntity::parent).orElse(null)) {
            if (coordinated.contains(a)) {
                through.add(a);
            }
        }
        if (through.isEmpty()) {
            String why = coordinated.contains(account)
                    ? "; a coordinator manages only the accounts below their own, whose shares and limits are an ADMIN's"
                    : "";
            String who = strictlyBelow ? "a coordinator of an account above '" + account + "'"
                    : "a coordinator of account '" + account + "' or of an account above it";
            throw new GantryException(ProblemType.FORBIDDEN, "Only an ADMIN, or " + who + ", may " + action + why);
        }
        return new Management(Actor.coordinator(caller.username()), through);
    }

    /** A caller's authority: an ADMIN ({@code through} empty), or a coordinator of the accounts {@code through}. */
    private final class Management {

        private final Actor actor;
        private final List<String> through;

        Management(Actor actor, List<String> through) {
            this.actor = actor;
            this.through = through;
        }

        Actor actor() {
            return actor;
        }

        /**
         * The QOS this coordinator may grant: those the accounts they act through allow (their own
         * associations' lists); empty when unrestricted (an ADMIN, or an account allowing every QOS).
         */
        Optional<Set<String>> allowed() {
            Set<String> allowed = new LinkedHashSet<>();
            for (String account : through) {
                List<String> list = associations.findAccountOwn(account).map(AssociationEntity::qos).orElse(List.of());
                if (list.isEmpty()) {
                    return Optional.empty();
                }
                allowed.addAll(list);
            }
            return through.isEmpty() ? Optional.empty() : Optional.of(allowed);
        }

        void requireGrantable(AccountingViews.AssociationRequest request, AccountingViews.Association current) {
            Optional<Set<String>> allowed = allowed();
            if (allowed.isEmpty()) {
                return;
            }
            Set<String> granted = new HashSet<>(allowed.get());
            if (current != null) {
                granted.addAll(current.qos());
                if (current.defaultQos() != null) {
                    granted.add(current.defaultQos());
                }
            }
            List<FieldError> errors = new ArrayList<>();
            String accounts = String.join(", ", through);
            if (request.qos() != null) {
                if (request.qos().isEmpty()) {
                    errors.add(new FieldError("qos", "an empty list allows every QOS, more than account " + accounts
                            + " allows (" + String.join(", ", allowed.get()) + ")"));
                }
                for (int i = 0; i < request.qos().size(); i++) {
                    String q = request.qos().get(i);
                    if (q != null && !granted.contains(q)) {
                        errors.add(new FieldError("qos[" + i + "]", notAllowed(q, accounts, allowed.get())));
                    }
                }
            }
            String defaultQos = request.defaultQos();
            if (defaultQos != null && !defaultQos.isBlank() && !granted.contains(defaultQos)) {
                errors.add(new FieldError("defaultQos", notAllowed(defaultQos, accounts, allowed.get())));
            }
            if (!errors.isEmpty()) {
                throw new GantryException(ProblemType.FORBIDDEN, GantryException.summary(errors), errors);
            }
        }

        private static String notAllowed(String qos, String accounts, Set<String> allowed) {
            return "account " + accounts + " does not allow QOS '" + qos + "'; a coordinator may grant only "
                    + String.join(", ", allowed);
        }
    }

    private void requireAccount(String account) {
        if (!accounts.existsById(account)) {
            throw GantryException.notFound("Account", account);
        }
    }
}
