package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The node's image cache: images pulled with {@code skopeo} (to an OCI layout) and unpacked with
 * {@code umoci}, one unpacked root file system per digest under {@code <work dir>/containers/images},
 * which only root may enter (an image a user pulled with their credentials is not for other users
 * to read; each container gets a copy of its own). A reference is first resolved to its digest
 * ({@code skopeo inspect}), so a tag that moved pulls the new image and two tags of one image share
 * it; concurrent pulls of one digest wait for the first. Past {@code limitBytes} the images no
 * running container uses go, least recently used first.
 *
 * <p>Registry credentials are the owner's: the first of {@code $XDG_RUNTIME_DIR/containers/auth.json}
 * ({@code /run/user/<uid>}), {@code ~/.config/containers/auth.json} and {@code ~/.docker/config.json}
 * that the owner can read, read as the owner (never by following a user's path as root) into a
 * private copy that skopeo gets with {@code --authfile} and that is deleted after the pull. An image
 * archive on the node is read as the owner likewise.
 */
final class ContainerImages {

    private static final Logger log = LoggerFactory.getLogger(ContainerImages.class);
    private static final Duration INSPECT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PULL_TIMEOUT = Duration.ofMinutes(60);
    private static final Pattern SKOPEO_MESSAGE = Pattern.compile("msg=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    private static final int MAX_CREDENTIALS = 1024 * 1024;
    private static final long MAX_ARCHIVE = 64L * 1024 * 1024 * 1024;

    /** An image the node has, unpacked, with what its configuration says to run and how. */
    record Image(ContainerImageRef reference, String digest, Path rootfs, List<String> env, List<String> entrypoint,
            List<String> cmd, String workdir, boolean pulled, double seconds) {
    }

    /**
     * Hears how a pull this node makes goes: once when it starts ({@code bytes} 0), then every
     * {@link #PROGRESS_EVERY} with the bytes it has so far, as the job's events show it.
     */
    interface Progress {
        Progress NONE = (digest, bytes, seconds) -> { };

        void pulling(String digest, long bytes, double seconds);
    }

    /** How often a pull under way is reported. */
    static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
    private static final java.util.concurrent.ScheduledExecutorService PROGRESS =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "image-pull-progress");
                t.setDaemon(true);
                return t;
            });

    /** Why an image cannot be had: the detail names the image and what skopeo or the registry said. */
    static final class ImageFailure extends Exception {
        ImageFailure(String detail) {
            super(detail);
        }
    }

    private final Path dir;
    /** When an image was last used, for the least-recently-used eviction. */
    private final java.time.Clock clock;
    private final long limitBytes;
    private final Object lock = new Object();
    /** Pulls under way or done, by digest hex. */
    private final Map<String, CompletableFuture<Path>> pulls = new HashMap<>();
    /** How many running containers use each image, by digest hex. */
    private final Map<String, Integer> inUse = new HashMap<>();

    ContainerImages(Path dir, long limitBytes, java.time.Clock clock) {
        this.clock = clock;
        this.dir = dir;
        this.limitBytes = limitBytes;
        try {
            Files.createDirectories(dir.getParent());
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            }
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            // what a pull cut short left behind
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path p : entries.filter(p -> p.getFileName().toString().startsWith("tmp-")).toList()) {
                    ContainerFiles.deleteTree(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the image cache " + dir, e);
        }
    }

    Path dir() {
        return dir;
    }

    /**
     * The image {@code ref} names, pulled now unless the node has it; the caller must
     * {@link #release(Image)} it when its container is gone.
     */
    Image acquire(ContainerImageRef ref, UnixAccount owner, String node) throws ImageFailure {
        return acquire(ref, owner, node, Progress.NONE);
    }

    /** As {@link #acquire(ContainerImageRef, UnixAccount, String)}, telling {@code progress} how a pull goes. */
    Image acquire(ContainerImageRef ref, UnixAccount owner, String node, Progress progress) throws ImageFailure {
        long started = System.nanoTime();
        Path scratch;
        try {
            scratch = Files.createTempDirectory(dir, "tmp-");
        } catch (IOException e) {
            throw new ImageFailure("cannot use the image cache on " + node + ": " + e.getMessage());
        }
        try {
            String source;
            String digest;
            List<String> auth = new ArrayList<>();
            if (ref.isArchive()) {
                Path copy = scratch.resolve("archive.tar");
                copyAs(owner, ref.archive(), copy, node);
                source = archiveTransport(copy, node, ref);
                digest = inspectDigest(source, List.of(), ref, node);
            } else {
                Path authFile = credentials(owner, scratch);
                if (authFile != null) {
                    auth = List.of("--authfile", authFile.toString());
                }
                // asked even for a pinned digest: the cache gives an image only to whom the registry would
                String resolved = inspectDigest(ref.source(), auth, ref, node);
                digest = ref.digest() != null ? ref.digest() : resolved;
                source = ref.pinned(digest);
            }
            String key = digest.substring("sha256:".length());
            CompletableFuture<Path> pull;
            boolean mine = false;
            synchronized (lock) {
                pull = pulls.get(key);
                if (pull == null) {
                    pull = new CompletableFuture<>();
                    pulls.put(key, pull);
                    if (Files.isRegularFile(dir.resolve(key).resolve("image.json"))) {
                        pull.complete(dir.resolve(key));
                    } else {
                        mine = true;
                    }
                }
                inUse.merge(key, 1, Integer::sum);
            }
            if (mine) {
                Path layout = scratch.resolve("layout");
                progress.pulling(digest, 0, (System.nanoTime() - started) / 1e9);
                java.util.concurrent.ScheduledFuture<?> reporter = PROGRESS.scheduleAtFixedRate(() -> {
                    try {
                        progress.pulling(digest, Files.isDirectory(layout) ? ContainerFiles.size(layout) : 0,
                                (System.nanoTime() - started) / 1e9);
                    } catch (IOException | RuntimeException e) {
                        log.debug("cannot tell how far the pull of {} is: {}", ref, e.toString());
                    }
                }, PROGRESS_EVERY.toMillis(), PROGRESS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
                try {
                    pull.complete(pull(source, auth, ref, key, scratch, node));
                } catch (ImageFailure | RuntimeException e) {
                    synchronized (lock) {
                        pulls.remove(key);
                    }
                    pull.completeExceptionally(e);
                } finally {
                    reporter.cancel(false);
                }
            }
            Path image;
            try {
                image = pull.get(PULL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                release(key);
                throw e.getCause() instanceof ImageFailure f ? f
                        : new ImageFailure("cannot pull image " + ref + " on " + node + ": " + e.getCause());
            } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
                release(key);
                throw new ImageFailure("gave up waiting for image " + ref + " on " + node);
            }
            touch(image);
            if (mine) {
                evict();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            return read(ref, digest, image, mine, seconds);
        } finally {
            ContainerFiles.deleteTree(scratch);
        }
    }

    /** A container of this image is gone: the image may be evicted again. */
    void release(Image image) {
        release(image.digest().substring("sha256:".length()));
    }

    private void release(String key) {
        synchronized (lock) {
            inUse.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
        }
    }

    private Path pull(String source, List<String> auth, ContainerImageRef ref, String key, Path scratch,
            String node) throws ImageFailure {
        Path layout = scratch.resolve("layout");
        Path unpacked = scratch.resolve("image");
        List<String> copy = new ArrayList<>(List.of("skopeo", "copy", "--quiet"));
        if (ref.insecure()) {
            copy.add("--src-tls-verify=false");
        }
        if (!auth.isEmpty()) {
            copy.addAll(List.of("--src-authfile", auth.get(1)));
        }
        copy.addAll(List.of(source, "oci:" + layout + ":image"));
        ContainerFiles.Result copied = ContainerFiles.run(copy, PULL_TIMEOUT);
        if (!copied.ok()) {
            throw new ImageFailure("cannot pull image " + ref + " on " + node + ": " + skopeoSays(copied.output()));
        }
        ContainerFiles.Result config = ContainerFiles.run(List.of("skopeo", "inspect", "--config",
                "oci:" + layout + ":image"), INSPECT_TIMEOUT);
        if (!config.ok()) {
            throw new ImageFailure("cannot read the configuration of image " + ref + " on " + node + ": "
                    + skopeoSays(config.output()));
        }
        try {
            Files.createDirectory(unpacked);
            Files.writeString(unpacked.resolve("image.json"), config.output(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ImageFailure("cannot unpack image " + ref + " on " + node + ": " + e.getMessage());
        }
        ContainerFiles.Result unpack = ContainerFiles.run(List.of("umoci", "raw", "unpack", "--image",
                layout + ":image", unpacked.resolve("rootfs").toString()), PULL_TIMEOUT);
        if (!unpack.ok()) {
            throw new ImageFailure("cannot unpack image " + ref + " on " + node + " (umoci): "
                    + unpack.output().strip());
        }
        Path target = dir.resolve(key);
        try {
            ContainerFiles.deleteTree(target);
            Files.writeString(unpacked.resolve("size"), Long.toString(ContainerFiles.size(unpacked.resolve("rootfs"))),
                    StandardCharsets.UTF_8);
            Files.move(unpacked, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ImageFailure("cannot keep image " + ref + " in the cache on " + node + ": " + e.getMessage());
        }
        log.info("pulled image {} ({}) into {}", ref, key, target);
        return target;
    }

    private static Image read(ContainerImageRef ref, String digest, Path image, boolean pulled, double seconds)
            throws ImageFailure {
        try {
            JsonNode root = AgentJson.MAPPER.readTree(Files.readString(image.resolve("image.json"),
                    StandardCharsets.UTF_8));
            JsonNode config = root.path("config");
            String workdir = config.path("WorkingDir").isString() ? config.path("WorkingDir").asString() : null;
            return new Image(ref, digest, image.resolve("rootfs"), strings(config.path("Env")),
                    strings(config.path("Entrypoint")), strings(config.path("Cmd")),
                    workdir == null || workdir.isBlank() ? null : workdir, pulled, seconds);
        } catch (IOException | RuntimeException e) {
            throw new ImageFailure("cannot read the configuration of image " + ref + ": " + e.getMessage());
        }
    }

    private static List<String> strings(JsonNode node) {
        List<String> values = new ArrayList<>();
        if (node != null && node.isArray()) {
            node.forEach(n -> values.add(n.asString()));
        }
        return values;
    }

    private String inspectDigest(String source, List<String> auth, ContainerImageRef ref, String node)
            throws ImageFailure {
        List<String> command = new ArrayList<>(List.of("skopeo", "inspect", "--no-tags"));
        if (ref.insecure()) {
            command.add("--tls-verify=false");
        }
        command.addAll(auth);
        command.addAll(List.of("--format", "{{.Digest}}", source));
        ContainerFiles.Result result = ContainerFiles.run(command, INSPECT_TIMEOUT);
        if (!result.ok()) {
            throw new ImageFailure("cannot pull image " + ref + " on " + node + ": " + skopeoSays(result.output()));
        }
        Matcher m = DIGEST.matcher(result.output());
        if (!m.find()) {
            throw new ImageFailure("cannot pull image " + ref + " on " + node + ": the registry gave no digest ("
                    + result.output().strip() + ")");
        }
        return m.group();
    }

    /** An archive is a {@code docker save} tar unless it holds an {@code oci-layout}. */
    private static String archiveTransport(Path archive, String node, ContainerImageRef ref) throws ImageFailure {
        ContainerFiles.Result list = ContainerFiles.run(List.of("tar", "-tf", archive.toString()), INSPECT_TIMEOUT);
        if (!list.ok()) {
            throw new ImageFailure("image archive " + ref + " on " + node + " is not a tar archive: "
                    + list.output().strip());
        }
        boolean oci = list.output().lines().anyMatch(l -> l.equals("oci-layout") || l.equals("./oci-layout"));
        return (oci ? "oci-archive:" : "docker-archive:") + archive;
    }

    /** skopeo's own message (its {@code msg="..."}), else its last line. */
    static String skopeoSays(String output) {
        Matcher m = SKOPEO_MESSAGE.matcher(output);
        String said = null;
        while (m.find()) {
            said = m.group(1).replace("\\\"", "\"");
        }
        if (said == null) {
            List<String> lines = output.strip().lines().toList();
            said = lines.isEmpty() ? "skopeo failed" : lines.get(lines.size() - 1);
        }
        // "Error parsing image name "docker://...": reading manifest ..." says the name twice
        return said.replaceFirst("^Error parsing image name \"[^\"]*\": ", "");
    }

    /** The owner's registry credentials, copied as the owner into {@code scratch}; null when it has none. */
    private static Path credentials(UnixAccount owner, Path scratch) {
        List<Path> candidates = List.of(Path.of("/run/user", Long.toString(owner.uid()), "containers/auth.json"),
                Path.of(owner.home(), ".config/containers/auth.json"), Path.of(owner.home(), ".docker/config.json"));
        for (Path file : candidates) {
            try {
                JobOutputFiles.Reading reading = JobOutputFiles.readAs(owner, file, 0, MAX_CREDENTIALS);
                if (reading.refusal() != null || reading.data().length == 0) {
                    continue;
                }
                Path copy = scratch.resolve("auth.json");
                Files.write(copy, reading.data());
                Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-------"));
                return copy;
            } catch (IOException | RuntimeException e) {
                log.debug("no registry credentials of {} in {}: {}", owner.name(), file, e.toString());
            }
        }
        return null;
    }

    /** Copies {@code file} as {@code owner} (the kernel checks the path with the owner's rights). */
    private static void copyAs(UnixAccount owner, Path file, Path to, String node) throws ImageFailure {
        List<String> command = new ArrayList<>(ContainerFiles.asUser(owner));
        command.addAll(List.of("/bin/cat", "--", file.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Path.of("/").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().clear();
        builder.environment().put("PATH", ContainerFiles.PATH);
        try {
            Process process = builder.start();
            long copied;
            try (InputStream in = process.getInputStream()) {
                copied = Files.copy(in, to);
            }
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0 || copied > MAX_ARCHIVE) {
                process.destroyForcibly();
                throw new ImageFailure("user " + owner.name() + " may not read the image archive " + file + " on "
                        + node);
            }
        } catch (IOException e) {
            throw new ImageFailure("cannot read the image archive " + file + " on " + node + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ImageFailure("interrupted while reading the image archive " + file);
        }
    }

    private void touch(Path image) {
        try {
            Files.setLastModifiedTime(image.resolve("size"), FileTime.fromMillis(clock.millis()));
        } catch (IOException e) {
            // its age only orders evictions
        }
    }

    /** Drops the least recently used images no container uses until the cache fits its limit. */
    void evict() {
        record Cached(String key, Path path, long size, long used) {
        }
        synchronized (lock) {
            List<Cached> cached = new ArrayList<>();
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path p : entries.toList()) {
                    Path size = p.resolve("size");
                    if (p.getFileName().toString().startsWith("tmp-") || !Files.isRegularFile(size)) {
                        continue;
                    }
                    cached.add(new Cached(p.getFileName().toString(), p,
                            Long.parseLong(Files.readString(size, StandardCharsets.UTF_8).strip()),
                            Files.getLastModifiedTime(size).toMillis()));
                }
            } catch (IOException | RuntimeException e) {
                log.warn("cannot list the image cache {}: {}", dir, e.toString());
                return;
            }
            long total = cached.stream().mapToLong(Cached::size).sum();
            cached.sort(Comparator.comparingLong(Cached::used));
            for (Cached c : cached) {
                if (total <= limitBytes) {
                    break;
                }
                if (inUse.containsKey(c.key())) {
                    continue;
                }
                pulls.remove(c.key());
                ContainerFiles.deleteTree(c.path());
                total -= c.size();
                log.info("evicted image {} ({} bytes) from the cache: it holds {} bytes of at most {}", c.key(),
                        c.size(), total, limitBytes);
            }
        }
    }
}
