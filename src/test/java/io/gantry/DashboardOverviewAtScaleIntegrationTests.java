package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.BrowserScript;
import io.gantry.support.ControllerProcess;

/**
 * The dashboard's overview at scale in Debian's Chromium, on the packaged jar of its own. Its script fails when
 * the map takes more than 10 s, ten times what it takes on a busy machine, so it runs beside other classes;
 * the array page, timed to the second, runs alone ({@link DashboardAtScaleIntegrationTests}).
 */
class DashboardOverviewAtScaleIntegrationTests {

    private static final Path SCALE_CLUSTER = Path.of("src", "test", "resources", "dashboard-scale-cluster.yml");
    private static final int SCALE_NODES = 1000;

    /**
     * The packaged jar on a 1,000-node simulated cluster (embedded store, a data directory of its
     * own, so the shared context's cluster is untouched): the overview draws every node, grouped
     * by block and leaf switch, compact enough to read, and fits a phone.
     */
    @Test
    void theOverviewDrawsAThousandNodeCluster(@TempDir Path dataDir) throws Exception {
        BrowserScript.assumeChromium();
        // Immediate shutdown: the browser's /events stream would otherwise hold a graceful one for 30 s.
        try (ControllerProcess controller = new ControllerProcess(dataDir,
                "--spring.config.additional-location=file:" + SCALE_CLUSTER.toAbsolutePath(), "--server.shutdown=immediate")) {
            controller.start();
            assertThat(controller.api().get("/api/v1/nodes?size=1", controller.api().adminToken()).json()
                    .get("total").asInt()).as("nodes of %s", SCALE_CLUSTER).isEqualTo(SCALE_NODES);
            BrowserScript.run(Path.of("target", "e2e-scale.log"), 2, BrowserScript.script("scale.mjs").toString(), "http://127.0.0.1:" + controller.port(),
                    Integer.toString(SCALE_NODES), Path.of("target", "screenshots").toString());
        }
    }
}
