package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.secrets.OwnerOnlyFiles;

class JwtSecretTests {

    @TempDir
    Path dataDir;

    @Test
    void aGeneratedKeyIsKeptOwnerOnlyAndReusedAfterARestart() throws IOException {
        var first = JwtSecret.resolve(null, dataDir, new SecureRandom());
        var second = JwtSecret.resolve(null, dataDir, new SecureRandom());

        Path file = dataDir.resolve(JwtSecret.FILE_NAME);
        assertThat(first.getEncoded()).hasSizeGreaterThanOrEqualTo(32).isEqualTo(second.getEncoded());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void aConfiguredSecretWinsAndWritesNoFile() {
        String secret = "a-configured-secret-of-at-least-32-bytes";

        var key = JwtSecret.resolve(secret, dataDir, new SecureRandom());

        assertThat(key.getEncoded()).isEqualTo(secret.getBytes(StandardCharsets.UTF_8));
        assertThat(dataDir.resolve(JwtSecret.FILE_NAME)).doesNotExist();
    }

    @Test
    void aTooShortKeyFileStopsStartUp() {
        OwnerOnlyFiles.create(dataDir.resolve(JwtSecret.FILE_NAME), Base64.getEncoder().encodeToString(new byte[16]));

        assertThatThrownBy(() -> JwtSecret.resolve(null, dataDir, new SecureRandom()))
                .hasMessageContaining("16 bytes").hasMessageContaining("at least 32");
    }
}
