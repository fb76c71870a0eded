package io.gantry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.AgentProcess;
import io.gantry.support.ApiClient;
import io.gantry.support.BrowserScript;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OnTheNode;
import io.gantry.support.TestLocks;

/**
 * The dashboard's scenario with a real agent, in Debian's Chromium: it uses this machine as a node
 * ({@link TestLocks#NODE}). Apart from {@link DashboardJarIntegrationTests}, which needs no node, so that
 * the two pack into the test run's lanes on their own.
 */
@OnTheNode
class DashboardAgentIntegrationTests {

    private static final String JOIN_TOKEN = "dashboard-output-join-token-0123456789";

    /**
     * A real agent's job on its page (frontend/e2e/output.mjs): the packaged jar (embedded store, a
     * data directory of its own) with node1, run by a real agent process, and sim1, simulated. The
     * output panel shows the lines the job's bash script prints while it runs, updating, then its end;
     * the error tab its standard error; a job on sim1 says it has no output.
     */
    @Test
    void aRealAgentsJobOutputShowsLiveOnItsPage(@TempDir Path dir) throws Exception {
        BrowserScript.assumeChromium();
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
                try {
                    BrowserScript.run(Path.of("target", "e2e-output.log"), 5, BrowserScript.script("output.mjs").toString(),
                            "http://127.0.0.1:" + controller.port(), work.toString(),
                            Path.of("target", "screenshots").toString());
                } catch (AssertionError e) {
                    // the temporary directory goes with the test: keep what the controller and agent said
                    Files.copy(data.resolve("controller.log"), Path.of("target", "e2e-output-controller.log"),
                            StandardCopyOption.REPLACE_EXISTING);
                    Files.copy(dir.resolve("agent.log"), Path.of("target", "e2e-output-agent.log"),
                            StandardCopyOption.REPLACE_EXISTING);
                    throw e;
                }
            }
        }
    }
}
