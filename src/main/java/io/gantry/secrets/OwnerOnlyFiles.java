package io.gantry.secrets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * Secrets Gantry generates for itself, kept in files only their owner can read. Shared by the
 * controller's security (JWT secret, first admin password), its join token and the node agent's
 * credential, so it belongs to none of them: the agent runs on nodes without the controller's security.
 */
public final class OwnerOnlyFiles {

    private OwnerOnlyFiles() {
    }

    /**
     * Creates {@code file} readable and writable by its owner alone, then writes {@code content}.
     * The permissions are set when the file is created, before any secret is in it.
     *
     * @throws FileAlreadyExistsException (wrapped) when the file exists: a secret is never overwritten
     */
    public static void create(Path file, String content) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException notPosix) {
                Files.createFile(file);
                var f = file.toFile();
                boolean restricted = f.setReadable(false, false) & f.setReadable(true, true)
                        & f.setWritable(false, false) & f.setWritable(true, true);
                if (!restricted) {
                    throw new IOException("cannot restrict " + file + " to its owner");
                }
            }
            Files.writeString(file, content, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    /** The file's content without surrounding white space, or empty when there is no such file. */
    public static Optional<String> read(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + file, e);
        }
    }
}
