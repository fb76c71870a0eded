package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.gpus.GpuSamples;
import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.support.ApiClient;
import io.gantry.support.BrowserScript;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.StartEarly;

/**
 * The dashboard as users meet it: served by the controller at '/', driven in Debian's Chromium
 * by frontend/e2e/run.mjs (playwright-core). Its typed client is generated at every build from
 * src/main/openapi/gantry.json, which SdkIntegrationTests keeps equal to the live document. The
 * scenarios that need a controller of their own are in {@link DashboardJarIntegrationTests}.
 */
@GantryIntegrationTest
@StartEarly("two to three minutes of scenarios in Chromium")
class DashboardIntegrationTests {

    private static final Path SCRIPT = BrowserScript.script("run.mjs");
    private static final Path VIEWS_SCRIPT = BrowserScript.script("views.mjs");
    private static final Path GPU_SCRIPT = BrowserScript.script("gpu.mjs");

    @LocalServerPort
    int port;

    @org.springframework.beans.factory.annotation.Autowired
    GpuSamples gpuSamples;

    @Test
    void theDashboardPassesItsEndToEndRunInChromium() throws Exception {
        BrowserScript.assumeChromium();
        assertThat(SCRIPT).as("the end-to-end script").exists();
        HttpResponse<String> index = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).header("Accept", "text/html").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(index.statusCode()).as("GET / serves the dashboard (build it: ./mvnw without -DskipFrontend)").isEqualTo(200);
        assertThat(index.body()).contains("<div id=\"root\">");

        BrowserScript.run(Path.of("target", "e2e.log"), 5, SCRIPT.toString(), "http://127.0.0.1:" + port,
                Path.of("target", "screenshots").toString());
    }

    /**
     * Issue 17's views (frontend/e2e/views.mjs): 200 jobs sorted and paged by the server, an array's
     * page and its array-wide cancel, why-pending for held, dependent, limited and waiting jobs, and
     * every view at 390x844 with no horizontal overflow, no cut badge, a title of its own and no
     * axe-core contrast or label violation.
     */
    @Test
    void theSecondRoundOfViewsPassesItsEndToEndRunInChromium() throws Exception {
        BrowserScript.assumeChromium();
        assertThat(VIEWS_SCRIPT).as("the views end-to-end script").exists();
        BrowserScript.run(Path.of("target", "e2e-views.log"), 8, VIEWS_SCRIPT.toString(), "http://127.0.0.1:" + port,
                Path.of("target", "screenshots").toString());
    }

    /**
     * Issue 33's chart (frontend/e2e/gpu.mjs): a 2-GPU job ran, and its node's agent sent 100 minutes of
     * readings (stored through the same path as an agent's poll): the first GPU at 80 % for 50 minutes
     * then idle, the second at 40 % throughout. The job's page shows 40.0 % average and 80.0 % peak, and
     * the chart draws a line for each GPU; the overview lists the job among those whose GPUs were idle,
     * 0.8 of its 3.3 GPU-hours.
     */
    @Test
    void aGpuJobsPageShowsItsUtilisationAndDrawsItsChart() throws Exception {
        BrowserScript.assumeChromium();
        ApiClient api = new ApiClient(port);
        String admin = api.adminToken();
        long id = api.submitJob(admin, java.util.Map.of("partition", "gpu", "gpus", 2, "timeLimitSeconds", 300,
                "simulatedRunSeconds", 1));
        api.awaitJobState(id, admin, "COMPLETED", Duration.ofSeconds(60));
        String node = api.get("/api/v1/jobs/" + id, admin).json().get("allocatedNodes").asString();
        java.time.Instant start = java.time.Instant.now().minus(Duration.ofHours(2));
        List<AgentProtocol.GpuSample> readings = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            java.time.Instant at = start.plusSeconds(600L * k);
            readings.add(new AgentProtocol.GpuSample(at, 0, "GPU-e2e-0", Long.toString(id), k < 5 ? 80.0 : 0.0,
                    1000L, 16384L, 250.0, 50.0, 0L, 600.0));
            readings.add(new AgentProtocol.GpuSample(at, 1, "GPU-e2e-1", Long.toString(id), 40.0, 500L, 16384L,
                    200.0, 50.0, 0L, 600.0));
        }
        gpuSamples.record(node, readings);
        BrowserScript.run(Path.of("target", "e2e-gpu.log"), 2, GPU_SCRIPT.toString(), "http://127.0.0.1:" + port,
                Long.toString(id), "40.0", "80.0", Path.of("target", "screenshots").toString());
    }
}
