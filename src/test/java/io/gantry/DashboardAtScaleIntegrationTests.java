package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import io.gantry.support.BrowserScript;
import io.gantry.support.ControllerProcess;
import io.gantry.support.TestDatabase;

/**
 * The dashboard at scale in Debian's Chromium, each on the packaged jar of its own: a 1,000-node
 * overview and a 100,000-task array's page. Their scripts time what a user waits for (the array's
 * summary within 1 s, say), so they run alone, with no other test class beside them.
 */
@Isolated
class DashboardAtScaleIntegrationTests {

    private static final String ARRAYS_DATABASE = "gantry_dashboard_arrays";
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

    /**
     * An array's page at scale (frontend/e2e/arrays.mjs): the packaged jar on a PostgreSQL database of
     * its own (as a cluster runs it) and the demo cluster, allowing 100,000 tasks to an array. A 100,000-task
     * array, 40 tasks at a time churning, shows its summary within 1 s and its first page of tasks within
     * 2 s, and its page asks fewer than 10 times in 30 s while following the churn; its tasks filter by
     * state, exit code and node; a failed array's tasks are resubmitted from its page.
     */
    @Test
    void aHundredThousandTaskArraysPageIsQuickAndQuiet(@TempDir Path dataDir) throws Exception {
        BrowserScript.assumeChromium();
        TestDatabase db = TestDatabase.isolated(ARRAYS_DATABASE);
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--spring.profiles.active=postgres",
                "--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.username(),
                "--spring.datasource.password=" + db.password(), "--gantry.jobs.max-array-size=100001",
                "--server.shutdown=immediate")) {
            controller.start();
            BrowserScript.run(Path.of("target", "e2e-arrays.log"), 6, BrowserScript.script("arrays.mjs").toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        } finally {
            TestDatabase.drop(ARRAYS_DATABASE);
        }
    }
}
