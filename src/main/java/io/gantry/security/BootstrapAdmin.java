package io.gantry.security;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import io.gantry.api.GantryException;
import io.gantry.api.GantryProperties;
import io.gantry.api.ProblemType;
import io.gantry.secrets.OwnerOnlyFiles;

/**
 * Creates user {@code admin} (ADMIN) on the first start with an empty store, before the web
 * server takes requests. Its password is {@code gantry.security.bootstrap-admin-password}, or a
 * random one written owner-only to {@code <data-dir>/initial-admin-password} and logged once.
 * That file is never overwritten: when it is there but the store is empty (a wiped database), the
 * password in it is used again.
 */
@Component
class BootstrapAdmin implements SmartInitializingSingleton {

    static final String USERNAME = "admin";
    /** The top of the account tree, which the store starts with (API.md). */
    static final String DEFAULT_ACCOUNT = "root";
    static final String PASSWORD_FILE = "initial-admin-password";
    private static final int RANDOM_BYTES = 18; // 24 Base64 characters, 144 bits

    private static final Logger log = LoggerFactory.getLogger(BootstrapAdmin.class);

    private final UserService users;
    private final String configuredPassword;
    private final Path dataDir;
    private final SecureRandom random;

    @Autowired
    BootstrapAdmin(UserService users, SecurityProperties security, GantryProperties gantry) {
        this(users, security.bootstrapAdminPassword(), gantry.dataDir(), new SecureRandom());
    }

    BootstrapAdmin(UserService users, String configuredPassword, Path dataDir, SecureRandom random) {
        this.users = users;
        this.configuredPassword = configuredPassword;
        this.dataDir = dataDir;
        this.random = random;
    }

    @Override
    public void afterSingletonsInstantiated() {
        run();
    }

    /** Returns whether it created the admin. */
    boolean run() {
        if (users.anyUsers()) {
            return false;
        }
        String password;
        Path file = dataDir.resolve(PASSWORD_FILE);
        if (configuredPassword != null) {
            password = configuredPassword;
        } else {
            Optional<String> kept = OwnerOnlyFiles.read(file).filter(p -> !p.isEmpty());
            if (kept.isPresent()) {
                password = kept.get();
                log.warn("The store has no users: created '{}' again with the password kept in {}", USERNAME, file);
            } else {
                byte[] bytes = new byte[RANDOM_BYTES];
                random.nextBytes(bytes);
                password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
                OwnerOnlyFiles.create(file, password + "\n");
                log.warn("Created user '{}' with password {} (also in {}, readable by its owner only). "
                        + "Change it with PATCH /api/v1/users/{} and delete the file.", USERNAME, password, file,
                        USERNAME);
            }
        }
        try {
            users.create(new UserService.NewUser(USERNAME, password, EnumSet.of(Role.ADMIN), DEFAULT_ACCOUNT));
        } catch (GantryException e) {
            if (e.type() == ProblemType.CONFLICT) {
                // Another controller on the same store got there first.
                return false;
            }
            throw e;
        }
        if (configuredPassword != null) {
            log.info("Created user '{}' with the password from gantry.security.bootstrap-admin-password", USERNAME);
        }
        return true;
    }
}
