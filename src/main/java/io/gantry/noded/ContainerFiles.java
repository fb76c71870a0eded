package io.gantry.noded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The few tools the container code runs (skopeo, umoci, cp, rm) and the account switch it runs them with. */
final class ContainerFiles {

    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    private static final int MAX_OUTPUT = 64 * 1024;

    /** A tool's exit and its output and errors together (the first 64 KiB). */
    record Result(int exit, String output) {
        boolean ok() {
            return exit == 0;
        }
    }

    private ContainerFiles() {
    }

    /** Runs {@code command} with nothing of the agent's environment but PATH, killed after {@code timeout}. */
    static Result run(List<String> command, Duration timeout) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(Path.of("/").toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().clear();
        builder.environment().put("PATH", PATH);
        builder.environment().put("HOME", "/root");
        builder.environment().put("LC_ALL", "C");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return new Result(127, "cannot run " + command.get(0) + ": " + e.getMessage());
        }
        CompletableFuture<Void> deadline = CompletableFuture.runAsync(() -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }, CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS));
        try (InputStream in = process.getInputStream()) {
            byte[] out = in.readNBytes(MAX_OUTPUT);
            in.transferTo(java.io.OutputStream.nullOutputStream());
            int exit = process.waitFor();
            boolean timedOut = deadline.isDone();
            String text = new String(out, StandardCharsets.UTF_8);
            return new Result(timedOut ? 124 : exit, timedOut ? text + "\n" + command.get(0) + " did not finish within "
                    + timeout.toSeconds() + " s" : text);
        } catch (IOException e) {
            return new Result(1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return new Result(1, "interrupted");
        } finally {
            deadline.cancel(false);
        }
    }

    /** {@code setpriv} to run as {@code owner} (nothing when the agent is the owner). */
    static List<String> asUser(UnixAccount owner) {
        List<String> command = new ArrayList<>();
        if (currentUid() != owner.uid()) {
            command.addAll(List.of("setpriv", "--reuid=" + owner.uid(), "--regid=" + owner.gid()));
            command.add(owner.groups().isEmpty() ? "--clear-groups"
                    : "--groups=" + String.join(",", owner.groups().stream().map(String::valueOf).toList()));
            command.addAll(List.of("--inh-caps=-all", "--"));
        }
        return command;
    }

    static long currentUid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Removes a tree without following links out of it; what cannot be removed stays (and is logged by rm). */
    static void deleteTree(Path path) {
        if (path == null || !Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        run(List.of("rm", "-rf", "--one-file-system", "--", path.toString()), Duration.ofMinutes(10));
    }

    /** The bytes the files under {@code dir} hold. */
    static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        }
    }
}
