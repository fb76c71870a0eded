package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The dashboard as users meet it: served by the controller at '/', driven in Debian's Chromium
 * by frontend/e2e/run.mjs (playwright-core), and its API client checked against the live
 * OpenAPI document so it cannot drift from the server unnoticed.
 */
@GantryIntegrationTest
class DashboardIntegrationTests {

    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final Path SCRIPT = Path.of("frontend", "e2e", "run.mjs");
    private static final Path COMMITTED_SPEC = Path.of("frontend", "openapi.json");

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

    @Test
    void theCommittedOpenApiDocumentMatchesTheLiveOne() throws Exception {
        JsonMapper json = JsonMapper.builder().build();
        JsonNode live = new ApiClient(port).get("/v3/api-docs", null).json();
        JsonNode committed = json.readTree(Files.readString(COMMITTED_SPEC));
        // Not part of the contract: the host it ran on, and the build's version (dev in tests).
        for (JsonNode doc : new JsonNode[] {live, committed}) {
            ((ObjectNode) doc).remove("servers");
            if (doc.get("info") instanceof ObjectNode info) {
                info.remove("version");
            }
        }

        List<String> differences = new ArrayList<>();
        diff("", committed, live, differences);
        assertThat(differences)
                .as("%s differs from the live /v3/api-docs, so the dashboard's generated client is stale. Run the controller "
                        + "and then `cd frontend && npm run api:fetch -- http://127.0.0.1:8080 && npm run api:generate`, "
                        + "fix what no longer typechecks, and commit both files. Differences (committed vs live)",
                        COMMITTED_SPEC)
                .isEmpty();
    }

    /** Structural differences as JSON pointers (object key order ignored), at most 40. */
    private static void diff(String at, JsonNode a, JsonNode b, List<String> out) {
        if (out.size() >= 40) {
            return;
        }
        if (a.isObject() && b.isObject()) {
            TreeSet<String> keys = new TreeSet<>();
            a.properties().forEach(e -> keys.add(e.getKey()));
            b.properties().forEach(e -> keys.add(e.getKey()));
            for (String key : keys) {
                String here = at + "/" + key.replace("~", "~0").replace("/", "~1");
                if (!a.has(key)) {
                    out.add(here + ": only live");
                } else if (!b.has(key)) {
                    out.add(here + ": only committed");
                } else {
                    diff(here, a.get(key), b.get(key), out);
                }
            }
        } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                diff(at + "/" + i, a.get(i), b.get(i), out);
            }
        } else if (!a.equals(b)) {
            out.add(at + ": " + abbreviate(a) + " vs " + abbreviate(b));
        }
    }

    private static String abbreviate(JsonNode node) {
        String text = node.toString();
        return text.length() > 120 ? text.substring(0, 117) + "..." : text;
    }
}
