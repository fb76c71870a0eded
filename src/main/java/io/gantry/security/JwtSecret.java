package io.gantry.security;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.gantry.secrets.OwnerOnlyFiles;

/**
 * The HS256 key: {@code gantry.security.jwt-secret} when set, else the one generated on the first
 * start into {@code <data-dir>/jwt-secret}, so that issued tokens stay valid across restarts.
 * Several controllers sharing one store must share the secret: set the property on all of them.
 */
final class JwtSecret {

    static final String FILE_NAME = "jwt-secret";
    private static final int GENERATED_BYTES = 64;
    private static final Logger log = LoggerFactory.getLogger(JwtSecret.class);

    private JwtSecret() {
    }

    static SecretKey resolve(String configured, Path dataDir, SecureRandom random) {
        if (configured != null) {
            return key(configured.getBytes(StandardCharsets.UTF_8));
        }
        Path file = dataDir.resolve(FILE_NAME);
        var existing = OwnerOnlyFiles.read(file);
        if (existing.isPresent()) {
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(existing.get());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(file + " does not hold a Base64 key; delete it to have a new one "
                        + "generated (tokens issued so far then stop working)", e);
            }
            if (bytes.length < SecurityProperties.MIN_SECRET_BYTES) {
                throw new IllegalStateException(file + " holds a key of " + bytes.length + " bytes; HS256 needs at least "
                        + SecurityProperties.MIN_SECRET_BYTES);
            }
            return key(bytes);
        }
        byte[] bytes = new byte[GENERATED_BYTES];
        random.nextBytes(bytes);
        OwnerOnlyFiles.create(file, Base64.getEncoder().encodeToString(bytes) + "\n");
        log.info("Generated the token signing key into {} (set gantry.security.jwt-secret to choose your own)", file);
        return key(bytes);
    }

    private static SecretKey key(byte[] bytes) {
        return new SecretKeySpec(bytes, "HmacSHA256");
    }
}
