package io.gantry.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own, made with the server's own tools ({@code initdb}, {@code pg_ctl},
 * {@code pg_basebackup}, {@code pg_dump}, {@code pg_restore} from Debian's {@code postgresql} package) as an
 * operator makes one: a primary, a streaming standby of it, a promotion. Each runs on a free port of
 * 127.0.0.1 with trust authentication, its files and socket under a directory of its own. PostgreSQL refuses
 * to run as root, so as root its tools run as the {@code postgres} user. Only its own postmaster is ever
 * signalled, by the PID in its {@code postmaster.pid}.
 */
public final class LocalPostgres {

    /** What a machine without the tools is told. */
    public static final String INSTALL_HINT = "PostgreSQL's server tools are missing (initdb, pg_ctl, pg_basebackup "
            + "under /usr/lib/postgresql/<version>/bin): apt-get install postgresql";

    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    private final Path data;
    private final Path log;
    private final int port;
    private final List<String> settings;
    /** Set once its postmaster was killed: its pid file stays behind, and the PID may belong to another process. */
    private boolean killed;

    private LocalPostgres(Path data, int port, List<String> settings) {
        this.data = data;
        this.log = data.resolveSibling(data.getFileName() + ".log");
        this.port = port;
        this.settings = settings;
    }

    /** The directory of the newest installed server's tools, if there is one. */
    public static Optional<Path> binaries() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(bin -> Stream.of("initdb", "pg_ctl", "pg_basebackup", "pg_dump", "pg_restore")
                            .allMatch(tool -> Files.isExecutable(bin.resolve(tool))))
                    .max(Comparator.comparingInt(bin -> version(bin.getParent())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * A directory the clusters of one test live in, that the {@code postgres} user may use when root runs the
     * tests (JUnit's {@code @TempDir} is root's alone).
     */
    public static Path workDirectory() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("gantry-pg-", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        if (ROOT) {
            run(List.of("chown", "postgres:postgres", dir.toString()), false);
        }
        return dir;
    }

    /**
     * A new primary in {@code dir/name}, started. {@code settings}: server settings ({@code name=value}) it runs
     * with, given on its command line so that a standby copied from it does not inherit them.
     */
    public static LocalPostgres primary(Path dir, String name, String... settings) throws IOException,
            InterruptedException {
        LocalPostgres primary = new LocalPostgres(dir.resolve(name), freePort(), List.of(settings));
        run(List.of(tool("initdb"), "-D", primary.data.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                "--locale=C"), true);
        primary.start();
        return primary;
    }

    /**
     * A standby of this one in {@code dir/name}, made with {@code pg_basebackup -R} and started: it streams
     * this one's WAL under {@code applicationName}, the name {@code synchronous_standby_names} knows it by.
     */
    public LocalPostgres standby(Path dir, String name, String applicationName, String... settings)
            throws IOException, InterruptedException {
        LocalPostgres standby = new LocalPostgres(dir.resolve(name), freePort(), List.of(settings));
        run(List.of(tool("pg_basebackup"), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres",
                "-D", standby.data.toString(), "-R", "-X", "stream", "-c", "fast"), true);
        // -R wrote standby.signal and a primary_conninfo; the later line wins, and names the standby.
        String conninfo = "host=127.0.0.1 port=%d user=postgres application_name=%s".formatted(port,
                applicationName);
        run(List.of("sh", "-c", "echo \"primary_conninfo = '" + conninfo + "'\" >> "
                + standby.data.resolve("postgresql.auto.conf")), true);
        standby.start();
        return standby;
    }

    private void start() throws IOException, InterruptedException {
        StringBuilder options = new StringBuilder("-p " + port + " -c listen_addresses=127.0.0.1 -c "
                + "unix_socket_directories=" + data.getParent());
        for (String setting : settings) {
            options.append(" -c ").append(setting);
        }
        run(List.of(tool("pg_ctl"), "-D", data.toString(), "-l", log.toString(), "-o", options.toString(), "-w",
                "-t", "60", "start"), true);
    }

    public int port() {
        return port;
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/database}. */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), "postgres", "");
    }

    /**
     * Creates {@code database}. Its commit waits for no standby: a primary whose synchronous standby is not
     * made yet would otherwise wait for it forever.
     */
    public void createDatabase(String database) throws SQLException {
        try (Connection c = connect("postgres"); var s = c.createStatement()) {
            s.execute("SET synchronous_commit = local");
            s.execute("CREATE DATABASE " + database);
        }
    }

    /** The postmaster's PID, from its {@code postmaster.pid} (its first line). */
    public long postmasterPid() throws IOException {
        return Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
    }

    /** {@code kill -9} of the postmaster, as a crash would end it; its backends end when they notice. */
    public void killPostmaster() throws IOException, InterruptedException {
        run(List.of("kill", "-9", Long.toString(postmasterPid())), false);
        killed = true;
    }

    /** {@code pg_ctl promote}: a standby becomes a primary, waiting until it takes writes. */
    public void promote() throws IOException, InterruptedException {
        run(List.of(tool("pg_ctl"), "-D", data.toString(), "-w", "-t", "60", "promote"), true);
    }

    /** {@code pg_dump -Fc} of {@code database} into {@code file}. */
    public void dump(String database, Path file) throws IOException, InterruptedException {
        run(List.of(tool("pg_dump"), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres", "-Fc",
                "-f", file.toString(), database), true);
    }

    /** {@code pg_restore} of {@code file} into {@code database}, which must exist and be empty. */
    public void restore(Path file, String database) throws IOException, InterruptedException {
        run(List.of(tool("pg_restore"), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres", "-d",
                database, "--exit-on-error", file.toString()), true);
    }

    /**
     * Stops it if it still runs ({@code pg_ctl stop -m immediate}, which signals its postmaster by PID); one
     * whose postmaster was killed is left alone, its stale pid file unread.
     */
    public void stop() {
        if (!killed && Files.exists(data.resolve("postmaster.pid"))) {
            try {
                run(List.of(tool("pg_ctl"), "-D", data.toString(), "-m", "immediate", "-w", "stop"), true);
            } catch (IOException e) {
                // it was killed already and its pid file left behind: nothing runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The server's log, for a failure's message. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Removes a {@link #workDirectory} and every cluster in it (stop them first). */
    public static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // left behind in the temporary directory
        }
    }

    private static String tool(String name) {
        return binaries().orElseThrow(() -> new IllegalStateException(INSTALL_HINT)).resolve(name).toString();
    }

    private static int version(Path dir) {
        try {
            return Integer.parseInt(dir.getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void run(List<String> command, boolean asPostgres) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgres && ROOT) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
