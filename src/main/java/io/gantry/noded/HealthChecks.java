package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.Gpu;
import io.gantry.noded.protocol.AgentProtocol.Health;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's verdict on itself, sent with every poll once known: Slurm's HealthCheckProgram and a
 * GPU check of the agent's own, run on a daemon thread every {@code healthCheckIntervalSeconds}.
 * <ul>
 * <li>The program ({@code gantry.agents.health-check}, a path, run without arguments as the agent's
 * user, i.e. root, like NHC) fails on a non-zero exit or when it runs longer than the timeout (then it
 * and its children are killed); the verdict's message is its output, cleaned and cut short.</li>
 * <li>The GPU check ({@code gpu-health-check}, on nodes whose GPUs {@code nvidia-smi} found at start)
 * asks {@code nvidia-smi --query-gpu=index,uuid,ecc.errors.uncorrected.volatile.total} and fails when
 * a registered GPU (matched by UUID, since indices shift when one falls off the bus) is missing,
 * reports an error in place of a value ({@code [GPU is lost]}, {@code [GPU requires reset]},
 * {@code [Unknown Error]}), or counts uncorrectable ECC errors since the driver loaded; and when
 * {@code nvidia-smi} fails or cannot run at all. XID errors reach only the kernel log: the ones that
 * take a GPU out show here as a lost GPU, an uncorrectable ECC count or a GPU needing a reset; the
 * others are for the health-check program (NHC's {@code check_nv_healthmon} and the like).</li>
 * </ul>
 * GPUs declared with {@code --gpus} are taken on trust: there is no {@code nvidia-smi} to ask about
 * them. Neither check configured: no verdict (null), and the controller leaves the node alone.
 */
final class HealthChecks implements AutoCloseable {

    static final Duration PROGRAM_TIMEOUT = Duration.ofSeconds(60);
    static final int MAX_MESSAGE = 200;
    private static final Duration NVIDIA_SMI_TIMEOUT = Duration.ofSeconds(30);
    private static final String QUERY = "--query-gpu=index,uuid,ecc.errors.uncorrected.volatile.total";
    private static final Logger log = LoggerFactory.getLogger(HealthChecks.class);

    private final List<Gpu> gpus;
    private final String nvidiaSmi;
    private final Duration programTimeout;
    private volatile Health verdict;
    private NodeSettings settings;
    private Thread thread;

    /**
     * {@code gpus} are the GPUs the agent registered as {@code nvidia-smi} listed them (empty: no GPU
     * check); {@code nvidiaSmi} the command that lists them now.
     */
    HealthChecks(List<Gpu> gpus, String nvidiaSmi, Duration programTimeout) {
        this.gpus = List.copyOf(gpus);
        this.nvidiaSmi = nvidiaSmi;
        this.programTimeout = programTimeout;
    }

    /** The latest verdict; null until a check has run, or when none is configured. */
    Health verdict() {
        return verdict;
    }

    /**
     * Runs the checks the controller asks for (null: the defaults), on a fresh thread when they
     * changed; the last verdict stays until the next pass replaces it.
     */
    synchronized void configure(NodeSettings requested) {
        NodeSettings wanted = requested == null ? NodeSettings.DEFAULTS : requested;
        if (thread != null && settings != null && sameChecks(settings, wanted)) {
            return;
        }
        stop();
        settings = wanted;
        if (!checksSomething(wanted)) {
            verdict = null;
            return;
        }
        Duration interval = Duration.ofSeconds(Math.max(1, wanted.healthCheckIntervalSeconds()));
        log.info("health checks every {} s:{}{}", interval.toSeconds(),
                program(wanted) == null ? "" : " " + program(wanted),
                checksGpus(wanted) ? " GPUs (" + gpus.size() + ")" : "");
        Thread t = new Thread(() -> loop(wanted, interval), "health-check");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private void loop(NodeSettings checks, Duration interval) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Health next = check(checks);
                if (Thread.currentThread().isInterrupted()) {
                    return; // reconfigured meanwhile: this pass may have been cut short
                }
                record(next);
                Thread.sleep(interval.toMillis());
            }
        } catch (InterruptedException e) {
            // reconfigured or closed
        }
    }

    private void record(Health next) {
        Health previous = verdict;
        verdict = next;
        if (Objects.equals(previous, next)) {
            return;
        }
        if (!next.healthy()) {
            log.warn("health check failed: {}", next.message());
        } else if (previous != null) {
            log.info("health check passes again");
        }
    }

    /** One pass of every configured check: healthy, or unhealthy with what failed ({@code "; "} between). */
    Health check(NodeSettings checks) throws InterruptedException {
        List<String> failures = new ArrayList<>();
        String program = program(checks);
        if (program != null) {
            String failure = runProgram(program);
            if (failure != null) {
                failures.add(failure);
            }
        }
        if (checksGpus(checks)) {
            failures.addAll(checkGpus());
        }
        return failures.isEmpty() ? new Health(true, null) : new Health(false, cut(String.join("; ", failures)));
    }

    /** Null when the program passes, else what it said (or how it failed when it said nothing). */
    String runProgram(String program) throws InterruptedException {
        Run run = run(List.of(program), programTimeout);
        if (run.error() != null) {
            return program + " cannot run: " + run.error();
        }
        if (run.timedOut()) {
            return program + " timed out after " + programTimeout.toSeconds() + " s"
                    + (run.output().isEmpty() ? "" : ": " + run.output());
        }
        if (run.exitCode() != 0) {
            return run.output().isEmpty() ? program + " exited with code " + run.exitCode() : run.output();
        }
        return null;
    }

    /** What is wrong with the registered GPUs, one entry each; empty when nothing is. */
    List<String> checkGpus() throws InterruptedException {
        Run run = run(List.of(nvidiaSmi, QUERY, "--format=csv,noheader,nounits"), NVIDIA_SMI_TIMEOUT);
        if (run.error() != null) {
            return List.of("nvidia-smi cannot run: " + run.error());
        }
        if (run.timedOut()) {
            return List.of("nvidia-smi timed out after " + NVIDIA_SMI_TIMEOUT.toSeconds() + " s");
        }
        Map<String, String> eccByUuid = new HashMap<>();
        for (String line : run.rawOutput().split("\\R")) {
            String[] f = line.split(",", 3);
            if (f.length == 3 && !f[1].isBlank()) {
                eccByUuid.put(f[1].strip(), f[2].strip());
            }
        }
        String failed = "nvidia-smi exited with code " + run.exitCode() + (run.output().isEmpty() ? "" : ": " + run.output());
        if (run.exitCode() != 0 && eccByUuid.isEmpty()) {
            return List.of(failed); // the driver, not a GPU: e.g. "couldn't communicate with the NVIDIA driver"
        }
        List<String> failures = new ArrayList<>();
        for (Gpu gpu : gpus) {
            String name = "GPU " + gpu.index() + " (" + gpu.uuid() + ")";
            String ecc = eccByUuid.get(gpu.uuid());
            if (ecc == null) {
                failures.add(name + " is lost");
            } else if (ecc.startsWith("[") && !isNotAvailable(ecc)) {
                failures.add(name + ": " + ecc.substring(1, ecc.endsWith("]") ? ecc.length() - 1 : ecc.length()));
            } else if (!isNotAvailable(ecc)) {
                try {
                    long errors = Long.parseLong(ecc);
                    if (errors > 0) {
                        failures.add(name + " has " + errors + " uncorrectable ECC error" + (errors == 1 ? "" : "s"));
                    }
                } catch (NumberFormatException e) {
                    failures.add(name + ": unreadable ECC count '" + ecc + "'");
                }
            }
        }
        if (failures.isEmpty() && run.exitCode() != 0) {
            failures.add(failed);
        }
        return failures;
    }

    /** ECC off, or not a feature of this GPU: nothing to judge. */
    private static boolean isNotAvailable(String value) {
        return value.equals("[N/A]") || value.equals("N/A") || value.equals("[Not Supported]");
    }

    private record Run(int exitCode, boolean timedOut, String rawOutput, String error) {
        /** The output as one cleaned line. */
        String output() {
            return clean(rawOutput);
        }
    }

    /**
     * Runs a command with its output (stdout and stderr) in a temporary file, so a chatty program can
     * never block on a full pipe, and kills it and its children when it outlives {@code timeout}.
     */
    private static Run run(List<String> command, Duration timeout) throws InterruptedException {
        Path out = null;
        Process process = null;
        try {
            out = Files.createTempFile("gantry-health", ".out");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
            // The site's check needs the agent's environment, but never the join token in it.
            builder.environment().remove(AgentOptions.JOIN_TOKEN_ENV);
            process = builder.start();
            process.getOutputStream().close();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                // What it said within its time, read before the kill: a shell whose child is killed first
                // would otherwise add its own "Killed" line to the verdict, or not, as the race goes.
                String said = read(out);
                kill(process);
                return new Run(-1, true, said, null);
            }
            return new Run(process.exitValue(), false, read(out), null);
        } catch (IOException e) {
            return new Run(-1, false, "", e.getMessage() == null ? e.getClass().getSimpleName() : clean(e.getMessage()));
        } catch (InterruptedException e) {
            if (process != null) {
                kill(process);
            }
            throw e;
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    // a temporary file left in the temp dir
                }
            }
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static String read(Path out) throws IOException {
        byte[] bytes;
        try (var in = Files.newInputStream(out)) {
            bytes = in.readNBytes(64 * 1024);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Output fit for a node's reason: its non-blank lines joined by {@code " / "}, control and format
     * characters gone, runs of spaces squeezed, at most {@link #MAX_MESSAGE} characters.
     */
    static String clean(String output) {
        List<String> lines = new ArrayList<>();
        for (String line : output.split("\\R")) {
            String text = line.replaceAll("[\\p{Cc}\\p{Cf}]", " ").replaceAll("\\s+", " ").strip();
            if (!text.isEmpty()) {
                lines.add(text);
            }
        }
        return cut(String.join(" / ", lines));
    }

    private static String cut(String text) {
        return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE - 1) + "…";
    }

    private static String program(NodeSettings s) {
        return s.healthCheck() == null || s.healthCheck().isBlank() ? null : s.healthCheck().strip();
    }

    private boolean checksGpus(NodeSettings s) {
        return s.gpuHealthCheck() && !gpus.isEmpty();
    }

    private boolean checksSomething(NodeSettings s) {
        return program(s) != null || checksGpus(s);
    }

    private boolean sameChecks(NodeSettings a, NodeSettings b) {
        return Objects.equals(program(a), program(b)) && checksGpus(a) == checksGpus(b)
                && a.healthCheckIntervalSeconds() == b.healthCheckIntervalSeconds();
    }

    private synchronized void stop() {
        Thread t = thread;
        thread = null;
        if (t != null) {
            t.interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
