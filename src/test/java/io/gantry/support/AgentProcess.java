package io.gantry.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A node agent as sites run it: {@code java -jar target/gantry.jar agent} in its own process, joining
 * a controller with its join token (read from a 0600 file, as {@code agentCommand} has it), its log
 * appended to a file. Killed (not stopped) on close: the
 * tests that use it end with their controller.
 *
 * <p>Test classes run side by side, and their clusters repeat node names and job ids: each agent puts
 * its jobs' cgroups under a root of its own ({@code --cgroup-root}, named after its work dir, so an
 * agent restarted on the same work dir finds its jobs again), removed on close once empty.
 */
public final class AgentProcess implements AutoCloseable {

    private final Process process;
    private final String cgroupRoot;

    private AgentProcess(Process process, String cgroupRoot) {
        this.process = process;
        this.cgroupRoot = cgroupRoot;
    }

    /** The agent's {@code --cgroup-root} for work dir {@code workDir}: the same for every agent started on it. */
    public static String cgroupRoot(Path workDir) {
        return "gantry-test-" + Integer.toHexString(workDir.toAbsolutePath().normalize().toString().hashCode());
    }

    /** Whether the agent's process still runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The agent's process id, to read its {@code /proc} entries. */
    public long pid() {
        return process.pid();
    }

    /**
     * Starts an agent for node {@code name} with {@code cpus} CPUs and {@code memoryMb} MB, working in
     * {@code workDir}, logging to {@code log}; {@code extraArgs} are appended to its command line.
     */
    public static AgentProcess start(int controllerPort, String joinToken, String name, int cpus, long memoryMb,
            Path workDir, Path log, String... extraArgs) throws IOException {
        return start("http://127.0.0.1:" + controllerPort, joinToken, name, cpus, memoryMb, workDir, log, extraArgs);
    }

    /** The same, for an agent that knows the controllers at {@code controllerUrls} (comma-separated). */
    public static AgentProcess start(String controllerUrls, String joinToken, String name, int cpus, long memoryMb,
            Path workDir, Path log, String... extraArgs) throws IOException {
        return start(controllerUrls, joinToken, name, cpus, memoryMb, workDir, log, java.util.Map.of(), extraArgs);
    }

    /**
     * The same with {@code environment} added to the agent's (a {@code PATH} with a fake {@code nvidia-smi}
     * first, say).
     */
    public static AgentProcess start(String controllerUrls, String joinToken, String name, int cpus, long memoryMb,
            Path workDir, Path log, java.util.Map<String, String> environment, String... extraArgs) throws IOException {
        Files.createDirectories(workDir);
        // As agentCommand does: the token in a file only its owner reads, never in the agent's arguments.
        Path tokenFile = workDir.resolveSibling(workDir.getFileName() + ".join-token");
        Files.deleteIfExists(tokenFile);
        Files.createFile(tokenFile, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tokenFile, joinToken + "\n");
        List<String> command = TestJvm.gantry("agent", "--controller", controllerUrls,
                "--join-token-file", tokenFile.toString(), "--name", name, "--work-dir", workDir.toString(), "--cpus",
                Integer.toString(cpus), "--memory-mb", Long.toString(memoryMb));
        String cgroupRoot = cgroupRoot(workDir);
        if (!List.of(extraArgs).contains("--cgroup-root")) {
            command.addAll(List.of("--cgroup-root", cgroupRoot));
        }
        command.addAll(List.of(extraArgs));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return new AgentProcess(builder.start(), cgroupRoot);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        removeEmptyCgroups(cgroupRoot);
    }

    /**
     * Kills the agent and what its jobs left running (every process under its cgroup root), then removes the
     * cgroups: for the end of a cluster, where {@link #close} alone (an agent's crash, after which a new agent
     * adopts the jobs) left jobs' {@code sleep 300}s running after the tests.
     */
    public void closeWithItsJobs() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        // a few rounds: a job's shell may fork while its children are being killed
        for (int round = 0; round < 5; round++) {
            List<java.util.concurrent.CompletableFuture<ProcessHandle>> ends = new ArrayList<>();
            for (long pid : processesUnder(cgroupRoot)) {
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroyForcibly();
                    ends.add(p.onExit());
                });
            }
            if (ends.isEmpty()) {
                break;
            }
            try {
                java.util.concurrent.CompletableFuture.allOf(ends.toArray(java.util.concurrent.CompletableFuture[]::new))
                        .get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException stillThere) {
                // the next round kills what is left
            }
        }
        removeEmptyCgroups(cgroupRoot);
    }

    /** Removes {@code root}'s empty cgroups (children first) in every hierarchy; one still in use stays. */
    public static void removeEmptyCgroups(String root) {
        for (Path top : tops(root)) {
            try (Stream<Path> tree = Files.walk(top)) {
                tree.filter(d -> Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS))
                        .sorted(Comparator.reverseOrder()).forEach(AgentProcess::rmdir);
            } catch (IOException | UncheckedIOException ignored) {
                // best effort: a cgroup still holding a process stays
            }
        }
    }

    /** The processes in {@code root}'s cgroups, in every hierarchy (cgroup v1 and v2). */
    private static List<Long> processesUnder(String root) {
        List<Long> pids = new ArrayList<>();
        for (Path top : tops(root)) {
            try (Stream<Path> tree = Files.walk(top)) {
                for (Path procs : tree.filter(p -> p.getFileName().toString().equals("cgroup.procs")).toList()) {
                    Files.readAllLines(procs).stream().map(String::strip).filter(l -> !l.isEmpty())
                            .map(Long::valueOf).forEach(pids::add);
                }
            } catch (IOException | UncheckedIOException gone) {
                // a cgroup removed meanwhile
            }
        }
        return pids;
    }

    /** {@code root} in every cgroup hierarchy where it exists. */
    private static List<Path> tops(String root) {
        Path cgroups = Path.of("/sys/fs/cgroup");
        List<Path> tops = new ArrayList<>(List.of(cgroups.resolve(root)));
        try (Stream<Path> hierarchies = Files.list(cgroups)) {
            hierarchies.map(h -> h.resolve(root)).forEach(tops::add);
        } catch (IOException | SecurityException none) {
            return List.of();
        }
        return tops.stream().filter(t -> Files.isDirectory(t, LinkOption.NOFOLLOW_LINKS)).toList();
    }

    private static void rmdir(Path cgroup) {
        try {
            Files.deleteIfExists(cgroup);
        } catch (IOException stillInUse) {
            // a process is still in it, or it has children in use
        }
    }
}
