package io.gantry.security;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.stereotype.Component;

import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;

/**
 * The audit records of changes to users, made by a signed-in ADMIN (the bootstrap admin created at
 * start has no actor and no record). A snapshot shows the user as the API does, never the password
 * or its hash: a new password shows only as {@code passwordChanged}.
 */
@Component
class UserAudit {

    private final Audit audit;

    UserAudit(Audit audit) {
        this.audit = audit;
    }

    void created(User after) {
        record(AuditAction.CREATE, after.username(), null, snapshot(after, false));
    }

    void changed(User before, User after, boolean passwordChanged) {
        record(AuditAction.UPDATE, after.username(), snapshot(before, false), snapshot(after, passwordChanged));
    }

    /** An ADMIN ending another user's tokens; a user revoking their own is not a staff change. */
    void tokensRevoked(User user) {
        CurrentUser.find().filter(caller -> !caller.username().equals(user.username())).ifPresent(caller ->
                audit.record(Actor.staff(caller.username(), caller.isAdmin()), AuditAction.REVOKE, AuditEntity.USER,
                        user.username(), snapshot(user, false), Map.of("tokensRevoked", true)));
    }

    void deleted(User before) {
        record(AuditAction.DELETE, before.username(), snapshot(before, false), null);
    }

    private void record(AuditAction action, String username, Object before, Object after) {
        CurrentUser.find().ifPresent(caller -> audit.record(Actor.staff(caller.username(), caller.isAdmin()), action,
                AuditEntity.USER, username, before, after));
    }

    private static Map<String, Object> snapshot(User user, boolean passwordChanged) {
        Map<String, Object> snapshot = new LinkedHashMap<>();
        snapshot.put("username", user.username());
        snapshot.put("roles", user.roles().stream().sorted().map(Role::name).toList());
        snapshot.put("enabled", user.enabled());
        snapshot.put("defaultAccount", user.defaultAccount());
        if (passwordChanged) {
            snapshot.put("passwordChanged", true);
        }
        return snapshot;
    }
}
