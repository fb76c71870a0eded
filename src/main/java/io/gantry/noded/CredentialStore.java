package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.secrets.OwnerOnlyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import tools.jackson.core.JacksonException;

/**
 * The node credential the controller issued when this agent joined, in
 * {@code <work-dir>/state/credential.json}, a {@code 0600} file in the agent's {@code 0700} state
 * directory (see {@link AgentDirs}), so a restarted agent comes back as the same node without the
 * join token and no job reaches it. Replaced atomically: a crash never leaves half a file, and the
 * new file is created {@code 0600} before the secret is written into it.
 */
final class CredentialStore {

    /** What is stored; {@link #toString()} hides the secret. */
    record StoredCredential(String controller, String node, String credential) {
        @Override
        public String toString() {
            return "StoredCredential[controller=" + controller + ", node=" + node + "]";
        }
    }

    private final Path file;

    CredentialStore(Path workDir) {
        this.file = workDir.resolve("credential.json");
    }

    Path file() {
        return file;
    }

    /** The stored credential when it is for {@code controller}. */
    Optional<StoredCredential> forController(URI controller) {
        return OwnerOnlyFiles.read(file).flatMap(text -> {
            try {
                StoredCredential stored = AgentJson.MAPPER.readValue(text, StoredCredential.class);
                return stored.credential() != null && controller.toString().equals(stored.controller())
                        ? Optional.of(stored) : Optional.empty();
            } catch (JacksonException e) {
                return Optional.empty();
            }
        });
    }

    void save(StoredCredential credential) {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(temp);
            OwnerOnlyFiles.create(temp, AgentJson.MAPPER.writeValueAsString(credential));
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }
}
