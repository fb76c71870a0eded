package io.gantry.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node agent as sites run it: {@code java -jar target/gantry.jar agent} in its own process, joining
 * a controller with its join token (read from a 0600 file, as {@code agentCommand} has it), its log
 * appended to a file. Killed (not stopped) on close: the
 * tests that use it end with their controller.
 */
public final class AgentProcess implements AutoCloseable {

    private final Process process;

    private AgentProcess(Process process) {
        this.process = process;
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
        command.addAll(List.of(extraArgs));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return new AgentProcess(builder.start());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
}
