package io.gantry.security;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.data.domain.Sort;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.api.ProblemType;

/** Gantry's users: who they are, what they may do, and whether a password is theirs. */
@Service
public class UserService {

    /** Like a Unix login name, which is what Slurm users are. */
    public static final Pattern USERNAME = Pattern.compile("[a-z_][a-z0-9_.-]{0,31}");
    /** BCrypt reads no further than 72 bytes; a longer password would be silently cut. */
    static final int MAX_PASSWORD_BYTES = 72;
    static final int MAX_ACCOUNT_LENGTH = 64;

    private static final String BAD_CREDENTIALS = "Unknown user or wrong password";

    private final UserRepository users;
    private final PasswordEncoder passwords;
    private final ApplicationEventPublisher events;
    private final AccountDirectory accounts;
    private final Clock clock;
    private final UserAudit audit;
    /**
     * Compared against when the user does not exist, so that both answers take as long: the BCrypt hash, at
     * the encoder's cost (10, as users' own hashes), of a random password that was thrown away. A constant, not
     * hashed at every start: one BCrypt was most of two CPU-seconds of a controller's start on the quick compiler.
     */
    static final String DECOY_HASH = "{bcrypt}$2a$10$IgzER94cbjMiI9IClo/H.evLgIrrfOJBYDEFBp0NOt1Qy.Pnbp/Mq";

    UserService(UserRepository users, PasswordEncoder passwords, ApplicationEventPublisher events,
            AccountDirectory accounts, Clock clock, UserAudit audit) {
        this.users = users;
        this.audit = audit;
        this.accounts = accounts;
        this.passwords = passwords;
        this.events = events;
        this.clock = clock;
    }

    /** What a new user is made of; {@code roles} empty means USER. */
    public record NewUser(String username, String password, Set<Role> roles, String defaultAccount) {
    }

    /** A partial change: {@code null} leaves a field as it is. */
    public record UserChange(String password, Set<Role> roles, Boolean enabled, String defaultAccount) {
    }

    /** A user whose password checked out, with the token epoch their new token must carry. */
    public record SignedIn(User user, long tokenEpoch) {
    }

    /** What a presented token is checked against: an enabled user's roles and current token epoch. */
    public record Standing(Set<Role> roles, long tokenEpoch) {
    }

    @Transactional(readOnly = true)
    public boolean anyUsers() {
        return users.count() > 0;
    }

    @Transactional(readOnly = true)
    public Optional<User> find(String username) {
        return users.findByUsername(username).map(UserEntity::toRecord);
    }

    @Transactional(readOnly = true)
    public User get(String username) {
        return find(username).orElseThrow(() -> GantryException.notFound("User", username));
    }

    @Transactional(readOnly = true)
    public PageResponse<User> list(PageRequest page) {
        var result = users.findAll(org.springframework.data.domain.PageRequest.of(page.page(), page.size(),
                Sort.by("username")));
        return new PageResponse<>(result.map(UserEntity::toRecord).getContent(), page.page(), page.size(),
                result.getTotalElements());
    }

    /** The roles and token epoch of an existing, enabled user; empty when the user is gone or disabled. */
    @Transactional(readOnly = true)
    public Optional<Standing> standing(String username) {
        return users.findByUsername(username).filter(UserEntity::enabled)
                .map(u -> new Standing(u.roles(), u.tokenEpoch()));
    }

    /**
     * The user whose password this is. Unknown users and wrong passwords get the same answer in
     * about the same time; only someone who knows the password learns that the user is disabled.
     */
    @Transactional(readOnly = true)
    public SignedIn authenticate(String username, String password) {
        Optional<UserEntity> user = username == null ? Optional.empty() : users.findByUsername(username);
        String candidate = password == null ? "" : password;
        boolean matches = passwords.matches(candidate, user.map(UserEntity::passwordHash).orElse(DECOY_HASH));
        if (user.isEmpty() || !matches) {
            throw new GantryException(ProblemType.UNAUTHENTICATED, BAD_CREDENTIALS);
        }
        if (!user.get().enabled()) {
            throw new GantryException(ProblemType.UNAUTHENTICATED, "User '" + username + "' is disabled");
        }
        return new SignedIn(user.get().toRecord(), user.get().tokenEpoch());
    }

    @Transactional
    public User create(NewUser request) {
        String username = request.username();
        if (username == null || !USERNAME.matcher(username).matches()) {
            throw GantryException.badRequest("username", "must match " + USERNAME.pattern()
                    + " (lower case, starting with a letter or _, at most 32 characters)");
        }
        checkPassword(request.password());
        Set<Role> roles = request.roles() == null || request.roles().isEmpty() ? EnumSet.of(Role.USER)
                : EnumSet.copyOf(request.roles());
        String account = checkAccount(request.defaultAccount());
        if (users.existsByUsername(username)) {
            throw GantryException.conflict("User '" + username + "' already exists");
        }
        UserEntity entity = new UserEntity(username, passwords.encode(request.password()), roles, account,
                TokenEpochs.next(), now());
        try {
            users.saveAndFlush(entity);
        } catch (DataIntegrityViolationException e) {
            // Another request created the same name between the check and the insert.
            throw GantryException.conflict("User '" + username + "' already exists");
        }
        if (account != null) {
            accounts.join(username, account, "defaultAccount");
        }
        events.publishEvent(new UserChanged(username, false));
        User created = entity.toRecord();
        audit.created(created);
        return created;
    }

    /** Changes a user; {@code actor} is who asks, who may not lock themselves or everyone out. */
    @Transactional
    public User update(String username, UserChange change, String actor) {
        if (change.password() != null) {
            checkPassword(change.password());
        }
        if (change.roles() != null && change.roles().isEmpty()) {
            throw GantryException.badRequest("roles", "must name at least one of USER, OPERATOR, ADMIN");
        }
        String account = checkAccount(change.defaultAccount());
        UserEntity user = users.findByUsername(username).orElseThrow(() -> GantryException.notFound("User", username));
        boolean losesAdmin = user.enabled() && user.roles().contains(Role.ADMIN)
                && (Boolean.FALSE.equals(change.enabled())
                        || (change.roles() != null && !change.roles().contains(Role.ADMIN)));
        if (Boolean.FALSE.equals(change.enabled()) && username.equals(actor)) {
            throw GantryException.conflict("You cannot disable yourself");
        }
        if (losesAdmin) {
            requireAnotherAdmin(username);
        }
        User before = user.toRecord();
        Instant now = now();
        if (endsTokens(user, change)) {
            user.setTokenEpoch(TokenEpochs.next(), now);
        }
        if (change.password() != null) {
            user.setPasswordHash(passwords.encode(change.password()), now);
        }
        if (change.roles() != null) {
            user.setRoles(EnumSet.copyOf(change.roles()), now);
        }
        if (change.enabled() != null) {
            user.setEnabled(change.enabled(), now);
        }
        if (account != null) {
            accounts.join(username, account, "defaultAccount");
            user.setDefaultAccount(account, now);
        }
        users.saveAndFlush(user);
        events.publishEvent(new UserChanged(username, false));
        User after = user.toRecord();
        audit.changed(before, after, change.password() != null);
        return after;
    }

    /**
     * A new password, other roles or disabling the user ends every token issued so far: whoever held
     * one got it under the old terms. A new default account or enabling again does not.
     */
    private static boolean endsTokens(UserEntity user, UserChange change) {
        return change.password() != null
                || (change.roles() != null && !EnumSet.copyOf(change.roles()).equals(user.roles()))
                || (Boolean.FALSE.equals(change.enabled()) && user.enabled());
    }

    /**
     * Ends every token issued to {@code username} so far (job credentials aside: they end with
     * their job); signing in again gives a working one.
     */
    @Transactional
    public void revokeTokens(String username) {
        UserEntity user = users.findByUsername(username).orElseThrow(() -> GantryException.notFound("User", username));
        user.setTokenEpoch(TokenEpochs.next(), now());
        users.saveAndFlush(user);
        events.publishEvent(new UserChanged(username, false));
        audit.tokensRevoked(user.toRecord());
    }

    @Transactional
    public void delete(String username, String actor) {
        if (username.equals(actor)) {
            throw GantryException.conflict("You cannot delete yourself");
        }
        UserEntity user = users.findByUsername(username).orElseThrow(() -> GantryException.notFound("User", username));
        if (user.enabled() && user.roles().contains(Role.ADMIN)) {
            requireAnotherAdmin(username);
        }
        User before = user.toRecord();
        accounts.forget(username);
        users.delete(user);
        users.flush();
        events.publishEvent(new UserChanged(username, true));
        audit.deleted(before);
    }

    private void requireAnotherAdmin(String username) {
        boolean another = users.lockEnabledAdmins().stream().anyMatch(u -> !u.username().equals(username));
        if (!another) {
            throw GantryException.conflict("User '" + username + "' is the last enabled ADMIN; "
                    + "make another user ADMIN first");
        }
    }

    private static void checkPassword(String password) {
        if (password == null || password.length() < SecurityProperties.MIN_PASSWORD_LENGTH) {
            throw GantryException.badRequest("password",
                    "must have at least " + SecurityProperties.MIN_PASSWORD_LENGTH + " characters");
        }
        if (password.getBytes(StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES) {
            throw GantryException.badRequest("password", "must have at most " + MAX_PASSWORD_BYTES + " bytes");
        }
    }

    private static String checkAccount(String account) {
        if (account == null || account.isBlank()) {
            return null;
        }
        if (account.length() > MAX_ACCOUNT_LENGTH) {
            throw GantryException.badRequest("defaultAccount", "must have at most " + MAX_ACCOUNT_LENGTH + " characters");
        }
        return account;
    }

    /**
     * Sets a user's default account without the checks of {@link #update}: accounting calls it when it
     * gives a user their first association, or removes the one that was their default.
     */
    @Transactional
    public void setDefaultAccount(String username, String account) {
        users.findByUsername(username).ifPresent(user -> {
            user.setDefaultAccount(account, now());
            users.saveAndFlush(user);
            events.publishEvent(new UserChanged(username, false));
        });
    }

    /** Cut to what the store keeps, so that the answer to a write matches later reads. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
