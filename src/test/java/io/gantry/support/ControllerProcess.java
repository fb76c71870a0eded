package io.gantry.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged controller as users run it: {@code java -jar target/gantry.jar} in its own process,
 * on a free port, with its log in the data directory.
 */
public final class ControllerProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "gantry.jar");
    private static final Duration STARTUP = Duration.ofSeconds(240);

    private final int port;
    private final Path dataDir;
    private final List<String> extraArgs;
    private boolean packaged;
    private Process process;

    public ControllerProcess(Path dataDir, String... extraArgs) throws IOException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: run ./mvnw verify so the jar is packaged first");
        }
        this.port = freePort();
        this.dataDir = dataDir;
        this.extraArgs = List.of(extraArgs);
    }

    public int port() {
        return port;
    }

    public ApiClient api() {
        return new ApiClient(port);
    }

    /**
     * Runs it from {@code target/gantry.jar} itself ({@link TestJvm#packaged}), for a test of what users run or
     * download; the others run it from the tests' extracted copy with its shared classes ({@link TestJvm#gantry}).
     */
    public ControllerProcess packaged() {
        this.packaged = true;
        return this;
    }

    /** Starts the controller and waits until {@code /actuator/health} answers. */
    public ControllerProcess start() throws IOException, InterruptedException {
        String[] args = {"--server.port=" + port,
                "--gantry.data-dir=" + dataDir,
                "--gantry.security.bootstrap-admin-password=" + ApiClient.ADMIN_PASSWORD};
        List<String> command = packaged ? TestJvm.packaged(args) : TestJvm.gantry(args);
        if (extraArgs.stream().noneMatch(a -> a.startsWith("--gantry.control.advertise-url="))) {
            // Where other controllers on the same store reach this one when it leads.
            command.add("--gantry.control.advertise-url=http://127.0.0.1:" + port);
        }
        command.addAll(extraArgs);
        Path log = dataDir.resolve("controller.log");
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        ApiClient api = api();
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("The controller exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try {
                if (api.get("/actuator/health", null).status() == 200) {
                    return this;
                }
            } catch (IllegalStateException notYetListening) {
                // keep waiting until the deadline
            }
            process.waitFor(250, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("The controller did not become healthy in " + STARTUP.toSeconds() + " s:\n"
                + Files.readString(log));
    }

    /** Stops it as an operator would (SIGTERM), waiting for the process to end. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            process.waitFor();
        }
    }

    /** Kills it without warning (SIGKILL), as a crash or a power cut would. */
    public void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
