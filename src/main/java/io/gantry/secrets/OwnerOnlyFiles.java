package io.gantry.secrets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Secrets Gantry generates for itself, kept in files only their owner can read. Shared by the
 * controller's security (JWT secret, first admin password), its join token and the node agent's
 * credential, so it belongs to none of them: the agent runs on nodes without the controller's security.
 */
public final class OwnerOnlyFiles {

    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private OwnerOnlyFiles() {
    }

    /**
     * Makes {@code dir} and what is directly in it its owner's alone: creates it {@code 0700} when
     * missing, and takes group and other permissions off it and off its files and sub-directories
     * ({@code 0755} becomes {@code 0700}, {@code 0644} becomes {@code 0600}; symbolic links are left
     * alone). Only one level: the directory's own protection covers anything deeper. Does nothing on
     * a file system without POSIX permissions.
     *
     * @return how many (the directory included) had permissions taken off
     */
    public static int restrictDirectory(Path dir) {
        try {
            createDirectories(dir);
            if (Files.getFileAttributeView(dir, PosixFileAttributeView.class) == null) {
                return 0;
            }
            int restricted = restrict(dir) ? 1 : 0;
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                for (Path entry : entries) {
                    if (!Files.isSymbolicLink(entry) && restrict(entry)) {
                        restricted++;
                    }
                }
            }
            return restricted;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot restrict " + dir + " to its owner", e);
        }
    }

    /** Takes group and other permissions off {@code path}; whether it had any. */
    private static boolean restrict(Path path) throws IOException {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path);
        if (permissions.stream().noneMatch(OTHERS::contains)) {
            return false;
        }
        Set<PosixFilePermission> owner = EnumSet.copyOf(permissions);
        owner.removeAll(OTHERS);
        Files.setPosixFilePermissions(path, owner);
        return true;
    }

    /** Creates {@code dir} and missing parents, {@code 0700} where POSIX permissions exist. */
    private static void createDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (UnsupportedOperationException notPosix) {
            Files.createDirectories(dir);
        }
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
                createDirectories(parent);
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
