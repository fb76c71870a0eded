package io.gantry.support;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real OCI registry on 127.0.0.1 (Debian's {@code docker-registry}, plain HTTP, storage in a temp
 * dir) and tiny images built for it from the node's static busybox with {@code umoci} and pushed with
 * {@code skopeo}, for tests of containers. {@link #missingTools()} names what a machine lacks, for
 * {@code assumeTrue}; the apt line is {@link #APT}.
 */
public final class TestRegistry implements AutoCloseable {

    public static final String APT = "apt-get install -y runc skopeo umoci docker-registry busybox-static";
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

    private final Process process;
    private final int port;
    private final Path dir;
    /** {@code login:password} when the registry wants a login, else null. */
    private final String credentials;

    private TestRegistry(Process process, int port, Path dir, String credentials) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.credentials = credentials;
    }

    /** The tools these tests need that this machine has not, or "" when it has them all. */
    public static String missingTools() {
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("runc", "skopeo", "umoci", "docker-registry")) {
            if (!onPath(tool)) {
                missing.add(tool);
            }
        }
        if (!isStaticBusybox()) {
            missing.add("static /bin/busybox");
        }
        return missing.isEmpty() ? "" : String.join(", ", missing) + " missing (" + APT + ")";
    }

    /** Starts a registry on a free port of 127.0.0.1, its storage under {@code dir}; ready when returned. */
    public static TestRegistry start(Path dir) throws IOException, InterruptedException {
        return start(dir, null, null);
    }

    /**
     * As {@link #start(Path)}, for a registry that lets only {@code login} with {@code password} in
     * (htpasswd, bcrypt), when {@code login} is not null.
     */
    public static TestRegistry start(Path dir, String login, String password) throws IOException,
            InterruptedException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = socket.getLocalPort();
        }
        Files.createDirectories(dir.resolve("storage"));
        Path config = dir.resolve("registry.yml");
        Files.writeString(config, """
                version: 0.1
                log:
                  level: error
                storage:
                  filesystem:
                    rootdirectory: %s
                  delete:
                    enabled: true
                http:
                  addr: 127.0.0.1:%d
                """.formatted(dir.resolve("storage"), port), StandardCharsets.UTF_8);
        if (login != null) {
            Path htpasswd = dir.resolve("htpasswd");
            Files.writeString(htpasswd, login + ":" + org.springframework.security.crypto.bcrypt.BCrypt.hashpw(
                    password, org.springframework.security.crypto.bcrypt.BCrypt.gensalt(6)) + "\n");
            Files.writeString(config, """
                    auth:
                      htpasswd:
                        realm: gantry-test
                        path: %s
                    """.formatted(htpasswd), StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        }
        Process process = new ProcessBuilder("docker-registry", "serve", config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
        TestRegistry registry = new TestRegistry(process, port, dir, login == null ? null : login + ":" + password);
        try {
            org.awaitility.Awaitility.await("docker-registry answers").atMost(java.time.Duration.ofSeconds(30))
                    .pollInterval(java.time.Duration.ofMillis(50)).until(() -> {
                        if (!process.isAlive()) {
                            throw new IOException("docker-registry ended at its start");
                        }
                        return answers(port, login != null);
                    });
        } catch (RuntimeException e) {
            registry.close();
            throw new IOException("docker-registry did not start: " + Files.readString(dir.resolve("registry.log")), e);
        }
        return registry;
    }

    /** Whether the registry on {@code port} answers its API root (401 when it wants a login). */
    private static boolean answers(int port, boolean withLogin) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/v2/").toURL()
                    .openConnection();
            c.setConnectTimeout(500);
            return c.getResponseCode() == 200 || withLogin && c.getResponseCode() == 401;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** {@code 127.0.0.1:PORT}. */
    public String host() {
        return "127.0.0.1:" + port;
    }

    /**
     * Builds an image holding the static busybox (every applet linked in /bin) and {@code /marker}
     * with {@code marker}, its command {@code /bin/sh} and {@code IMAGE_VAR=from-image} in its
     * environment, and pushes it as {@code host()/repoTag}.
     *
     * @return its digest in the registry
     */
    public String pushBusyboxImage(String repoTag, String marker) throws IOException, InterruptedException {
        return pushBusyboxImage(repoTag, marker, Map.of());
    }

    /**
     * As {@link #pushBusyboxImage(String, String)}, with host files and directories in it too: each
     * {@code host path -> path in the image}, and every shared library the ELF files among them need
     * (as {@code ldd} finds them on this host), so that the programs run in the image alone.
     */
    public String pushBusyboxImage(String repoTag, String marker, Map<Path, String> hostFiles)
            throws IOException, InterruptedException {
        Path work = Files.createTempDirectory(dir, "image-");
        Path layout = work.resolve("layout");
        Path bundle = work.resolve("bundle");
        run(Duration.ofMinutes(1), "umoci", "init", "--layout", layout.toString());
        run(Duration.ofMinutes(1), "umoci", "new", "--image", layout + ":t");
        run(Duration.ofMinutes(1), "umoci", "unpack", "--image", layout + ":t", bundle.toString());
        Path rootfs = bundle.resolve("rootfs");
        Files.createDirectories(rootfs.resolve("bin"));
        Files.createDirectories(rootfs.resolve("etc"));
        Files.copy(Path.of("/bin/busybox"), rootfs.resolve("bin/busybox"));
        for (String applet : run(Duration.ofSeconds(10), "/bin/busybox", "--list").strip().split("\\s+")) {
            if (!applet.equals("busybox") && !Files.exists(rootfs.resolve("bin").resolve(applet))) {
                Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
            }
        }
        Files.writeString(rootfs.resolve("marker"), marker + "\n");
        Files.writeString(rootfs.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
        copyWithLibraries(hostFiles, rootfs);
        run(Duration.ofMinutes(1), "umoci", "repack", "--image", layout + ":t", bundle.toString());
        run(Duration.ofMinutes(1), "umoci", "config", "--image", layout + ":t", "--config.cmd", "/bin/sh",
                "--config.env", "IMAGE_VAR=from-image", "--config.env", "PATH=/bin:/usr/bin",
                "--config.entrypoint", "/bin/echo", "--config.entrypoint", "entrypoint-says");
        List<String> copy = new ArrayList<>(List.of("skopeo", "copy", "--quiet", "--dest-tls-verify=false"));
        List<String> inspect = new ArrayList<>(List.of("skopeo", "inspect", "--tls-verify=false"));
        if (credentials != null) {
            copy.addAll(List.of("--dest-creds", credentials));
            inspect.addAll(List.of("--creds", credentials));
        }
        copy.addAll(List.of("oci:" + layout + ":t", "docker://" + host() + "/" + repoTag));
        inspect.add("docker://" + host() + "/" + repoTag);
        run(Duration.ofMinutes(1), copy.toArray(String[]::new));
        String inspected = run(Duration.ofMinutes(1), inspect.toArray(String[]::new));
        Matcher m = DIGEST.matcher(inspected);
        if (!m.find()) {
            throw new IOException("no digest in " + inspected);
        }
        return m.group();
    }

    private static void copyWithLibraries(Map<Path, String> hostFiles, Path rootfs) throws IOException,
            InterruptedException {
        java.util.Set<String> libraries = new java.util.TreeSet<>();
        for (Map.Entry<Path, String> e : hostFiles.entrySet()) {
            Path target = rootfs.resolve(e.getValue().replaceFirst("^/+", ""));
            Files.createDirectories(target.getParent());
            run(Duration.ofMinutes(2), "cp", "-a", e.getKey().toString(), target.toString());
            try (java.util.stream.Stream<Path> files = Files.walk(e.getKey())) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    if (isElf(f)) {
                        Process ldd = new ProcessBuilder("ldd", f.toString()).redirectErrorStream(true).start();
                        String out = new String(ldd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                        ldd.waitFor(30, TimeUnit.SECONDS);
                        Matcher m = LIBRARY.matcher(out);
                        while (m.find()) {
                            libraries.add(m.group(1));
                        }
                    }
                }
            }
        }
        for (String library : libraries) {
            Path target = rootfs.resolve(library.substring(1));
            if (!Files.exists(target)) {
                Files.createDirectories(target.getParent());
                Files.copy(Path.of(library), target);
            }
        }
    }

    private static final Pattern LIBRARY = Pattern.compile("(?m)(?:=> |^\\s+)(/\\S+) \\(0x");

    private static boolean isElf(Path file) {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Saves {@code host()/repoTag} as an image archive at {@code target}: an OCI archive, or a
     * {@code docker save} one when {@code docker} is true.
     */
    public void saveArchive(String repoTag, Path target, boolean docker) throws IOException, InterruptedException {
        List<String> copy = new ArrayList<>(List.of("skopeo", "copy", "--quiet", "--src-tls-verify=false"));
        if (credentials != null) {
            copy.addAll(List.of("--src-creds", credentials));
        }
        copy.add("docker://" + host() + "/" + repoTag);
        copy.add((docker ? "docker-archive:" : "oci-archive:") + target + (docker ? ":" + repoTag : ""));
        run(Duration.ofMinutes(1), copy.toArray(String[]::new));
    }

    /** Runs a tool, failing with its output unless it succeeds; returns its output. */
    public static String run(Duration timeout, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool));
    }

    private static boolean isStaticBusybox() {
        try {
            if (!Files.isExecutable(Path.of("/bin/busybox"))) {
                return false;
            }
            Process p = new ProcessBuilder("ldd", "/bin/busybox").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            return out.contains("not a dynamic executable") || out.contains("statically linked");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
