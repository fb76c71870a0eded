package io.gantry.accounting;

import java.util.List;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.security.AccountDirectory;

/**
 * Accounting's side of a user's default account: giving a user one creates their association in
 * it (API.md), in the transaction that writes the user. Apart from {@link AccountingService}, which
 * needs the user service, so that the two do not depend on each other.
 */
@Component
class UserAccounts implements AccountDirectory {

    private final AccountRepository accounts;
    private final AssociationRepository associations;
    private final ApplicationEventPublisher events;
    private final JdbcTemplate jdbc;

    // Not through AccountCoordinators: it needs the user service, which needs this.
    UserAccounts(AccountRepository accounts, AssociationRepository associations, ApplicationEventPublisher events,
            JdbcTemplate jdbc) {
        this.accounts = accounts;
        this.associations = associations;
        this.events = events;
        this.jdbc = jdbc;
    }

    @Override
    @Transactional
    public void join(String username, String account, String field) {
        if (!accounts.existsById(account)) {
            throw GantryException.badRequest(field, "account '" + account + "' does not exist; create it first "
                    + "with POST /api/v1/accounts");
        }
        if (associations.findByAccountAndUser(account, username).isEmpty()) {
            // Another request may add the same association between the check and the insert: the
            // unique key refuses this one, and the change is answered as the conflict it is.
            io.gantry.api.UniqueKey.insert(() -> associations.saveAndFlush(new AssociationEntity(account, username, 1)),
                    () -> GantryException.conflict("User '" + username + "' was added to account '" + account
                            + "' by another request at the same time; read the user and retry"));
            events.publishEvent(new AccountingChanged("association " + account + "/" + username));
        }
    }

    @Override
    @Transactional(readOnly = true)
    public List<String> accountsOf(String username) {
        return associations.findByUserOrderByAccount(username).stream().map(AssociationEntity::account).toList();
    }

    @Override
    @Transactional(readOnly = true)
    public List<String> coordinatorOf(String username) {
        return jdbc.queryForList("SELECT account FROM account_coordinators WHERE user_name = ? ORDER BY account",
                String.class, username);
    }

    @Override
    @Transactional
    public void forget(String username) {
        List<AssociationEntity> mine = associations.findByUserOrderByAccount(username);
        if (!mine.isEmpty()) {
            associations.deleteAll(mine);
            associations.flush();
            events.publishEvent(new AccountingChanged("associations of " + username));
        }
    }
}
