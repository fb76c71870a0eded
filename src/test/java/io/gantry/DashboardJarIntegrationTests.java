package io.gantry;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.BrowserScript;
import io.gantry.support.ControllerProcess;
import io.gantry.support.StartEarly;

/**
 * The dashboard's scenarios that need a controller of their own, in Debian's Chromium: the packaged
 * jar on a data directory (or a database) of its own, so what a script drains, reserves or submits
 * touches no other test, and these run beside the classes that share the test Spring context. The
 * two that time the dashboard at scale are in {@link DashboardAtScaleIntegrationTests}, the one with a real
 * agent in {@link DashboardAgentIntegrationTests}.
 */
@StartEarly("five browser scenarios, each on a packaged controller of its own")
class DashboardJarIntegrationTests {

    /**
     * Why-pending in the browser for the hardest waits (frontend/e2e/why.mjs): the packaged jar on the demo
     * cluster, a data directory of its own (so no other test's job can change a reason). A job waiting for a
     * maintenance window, for its guarantee's reclaim, on a busy -w node and for its begin time: each page
     * names its reason in words.
     */
    @Test
    void aJobsPageSaysInWordsWhyItWaitsForMaintenanceReclaimABusyNodeOrItsBeginTime(@TempDir Path dataDir) throws Exception {
        onTheDemoCluster(dataDir, "why");
    }

    /**
     * Bulk drain by hostlist and the undo window (frontend/e2e/bulk.mjs): the packaged jar on the demo cluster,
     * a data directory of its own (its drained nodes touch no other test). An OPERATOR drains cpu[006-008] in
     * one go (asked first, Cancel keeps them; an unknown name in the list drains none), sees them drained
     * through the API and Undo brings them back IDLE; a held pending job's Undo releases it; cancelling a job
     * says it cannot be undone.
     */
    @Test
    void anOperatorDrainsAHostlistInOneGoAndUndoesItAndAHold(@TempDir Path dataDir) throws Exception {
        onTheDemoCluster(dataDir, "bulk");
    }

    /**
     * Admins can act (frontend/e2e/admin.mjs): the packaged jar on the demo cluster, a data directory of its
     * own (its partition drained and reservations made touch no other test). As an ADMIN in the browser a
     * QOS is created, two limits, its GrpWall and NoDecay edited and it is deleted; a partition drained and
     * set UP; a partition's QOS chosen and cleared; a MAINT reservation made, lengthened and deleted; an
     * account's guarantee and borrow and lend limits set; each read back from the API, each destructive
     * action asked first (Cancel and Escape keep it), each listed in the audit view, and a bad TRES string,
     * a GrpWall that is not whole seconds and a partition QOS deleted meanwhile refused at their fields with
     * nothing stored.
     */
    @Test
    void anAdminsEditsRoundTripThroughTheDashboardAndDestructiveOnesAskFirst(@TempDir Path dataDir) throws Exception {
        onTheDemoCluster(dataDir, "admin");
    }

    /**
     * The submit form in one round (frontend/e2e/submit.mjs): the packaged jar on the demo cluster, a data
     * directory of its own. A user with two associations picks from exactly their accounts and QOS, the
     * default marked; a script with no #! on line 1, an unknown partition on line 2 and a bad --time on line
     * 3 shows all three at their lines after one click of Submit (one request, no job created); the fixed
     * script's "When would it start?" gives a start and nodes; Submit lands on the job's page, charged to the
     * account and QOS picked.
     */
    @Test
    void theSubmitFormShowsEveryMistakeAtItsLineInOneRoundAndSaysWhenAJobWouldStart(@TempDir Path dataDir) throws Exception {
        onTheDemoCluster(dataDir, "submit");
    }

    /**
     * The landing page and the node marks in the browser (frontend/e2e/mywork.mjs, issue 34 items 3 and 8):
     * the packaged jar on the demo cluster, a data directory of its own (so no other test's job fails on
     * its nodes). A user lands on their work with a running job, an array as one row and a failure listed;
     * an admin's jobs list is everyone's; a reserved node names its reservation, a node with maintenance
     * coming says when, a drained node says who drained it and when, and a node that failed its jobs is
     * marked failing.
     */
    @Test
    void aUserLandsOnTheirWorkAndTheNodesSayWhatTheirStateDoesNot(@TempDir Path dataDir) throws Exception {
        onTheDemoCluster(dataDir, "mywork");
    }

    /**
     * Runs frontend/e2e/{@code name}.mjs against the packaged jar on the demo cluster, a data directory of its
     * own. Immediate shutdown: the browser's /events stream would otherwise hold a graceful one for 30 s.
     */
    private static void onTheDemoCluster(Path dataDir, String name) throws Exception {
        BrowserScript.assumeChromium();
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--server.shutdown=immediate")) {
            controller.start();
            BrowserScript.run(Path.of("target", "e2e-" + name + ".log"), 4, BrowserScript.script(name + ".mjs").toString(),
                    "http://127.0.0.1:" + controller.port(), Path.of("target", "screenshots").toString());
        }
    }
}
