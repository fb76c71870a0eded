package io.gantry;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

import io.gantry.support.BrowserScript;
import io.gantry.support.ControllerProcess;
import io.gantry.support.TestDatabase;
import io.gantry.support.TestLocks;

/**
 * A 100,000-task array's page in Debian's Chromium, on the packaged jar of its own. Its script times what a
 * user waits for (the array's summary within 1 s, say), so it holds {@link TestLocks#QUIET}: no class that keeps
 * the cores busy for minutes (browsers, MPI, fuzzing, the node's classes) runs beside it, only short ones and
 * the timers of those that hold the node. The 1,000-node overview, whose limit is ten times what it takes, is
 * {@link DashboardOverviewAtScaleIntegrationTests}.
 */
@ResourceLock(TestLocks.QUIET)
class DashboardAtScaleIntegrationTests {

    private static final String ARRAYS_DATABASE = "gantry_dashboard_arrays";

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
        TestDatabase db = TestDatabase.migrated(ARRAYS_DATABASE);
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
