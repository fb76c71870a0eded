package io.gantry.security;

import java.time.Instant;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

@Entity
@Table(name = "users")
class UserEntity {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 32)
    private String username;

    @Column(name = "password_hash", nullable = false)
    private String passwordHash;

    @Column(nullable = false)
    private boolean enabled;

    @Column(name = "default_account", length = 64)
    private String defaultAccount;

    // Plain strings rather than @Enumerated: H2 would otherwise expect a native ENUM column.
    @ElementCollection(fetch = FetchType.EAGER)
    @CollectionTable(name = "user_roles", joinColumns = @JoinColumn(name = "user_id"))
    @Column(name = "role", nullable = false, length = 16)
    private Set<String> roles = new HashSet<>();

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    /** Tokens carry the epoch they were issued in; a new one refuses every older token (see V23). */
    @Column(name = "token_epoch", nullable = false)
    private long tokenEpoch;

    @Version
    private long version;

    protected UserEntity() {
    }

    UserEntity(String username, String passwordHash, Set<Role> roles, String defaultAccount, long tokenEpoch,
            Instant now) {
        this.username = username;
        this.tokenEpoch = tokenEpoch;
        this.passwordHash = passwordHash;
        this.enabled = true;
        this.defaultAccount = defaultAccount;
        this.createdAt = now;
        this.updatedAt = now;
        setRoles(roles);
    }

    String username() {
        return username;
    }

    String passwordHash() {
        return passwordHash;
    }

    boolean enabled() {
        return enabled;
    }

    long tokenEpoch() {
        return tokenEpoch;
    }

    void setTokenEpoch(long tokenEpoch, Instant now) {
        this.tokenEpoch = tokenEpoch;
        this.updatedAt = now;
    }

    Set<Role> roles() {
        EnumSet<Role> result = EnumSet.noneOf(Role.class);
        roles.forEach(r -> Role.parse(r).ifPresent(result::add));
        return result;
    }

    void setPasswordHash(String passwordHash, Instant now) {
        this.passwordHash = passwordHash;
        this.updatedAt = now;
    }

    void setEnabled(boolean enabled, Instant now) {
        this.enabled = enabled;
        this.updatedAt = now;
    }

    void setRoles(Set<Role> roles, Instant now) {
        setRoles(roles);
        this.updatedAt = now;
    }

    void setDefaultAccount(String defaultAccount, Instant now) {
        this.defaultAccount = defaultAccount;
        this.updatedAt = now;
    }

    private void setRoles(Set<Role> newRoles) {
        roles.clear();
        roles.addAll(newRoles.stream().map(Role::name).collect(Collectors.toSet()));
    }

    User toRecord() {
        return new User(username, roles(), enabled, defaultAccount, createdAt, updatedAt);
    }
}
