package io.gantry.agents;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.gantry.api.GantryProperties;
import io.gantry.secrets.OwnerOnlyFiles;

/**
 * The cluster's join token: {@code gantry.agents.join-token} when set, else the one generated on the
 * first start into {@code <data-dir>/agent-join-token}. Several controllers sharing one store must
 * share it: set the property on all of them.
 */
@Component
class JoinToken {

    static final String FILE_NAME = "agent-join-token";
    private static final Logger log = LoggerFactory.getLogger(JoinToken.class);

    private final byte[] token;

    JoinToken(AgentsProperties properties, GantryProperties gantry) {
        this.token = resolve(properties.joinToken(), gantry.dataDir(), new SecureRandom()).getBytes(StandardCharsets.UTF_8);
    }

    static String resolve(String configured, Path dataDir, SecureRandom random) {
        if (configured != null && !configured.isBlank()) {
            if (configured.length() < 16) {
                throw new IllegalStateException("gantry.agents.join-token must be at least 16 characters long");
            }
            return configured;
        }
        Path file = dataDir.resolve(FILE_NAME);
        return OwnerOnlyFiles.read(file).orElseGet(() -> {
            String generated = newSecret(random);
            OwnerOnlyFiles.create(file, generated + "\n");
            log.info("Generated the agents' join token into {} (set gantry.agents.join-token to choose your own)", file);
            return generated;
        });
    }

    /** 32 random bytes, URL-safe Base64: fine on a command line and in a header. */
    static String newSecret(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Compared in constant time, so the token cannot be guessed a character at a time. */
    boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8));
    }

    String value() {
        return new String(token, StandardCharsets.UTF_8);
    }
}
