package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.gpus.GpuSamples;
import io.gantry.support.AgentProcess;
import io.gantry.support.ApiClient;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.TestDatabase;

/**
 * The dashboard as users meet it: served by the controller at '/', driven in Debian's Chromium
 * by frontend/e2e/run.mjs (playwright-core). Its typed client is generated at every build from
 * src/main/openapi/gantry.json, which SdkIntegrationTests keeps equal to the live document.
 */
@GantryIntegrationTest
class DashboardIntegrationTests {

    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final Path SCRIPT = Path.of("frontend", "e2e", "run.mjs");
    private static final Path VIEWS_SCRIPT = Path.of("frontend", "e2e", "views.mjs");
    private static final Path SCALE_SCRIPT = Path.of("frontend", "e2e", "scale.mjs");
    private static final Path OUTPUT_SCRIPT = Path.of("frontend", "e2e", "output.mjs");
    private static final Path GPU_SCRIPT = Path.of("frontend", "e2e", "gpu.mjs");
    private static final Path ARRAYS_SCRIPT = Path.of("frontend", "e2e", "arrays.mjs");
    private static final Path WHY_SCRIPT = Path.of("frontend", "e2e", "why.mjs");
    private static final Path ADMIN_SCRIPT = Path.of("frontend", "e2e", "admin.mjs");
    private static final Path SUBMIT_SCRIPT = Path.of("frontend", "e2e", "submit.mjs");
    private static final Path BULK_SCRIPT = Path.of("frontend", "e2e", "bulk.mjs");
    private static final Path MYWORK_SCRIPT = Path.of("frontend", "e2e", "mywork.mjs");
    private static final String ARRAYS_DATABASE = "gantry_dashboard_arrays";
    private static final String JOIN_TOKEN = "dashboard-output-join-token-0123456789";
    private static final Path SCALE_CLUSTER = Path.of("src", "test", "resources", "dashboard-scale-cluster.yml");
    private static final int SCALE_NODES = 1000;

    @LocalServerPort
    int port;

    @org.springframework.beans.factory.annotation.Autowired
    GpuSamples gpuSamples;

    @Test
    void theDashboardPassesItsEndToEndRunInChromium() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "the dashboard's end-to-end tests need Debian's Chromium at " + CHROMIUM + ": apt-get install -y chromium");
        assertThat(SCRIPT).as("the end-to-end script").exists();
        HttpResponse<String> index = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).header("Accept", "text/html").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(index.statusCode()).as("GET / serves the dashboard (build it: ./mvnw without -DskipFrontend)").isEqualTo(200);
        assertThat(index.body()).contains("<div id=\"root\">");

        runNode(Path.of("target", "e2e.log"), 5, SCRIPT.toString(), "http://127.0.0.1:" + port,
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        assertThat(VIEWS_SCRIPT).as("the views end-to-end script").exists();
        runNode(Path.of("target", "e2e-views.log"), 8, VIEWS_SCRIPT.toString(), "http://127.0.0.1:" + port,
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
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
        runNode(Path.of("target", "e2e-gpu.log"), 2, GPU_SCRIPT.toString(), "http://127.0.0.1:" + port,
                Long.toString(id), "40.0", "80.0", Path.of("target", "screenshots").toString());
    }

    /**
     * The packaged jar on a 1,000-node simulated cluster (embedded store, a data directory of its
     * own, so the shared context's cluster is untouched): the overview draws every node, grouped
     * by block and leaf switch, compact enough to read, and fits a phone.
     */
    @Test
    void theOverviewDrawsAThousandNodeCluster(@TempDir Path dataDir) throws Exception {
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        // Immediate shutdown: the browser's /events stream would otherwise hold a graceful one for 30 s.
        try (ControllerProcess controller = new ControllerProcess(dataDir,
                "--spring.config.additional-location=file:" + SCALE_CLUSTER.toAbsolutePath(), "--server.shutdown=immediate")) {
            controller.start();
            assertThat(controller.api().get("/api/v1/nodes?size=1", controller.api().adminToken()).json()
                    .get("total").asInt()).as("nodes of %s", SCALE_CLUSTER).isEqualTo(SCALE_NODES);
            runNode(Path.of("target", "e2e-scale.log"), 2, SCALE_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        TestDatabase db = TestDatabase.isolated(ARRAYS_DATABASE);
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--spring.profiles.active=postgres",
                "--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.username(),
                "--spring.datasource.password=" + db.password(), "--gantry.jobs.max-array-size=100001",
                "--server.shutdown=immediate")) {
            controller.start();
            runNode(Path.of("target", "e2e-arrays.log"), 6, ARRAYS_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        } finally {
            TestDatabase.drop(ARRAYS_DATABASE);
        }
    }

    /**
     * Why-pending in the browser for the hardest waits (frontend/e2e/why.mjs): the packaged jar on the demo
     * cluster, a data directory of its own (so no other test's job can change a reason). A job waiting for a
     * maintenance window, for its guarantee's reclaim, on a busy -w node and for its begin time: each page
     * names its reason in words.
     */
    @Test
    void aJobsPageSaysInWordsWhyItWaitsForMaintenanceReclaimABusyNodeOrItsBeginTime(@TempDir Path dataDir) throws Exception {
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--server.shutdown=immediate")) {
            controller.start();
            runNode(Path.of("target", "e2e-why.log"), 4, WHY_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        }
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--server.shutdown=immediate")) {
            controller.start();
            runNode(Path.of("target", "e2e-bulk.log"), 4, BULK_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        }
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--server.shutdown=immediate")) {
            controller.start();
            runNode(Path.of("target", "e2e-admin.log"), 4, ADMIN_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        }
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--server.shutdown=immediate")) {
            controller.start();
            runNode(Path.of("target", "e2e-submit.log"), 4, SUBMIT_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        }
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
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        try (ControllerProcess controller = new ControllerProcess(dataDir, "--server.shutdown=immediate")) {
            controller.start();
            runNode(Path.of("target", "e2e-mywork.log"), 4, MYWORK_SCRIPT.toString(), "http://127.0.0.1:" + controller.port(),
                    Path.of("target", "screenshots").toString());
        }
    }

    /**
     * A real agent's job on its page (frontend/e2e/output.mjs): the packaged jar (embedded store, a
     * data directory of its own) with node1, run by a real agent process, and sim1, simulated. The
     * output panel shows the lines the job's bash script prints while it runs, updating, then its end;
     * the error tab its standard error; a job on sim1 says it has no output.
     */
    @Test
    void aRealAgentsJobOutputShowsLiveOnItsPage(@TempDir Path dir) throws Exception {
        assertThat(Files.isExecutable(CHROMIUM)).as("Debian's Chromium at %s", CHROMIUM).isTrue();
        Path cluster = dir.resolve("cluster.yml");
        // eight CPUs, so that the eight jobs the tabs step opens run at once
        Files.writeString(cluster, ClusterYaml.oneRealAndOneSimulatedNode("dashboard-output", 8, 4000, JOIN_TOKEN));
        Path data = Files.createDirectories(dir.resolve("controller"));
        Path work = Files.createDirectories(dir.resolve("jobs"));
        try (ControllerProcess controller = new ControllerProcess(data,
                "--spring.config.additional-location=file:" + cluster.toAbsolutePath(), "--server.shutdown=immediate")) {
            ApiClient api = controller.start().api();
            String admin = api.adminToken();
            try (AgentProcess agent = AgentProcess.start(controller.port(), JOIN_TOKEN, "node1", 8, 4000,
                    dir.resolve("agent"), dir.resolve("agent.log"))) {
                api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
                runNode(Path.of("target", "e2e-output.log"), 5, OUTPUT_SCRIPT.toString(),
                        "http://127.0.0.1:" + controller.port(), work.toString(), Path.of("target", "screenshots").toString());
            }
        }
    }

    private static void runNode(Path log, int minutes, String... args) throws Exception {
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
