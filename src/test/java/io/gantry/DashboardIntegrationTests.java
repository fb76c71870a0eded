package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.GantryIntegrationTest;

/**
 * The dashboard as users meet it: served by the controller at '/', driven in Debian's Chromium
 * by frontend/e2e/run.mjs (playwright-core). Its typed client is generated at every build from
 * src/main/openapi/gantry.json, which SdkIntegrationTests keeps equal to the live document.
 */
@GantryIntegrationTest
class DashboardIntegrationTests {

    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final Path SCRIPT = Path.of("frontend", "e2e", "run.mjs");

    @LocalServerPort
    int port;

    @Test
    void theDashboardPassesItsEndToEndRunInChromium() throws Exception {
        assertThat(Files.isExecutable(CHROMIUM))
                .as("The dashboard's end-to-end tests need Debian's Chromium at %s: apt-get install -y chromium", CHROMIUM)
                .isTrue();
        assertThat(SCRIPT).as("the end-to-end script").exists();
        HttpResponse<String> index = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).header("Accept", "text/html").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(index.statusCode()).as("GET / serves the dashboard (build it: ./mvnw without -DskipFrontend)").isEqualTo(200);
        assertThat(index.body()).contains("<div id=\"root\">");

        Path log = Path.of("target", "e2e.log");
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder("node", SCRIPT.toString(), "http://127.0.0.1:" + port,
                Path.of("target", "screenshots").toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            fail("The end-to-end run took more than 5 minutes:\n" + Files.readString(log));
        }
        assertThat(process.exitValue())
                .as("node %s exited %d (2 = no Chromium: apt-get install -y chromium); its output (%s):%n%s",
                        SCRIPT, process.exitValue(), log, Files.readString(log))
                .isZero();
    }
}
