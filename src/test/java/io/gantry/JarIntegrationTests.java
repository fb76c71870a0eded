package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.TestDatabase;
import tools.jackson.databind.JsonNode;

/**
 * The packaged jar, started as users start it: a real process on the postgres profile. Proves
 * the jar carries what it needs at run time and that node states survive a restart.
 */
class JarIntegrationTests {

    private static final Path JAR = Path.of("target", "gantry.jar");

    @TempDir
    Path dataDir;

    private Process process;

    @AfterEach
    void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            process.waitFor();
        }
    }

    @Test
    void theJarStartsOnPostgresMigratesAndKeepsNodeStatesAcrossARestart() throws Exception {
        assertThat(JAR).as("run ./mvnw verify so the jar is packaged first").exists();
        int port = freePort();
        ApiClient api = new ApiClient(port);

        start(port);
        String admin = api.token("admin", ApiClient.ADMIN_PASSWORD);
        assertThat(api.get("/api/v1/nodes?size=100", admin).json().get("total").asInt()).isEqualTo(24);
        Response docs = api.get("/v3/api-docs", null);
        assertThat(docs.status()).isEqualTo(200);
        assertThat(docs.json().get("openapi").asString()).startsWith("3.");
        Response drained = api.send("PATCH", "/api/v1/nodes/cpu008", admin,
                Map.of("state", "DRAIN", "reason", "survives restarts"));
        assertThat(drained.status()).isEqualTo(200);

        process.destroy();
        process.waitFor();
        start(port);

        String again = api.token("admin", ApiClient.ADMIN_PASSWORD);
        JsonNode node = api.get("/api/v1/nodes/cpu008", again).json();
        assertThat(node.get("state").asString()).isEqualTo("DRAINED");
        assertThat(node.get("reason").asString()).isEqualTo("survives restarts");
        api.send("PATCH", "/api/v1/nodes/cpu008", again, Map.of("state", "RESUME"));
    }

    private void start(int port) throws IOException, InterruptedException {
        TestDatabase db = TestDatabase.get();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "--spring.profiles.active=postgres",
                "--server.port=" + port,
                "--gantry.data-dir=" + dataDir,
                "--gantry.security.bootstrap-admin-password=" + ApiClient.ADMIN_PASSWORD,
                "--spring.datasource.url=" + db.url(),
                "--spring.datasource.username=" + db.username(),
                "--spring.datasource.password=" + db.password()));
        Path log = dataDir.resolve("controller.log");
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        ApiClient api = new ApiClient(port);
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("The controller exited with " + process.exitValue() + ":\n"
                        + Files.readString(log));
            }
            try {
                if (api.get("/actuator/health", null).status() == 200) {
                    return;
                }
            } catch (IllegalStateException notYetListening) {
                // keep waiting until the deadline
            }
            process.waitFor(250, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("The controller did not become healthy in 90 s:\n" + Files.readString(log));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
