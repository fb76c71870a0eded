package io.gantry.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * One of the dashboard's end-to-end scripts (frontend/e2e/*.mjs), run by the machine's Node with
 * playwright-core driving Debian's Chromium, as the dashboard's integration tests run them.
 */
public final class BrowserScript {

    /** Debian's Chromium, or {@code $CHROMIUM}. */
    public static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));

    private BrowserScript() {
    }

    /**
     * Skips the test, saying how to install it, when Debian's Chromium is not on this machine (CI
     * installs it and fails on any skipped test).
     */
    public static void assumeChromium() {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "the dashboard's end-to-end tests need Debian's Chromium at " + CHROMIUM + ": apt-get install -y chromium");
    }

    /** {@code frontend/e2e/<name>}. */
    public static Path script(String name) {
        return Path.of("frontend", "e2e", name);
    }

    /**
     * Runs {@code node args...} with its output in {@code log}, failing the test if it takes more than
     * {@code minutes} or exits other than 0 (the log is in the message).
     */
    public static void run(Path log, int minutes, String... args) throws Exception {
        Files.createDirectories(log.getParent());
        List<String> command = new ArrayList<>(List.of("node"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("E2E_ADMIN_PASSWORD", ApiClient.ADMIN_PASSWORD);
        Process process = builder.start();
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            fail("node " + args[0] + " took more than " + minutes + " minutes:\n" + Files.readString(log));
        }
        assertThat(process.exitValue())
                .as("node %s exited %d (2 = no Chromium: apt-get install -y chromium); its output (%s):%n%s",
                        args[0], process.exitValue(), log, Files.readString(log))
                .isZero();
    }
}
