package io.gantry.noded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import io.gantry.secrets.OwnerOnlyFiles;

/**
 * The agent's directories under its work dir, laid out so that jobs can reach their own files and
 * nothing else:
 * <ul>
 * <li>the work dir itself: {@code 0711}, others may pass through but not list it;</li>
 * <li>{@code state/}: {@code 0700}, the agent's alone: its node credential, unsent reports and the
 * process records of running jobs;</li>
 * <li>{@code jobs/}: the spool, {@code 0711}; each job gets {@code jobs/<id>/}, {@code 0700} and
 * owned by the job's user, holding its script;</li>
 * <li>{@code bin/}: {@code 0755}, the commands jobs find first on their PATH ({@code srun}), see
 * {@link JobTools}.</li>
 * </ul>
 * A credential or report file an older agent kept at the top of the work dir is moved into
 * {@code state/} (or, when {@code state/} has its own, made its owner's alone where it is). Each of
 * these directories must be a real directory owned by the agent's account, not a link: whoever owns
 * one could change its mode or swap what is in it, and a link would let {@code chmod} tighten or
 * loosen some other directory. What is in {@code state/} is made its owner's alone on every start.
 */
final class AgentDirs {

    private static final Set<PosixFilePermission> TRAVERSE_ONLY = PosixFilePermissions.fromString("rwx--x--x");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> EVERYONE_READS = PosixFilePermissions.fromString("rwxr-xr-x");

    private final Path root;
    private final Path state;
    private final Path spool;
    private final Path bin;

    private AgentDirs(Path root) {
        this.root = root;
        this.state = root.resolve("state");
        this.spool = root.resolve("jobs");
        this.bin = root.resolve("bin");
    }

    /** Creates (or tightens) the directories under {@code workDir}. */
    static AgentDirs prepare(Path workDir) {
        AgentDirs dirs = new AgentDirs(workDir.toAbsolutePath().normalize());
        try {
            Files.createDirectories(dirs.root);
            mine(dirs.root);
            permit(dirs.root, TRAVERSE_ONLY);
            // created 0700 from the start, so there is no moment a job could open it
            createOwnerOnly(dirs.state);
            createOwnerOnly(dirs.state.resolve("jobs"));
            OwnerOnlyFiles.restrictDirectory(dirs.state);
            OwnerOnlyFiles.restrictDirectory(dirs.state.resolve("jobs"));
            Files.createDirectories(dirs.spool);
            mine(dirs.spool);
            permit(dirs.spool, TRAVERSE_ONLY);
            Files.createDirectories(dirs.bin);
            mine(dirs.bin);
            permit(dirs.bin, EVERYONE_READS);
            JobTools.install(dirs.bin);
            for (String name : new String[] {"credential.json", "pending-reports.json"}) {
                Path old = dirs.root.resolve(name);
                if (Files.isRegularFile(old, LinkOption.NOFOLLOW_LINKS)) {
                    if (!Files.exists(dirs.state.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
                        Files.move(old, dirs.state.resolve(name), StandardCopyOption.ATOMIC_MOVE);
                    } else {
                        // a stale copy the agent no longer reads: still a secret, and the work dir is passable
                        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-------"));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare the agent's work dir " + workDir, e);
        }
        return dirs;
    }

    /**
     * The owner of {@code dir}, which must be a directory and not a link, owned by the account the
     * agent runs as (when this system tells which that is).
     */
    private static long ownerOf(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a directory (a symbolic link, say); give the agent a --work-dir of "
                    + "its own");
        }
        long owner = ((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        long agent;
        try {
            agent = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | RuntimeException noProc) {
            return owner; // no /proc: no jobs run here as other users either
        }
        if (owner != agent) {
            throw new IOException(dir + " belongs to uid " + owner + ", not to the agent's uid " + agent
                    + ": whoever owns it could reach the agent's state; give the agent a --work-dir of its own");
        }
        return owner;
    }

    /** Fails unless {@code dir} is a directory, not a link, owned by the agent's account. */
    private static void mine(Path dir) throws IOException {
        ownerOf(dir);
    }

    private static void createOwnerOnly(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (UnsupportedOperationException notPosix) {
                permit(dir, OWNER_ONLY); // says the file system cannot keep jobs out
            }
        }
        mine(dir);
        permit(dir, OWNER_ONLY);
    }

    /** For tests and tools: the layout under {@code workDir}, not touched. */
    static AgentDirs of(Path workDir) {
        return new AgentDirs(workDir.toAbsolutePath().normalize());
    }

    Path root() {
        return root;
    }

    Path state() {
        return state;
    }

    /** The commands offered to jobs. */
    Path bin() {
        return bin;
    }

    /** The job's own directory in the spool. */
    Path jobDir(String jobId) {
        return spool.resolve(jobId);
    }

    /** Where the agent records a running job's process group (root only). */
    Path processRecord(String jobId) {
        return state.resolve("jobs").resolve(jobId + ".pgid");
    }

    /** Where the agent keeps a running job's launch, so that a restarted agent can adopt it (root only). */
    Path launchRecord(String jobId) {
        return state.resolve("jobs").resolve(jobId + ".launch.json");
    }

    Path processRecords() {
        return state.resolve("jobs");
    }

    /**
     * A fresh, empty {@code jobs/<id>/} owned by the agent with mode 0700: whatever an earlier run of
     * the job left there is deleted first, without following links, so nothing its user planted
     * (a link to a root-owned file, say) is ever written through.
     */
    Path freshJobDir(String jobId) throws IOException {
        Path dir = jobDir(jobId);
        deleteTree(dir);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        return dir;
    }

    /** Deletes {@code dir} and everything in it; links are deleted, never followed. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.delete(dir);
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Sets the directory's mode. A file system without Unix permissions cannot keep jobs out of the
     * agent's state, so the agent refuses it instead of running jobs unprotected.
     */
    private static void permit(Path path, Set<PosixFilePermission> permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, permissions);
        } catch (UnsupportedOperationException notPosix) {
            throw new IOException("the agent's work dir " + path + " is on a file system without Unix permissions; "
                    + "choose a --work-dir on a local Linux file system", notPosix);
        }
    }
}
