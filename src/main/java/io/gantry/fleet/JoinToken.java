package io.gantry.fleet;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryProperties;
import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;
import io.gantry.secrets.OwnerOnlyFiles;

/**
 * The cluster's join token: the one an ADMIN last rotated to (kept in the store, so every controller
 * sharing it and every restart agrees), else {@code gantry.agents.join-token} when set, else the one
 * generated on the first start into {@code <data-dir>/agent-join-token}. Several controllers sharing
 * one store that never rotated must share the property. The store is read on each use: joins are
 * rare, and a rotation must end the old token everywhere at once.
 */
@Component
class JoinToken {

    static final String FILE_NAME = "agent-join-token";
    private static final Logger log = LoggerFactory.getLogger(JoinToken.class);

    /** The audit trail's key for the one join token. */
    static final String AUDIT_KEY = "agents";

    private final String configured;
    private final JdbcTemplate jdbc;
    private final Audit audit;
    private final SecureRandom random = new SecureRandom();

    JoinToken(AgentsProperties properties, GantryProperties gantry, JdbcTemplate jdbc, Audit audit) {
        this.configured = resolve(properties.joinToken(), gantry.dataDir(), random);
        this.jdbc = jdbc;
        this.audit = audit;
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
        return presented != null && MessageDigest.isEqual(value().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }

    /** The token agents must present to join now. */
    String value() {
        String rotated = jdbc.queryForObject("SELECT token FROM agent_join_token WHERE id = 1", String.class);
        return rotated != null ? rotated : configured;
    }

    /**
     * A new token for the whole cluster; the old one stops working at once. Nodes that joined keep their
     * credentials. Audited (when and by whom, before and after; never the token itself).
     */
    @Transactional
    String rotate(String admin, Instant at) {
        String token = newSecret(random);
        Map<String, Object> before = new LinkedHashMap<>();
        org.springframework.jdbc.core.RowCallbackHandler last = rs -> {
            OffsetDateTime when = rs.getObject(1, OffsetDateTime.class);
            before.put("rotatedAt", when == null ? null : when.toInstant());
            before.put("rotatedBy", rs.getString(2));
        };
        jdbc.query("SELECT rotated_at, rotated_by FROM agent_join_token WHERE id = 1", last);
        jdbc.update("UPDATE agent_join_token SET token = ?, rotated_at = ?, rotated_by = ? WHERE id = 1", token,
                OffsetDateTime.ofInstant(at, ZoneOffset.UTC), admin);
        audit.record(Actor.staff(admin, true), AuditAction.ROTATE, AuditEntity.JOIN_TOKEN, AUDIT_KEY, before,
                Map.of("rotatedAt", at, "rotatedBy", admin));
        log.warn("The agents' join token was rotated by {}; the old one no longer lets machines join", admin);
        return token;
    }
}
