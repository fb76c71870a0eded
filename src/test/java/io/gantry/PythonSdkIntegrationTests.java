package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;

/**
 * The Python SDK the build generates ({@code target/generated-sources/python-sdk}, package
 * {@code gantry_sdk}) works against the running controller: {@code src/test/python/smoke.py} signs
 * in, submits, waits, reads, cancels and pages through jobs with it, on the machine's Python and
 * Debian's packages (python3-pydantic, python3-dateutil, python3-urllib3; CI installs them).
 */
@GantryIntegrationTest
class PythonSdkIntegrationTests {

    private static final Path SDK = Path.of("target", "generated-sources", "python-sdk");
    private static final Path SMOKE = Path.of("src", "test", "python", "smoke.py");

    @LocalServerPort
    int port;

    @Test
    void theGeneratedPythonClientSubmitsWaitsReadsCancelsAndPages() throws IOException, InterruptedException {
        assertThat(SDK.resolve("gantry_sdk")).as("the build generates the Python SDK").isDirectory();
        Process imports = new ProcessBuilder(python(), "-c", "import pydantic, dateutil, urllib3")
                .redirectErrorStream(true).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(imports.waitFor(60, TimeUnit.SECONDS) && imports.exitValue() == 0,
                "the SDK's smoke test needs Debian's Python packages: apt-get install -y python3 python3-pydantic "
                        + "python3-dateutil python3-urllib3 python3-typing-extensions");
        ProcessBuilder smoke = new ProcessBuilder(python(), SMOKE.toString(), "http://127.0.0.1:" + port,
                ApiClient.ADMIN_PASSWORD).redirectErrorStream(true);
        smoke.environment().put("PYTHONPATH", SDK.toAbsolutePath().toString());
        smoke.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process process = smoke.start();
        boolean ended = process.waitFor(120, TimeUnit.SECONDS);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ended) {
            process.destroyForcibly();
        }
        assertThat(ended).as("smoke.py ended within 120 s:\n" + output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("signed in", "completed", "cancelled", "paged", "problem 404", "ok");
    }

    /** Debian's Python, whose packages the SDK is meant for; not a pyenv or venv one that PATH may put first. */
    private static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }
}
