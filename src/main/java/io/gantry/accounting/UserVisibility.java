package io.gantry.accounting;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.security.CurrentUser;

/**
 * Whose user names a caller may see when {@code gantry.accounting.private-users} is on: their own,
 * and, for a coordinator, those of the users in the accounts they coordinate and below (whom they
 * manage anyway). OPERATORs and ADMINs, and everyone when the switch is off, see all.
 */
@Service
public class UserVisibility {

    /** What one caller may see; ask once per request, then test every row against it. */
    public interface Names {

        Names ALL = (account, user) -> true;

        /** Whether {@code user}'s name may be shown on a row of {@code account}. */
        boolean shows(String account, String user);
    }

    private final AccountingProperties properties;
    private final JdbcTemplate jdbc;

    UserVisibility(AccountingProperties properties, JdbcTemplate jdbc) {
        this.properties = properties;
        this.jdbc = jdbc;
    }

    @Transactional(readOnly = true)
    public Names of(CurrentUser caller) {
        if (!properties.privateUsers() || caller.isOperator()) {
            return Names.ALL;
        }
        Set<String> coordinated = below(jdbc.queryForList(
                "SELECT account FROM account_coordinators WHERE user_name = ?", String.class, caller.username()));
        String self = caller.username();
        return (account, user) -> self.equals(user) || coordinated.contains(account);
    }

    /** These accounts and every account below them. */
    private Set<String> below(List<String> roots) {
        Set<String> found = new HashSet<>();
        if (roots.isEmpty()) {
            return found;
        }
        Map<String, List<String>> children = new HashMap<>();
        jdbc.query("SELECT name, parent FROM accounts WHERE parent IS NOT NULL", rs -> {
            children.computeIfAbsent(rs.getString(2), p -> new java.util.ArrayList<>()).add(rs.getString(1));
        });
        Deque<String> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty()) {
            String account = todo.pop();
            if (found.add(account)) {
                todo.addAll(children.getOrDefault(account, List.of()));
            }
        }
        return found;
    }
}
