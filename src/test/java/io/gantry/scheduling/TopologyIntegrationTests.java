package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.OwnCluster;
import tools.jackson.databind.JsonNode;

/**
 * The switch tree and flexible shapes as a user meets them, through the packaged controller on
 * PostgreSQL: a cluster of two pods under a spine, each pod two leaves of two nodes. A job lands under
 * the lowest switch that holds it; {@code --switches=N@wait} keeps a job waiting (TopologyWait) for N
 * leaves, or lets it take more at once when it will not wait; {@code -N min-max} starts on what is
 * free and {@code --time-min} starts a job in a hole its full limit would not fit; a job of
 * {@code --exclusive=topo} waits for a whole block (TopologyWait), then has it to itself, and the job
 * and the nodes say which block they are in.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TopologyIntegrationTests {

    private static final String DATABASE = "gantry_topology_it_" + ProcessHandle.current().pid();

    /** Leaf of each node, as the cluster file below lays them out. */
    private static final Map<String, String> LEAF = Map.of("n1", "leafA", "n2", "leafA", "n3", "leafB", "n4", "leafB",
            "n5", "leafC", "n6", "leafC", "n7", "leafD", "n8", "leafD");
    private static final Map<String, String> POD = Map.of("leafA", "pod1", "leafB", "pod1", "leafC", "pod2",
            "leafD", "pod2");

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ApiClient api;
    private String admin;
    private SimulatedJobs jobs;

    @BeforeAll
    void startController() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: topology
                    nodes:
                      - names: n[1-8]
                        cpus: 4
                        memory-mb: 8000
                        simulated: true
                    partitions:
                      - name: sim
                        nodes: n[1-8]
                        default: true
                        default-time: "10:00"
                    switches:
                      - name: spine
                      - name: pod1
                        parent: spine
                      - name: pod2
                        parent: spine
                      - name: leafA
                        parent: pod1
                        nodes: n[1-2]
                      - name: leafB
                        parent: pod1
                        nodes: n[3-4]
                      - name: leafC
                        parent: pod2
                        nodes: n[5-6]
                      - name: leafD
                        parent: pod2
                        nodes: n[7-8]
                    blocks:
                      - name: b1
                        nodes: n[1-4]
                      - name: b2
                        nodes: n[5-8]
                    block-sizes: [2, 4]
                  agents:
                    default-partitions: [sim]
                """);
        api = cluster.startController("controller").api();
        admin = api.adminToken();
        jobs = new SimulatedJobs(api, admin);
    }

    @AfterEach
    void cancelWhatWasSubmitted() {
        jobs.cancelAll();
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aJobLandsUnderTheLowestSwitchThatHoldsIt() {
        // n1 busy: leafA has one node left, so a two-node job takes a whole leaf elsewhere, and a
        // three-node job stays inside one pod rather than spreading over both.
        long busy = submit(Map.of("nodes", 1, "exclusive", true, "nodelist", "n1"));
        api.awaitJobState(busy, admin, "RUNNING", Duration.ofSeconds(30));

        long two = submit(Map.of("nodes", 2, "exclusive", true));
        Set<String> twoLeaves = leaves(api.awaitJobState(two, admin, "RUNNING", Duration.ofSeconds(30)));
        assertThat(twoLeaves).hasSize(1);

        long three = submit(Map.of("nodes", 3, "exclusive", true));
        JsonNode running = api.awaitJobState(three, admin, "RUNNING", Duration.ofSeconds(30));
        Set<String> pods = leaves(running).stream().map(POD::get).collect(Collectors.toSet());
        assertThat(pods).as("three nodes under one pod: %s", running.get("allocatedNodes")).hasSize(1);
    }

    @Test
    void aJobWaitsForTheLeavesItAskedForAndSaysSo() {
        // Three nodes never fit in one leaf of two: with a wait it stays pending, saying why.
        long waiting = submit(Map.of("nodes", 3, "exclusive", true, "script",
                "#!/bin/bash\n#SBATCH --switches=1@5:00\ntrue\n"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode job = api.get("/api/v1/jobs/" + waiting, admin).json();
            assertThat(job.get("state").asString()).isEqualTo("PENDING");
            assertThat(job.get("reason").asString()).isEqualTo("TopologyWait");
        });
        assertThat(api.get("/api/v1/jobs/" + waiting, admin).json().get("switches").asString()).isEqualTo("1@300");

        // Two leaves hold it: it starts at once, on no more than two.
        long two = submit(Map.of("nodes", 3, "exclusive", true, "switches", "2"));
        assertThat(leaves(api.awaitJobState(two, admin, "RUNNING", Duration.ofSeconds(30)))).hasSizeLessThanOrEqualTo(2);
    }

    @Test
    void aJobThatWillNotWaitTakesMoreLeavesAtOnce() {
        long now = submit(Map.of("nodes", 3, "exclusive", true, "switches", "1@0"));
        JsonNode running = api.awaitJobState(now, admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(leaves(running)).hasSize(2);
        assertThat(running.get("switches").asString()).isEqualTo("1@0");
    }

    @Test
    void aJobOfTwoToEightNodesStartsOnTheFiveThatAreFree() {
        for (String node : List.of("n1", "n2", "n3")) {
            api.awaitJobState(submit(Map.of("nodes", 1, "exclusive", true, "nodelist", node)), admin, "RUNNING",
                    Duration.ofSeconds(30));
        }
        long flexible = submit(Map.of("exclusive", true, "script", "#!/bin/bash\n#SBATCH -N 2-8\ntrue\n"));
        JsonNode running = api.awaitJobState(flexible, admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(running.get("allocation")).hasSize(5);
        assertThat(running.get("maxNodes").asInt()).isEqualTo(8);
    }

    @Test
    void aJobWithATimeMinStartsInAHoleItsFullLimitWouldNotFit() {
        // Half the nodes busy for 10 minutes, an 8-node job reserved behind them: a 30-minute job waits,
        // one that accepts 5 minutes starts now with the limit that ends before the reservation.
        long half = submit(Map.of("nodes", 4, "exclusive", true, "timeLimitSeconds", 600));
        api.awaitJobState(half, admin, "RUNNING", Duration.ofSeconds(30));
        long whole = submit(Map.of("nodes", 8, "exclusive", true, "timeLimitSeconds", 600));
        long rigid = submit(Map.of("nodes", 1, "exclusive", true, "timeLimitSeconds", 1800));
        long flexible = submit(Map.of("nodes", 1, "exclusive", true, "script",
                "#!/bin/bash\n#SBATCH -t 30:00 --time-min=5\ntrue\n"));

        JsonNode started = api.awaitJobState(flexible, admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(started.get("timeLimitSeconds").asLong()).isBetween(300L, 600L);
        assertThat(started.get("timeMinSeconds").asLong()).isEqualTo(300);
        JsonNode waiting = api.get("/api/v1/jobs/" + rigid, admin).json();
        assertThat(waiting.get("state").asString()).isEqualTo("PENDING");
        assertThat(api.get("/api/v1/jobs/" + whole, admin).json().get("state").asString()).isEqualTo("PENDING");

        Response tooLong = api.send("POST", "/api/v1/jobs", admin, job(Map.of("timeLimitSeconds", 600,
                "timeMinSeconds", 900)));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.json().get("errors").get(0).get("field").asString()).isEqualTo("timeMinSeconds");
    }

    @Test
    void segmentsKeepEachGroupOfNodesInOneBlock() {
        // n1 and n5 busy: six nodes are free, three in each block. Four nodes in one block must wait,
        // saying why; four in groups of two start at once, one group in each block.
        for (String node : List.of("n1", "n5")) {
            api.awaitJobState(submit(Map.of("nodes", 1, "exclusive", true, "nodelist", node)), admin, "RUNNING",
                    Duration.ofSeconds(30));
        }
        long whole = submit(Map.of("nodes", 4, "exclusive", true, "script",
                "#!/bin/bash\n#SBATCH --segment=4\ntrue\n"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode job = api.get("/api/v1/jobs/" + whole, admin).json();
            assertThat(job.get("reason").asString()).isEqualTo("TopologyWait");
            assertThat(job.get("segment").asInt()).isEqualTo(4);
        });

        // Short enough to backfill before the whole-block job's reservation, which starts when n1 or n5 frees.
        long pairs = submit(Map.of("nodes", 4, "exclusive", true, "segment", 2, "timeLimitSeconds", 60));
        JsonNode running = api.awaitJobState(pairs, admin, "RUNNING", Duration.ofSeconds(30));
        Map<String, Long> perBlock = running.get("allocation").valueStream()
                .collect(Collectors.groupingBy(a -> Integer.parseInt(a.get("node").asString().substring(1)) <= 4
                        ? "b1" : "b2", Collectors.counting()));
        assertThat(perBlock).containsEntry("b1", 2L).containsEntry("b2", 2L);

        Response uneven = api.send("POST", "/api/v1/jobs", admin, job(Map.of("nodes", 4, "segment", 3)));
        assertThat(uneven.status()).isEqualTo(400);
        assertThat(uneven.json().get("errors").get(0).get("field").asString()).isEqualTo("segment");
        Response never = api.send("POST", "/api/v1/jobs", admin, job(Map.of("nodes", 6, "segment", 6)));
        assertThat(never.status()).as("no block holds six nodes").isEqualTo(400);
    }

    @Test
    void aTopoJobWaitsForAWholeBlockAndThenHasItToItself() {
        long n1 = submit(Map.of("nodes", 1, "exclusive", true, "nodelist", "n1"));
        long n5 = submit(Map.of("nodes", 1, "exclusive", true, "nodelist", "n5"));
        api.awaitJobState(n1, admin, "RUNNING", Duration.ofSeconds(30));
        api.awaitJobState(n5, admin, "RUNNING", Duration.ofSeconds(30));

        // Six nodes are free, three in each block, but no block is whole.
        long topo = submit(Map.of("nodes", 2, "script", "#!/bin/bash\n#SBATCH --exclusive=topo\ntrue\n"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode job = api.get("/api/v1/jobs/" + topo, admin).json();
            assertThat(job.get("state").asString()).isEqualTo("PENDING");
            assertThat(job.get("reason").asString()).isEqualTo("TopologyWait");
            assertThat(job.get("exclusiveMode").asString()).isEqualTo("topo");
            assertThat(job.get("exclusive").asBoolean()).isTrue();
            assertThat(job.get("blocks")).isEmpty();
        });

        api.send("DELETE", "/api/v1/jobs/" + n5, admin, null);
        JsonNode running = api.awaitJobState(topo, admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(running.get("blocks").valueStream().map(JsonNode::asString).toList()).containsExactly("b2");
        assertThat(running.get("allocation")).hasSize(2);

        // Four one-node jobs: three fill what b1 has left; the fourth waits though two nodes of b2 are idle.
        List<Long> small = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            small.add(submit(Map.of("nodes", 1, "exclusive", true)));
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<JsonNode> jobs = small.stream().map(id -> api.get("/api/v1/jobs/" + id, admin).json()).toList();
            assertThat(jobs).filteredOn(j -> j.get("state").asString().equals("RUNNING")).hasSize(3)
                    .allSatisfy(j -> assertThat(j.get("blocks").valueStream().map(JsonNode::asString).toList())
                            .containsExactly("b1"));
            assertThat(jobs).filteredOn(j -> j.get("state").asString().equals("PENDING")).hasSize(1);
        });

        JsonNode nodes = api.get("/api/v1/nodes", admin).json().get("items");
        Map<String, String> blockOf = nodes.valueStream().collect(Collectors.toMap(n -> n.get("name").asString(),
                n -> n.get("block").asString()));
        assertThat(blockOf).containsEntry("n1", "b1").containsEntry("n4", "b1").containsEntry("n5", "b2")
                .containsEntry("n8", "b2");
        JsonNode topology = api.get("/api/v1/topology", admin).json();
        assertThat(topology.get("blockSizes").valueStream().map(JsonNode::asInt).toList()).containsExactly(2, 4);
        assertThat(topology.get("baseBlockSize").asInt()).isEqualTo(2);
    }

    @Test
    void aBadExclusiveModeIsRefusedNamingTheFieldOrLine() {
        Response json = api.send("POST", "/api/v1/jobs", admin, job(Map.of("exclusiveMode", "block")));
        assertThat(json.status()).isEqualTo(400);
        assertThat(json.json().get("errors").get(0).get("field").asString()).isEqualTo("exclusiveMode");
        assertThat(json.json().get("errors").get(0).get("message").asString()).contains("user, mcs or topo");

        Response conflicting = api.send("POST", "/api/v1/jobs", admin, job(Map.of("exclusiveMode", "topo",
                "exclusive", false)));
        assertThat(conflicting.status()).isEqualTo(400);
        assertThat(conflicting.json().get("errors").get(0).get("field").asString()).isEqualTo("exclusive");

        Response directive = api.send("POST", "/api/v1/jobs", admin,
                job(Map.of("script", "#!/bin/bash\n#SBATCH --exclusive=blocks\ntrue\n")));
        assertThat(directive.status()).isEqualTo(400);
        assertThat(directive.json().get("errors").get(0).get("field").asString()).isEqualTo("script:2");
        assertThat(directive.body()).contains("'blocks' is not user, mcs or topo");
    }

    @Test
    void aBadSwitchesValueIsRefusedNamingTheField() {
        for (Object bad : List.of("0", "two", "1@soon", "1@UNLIMITED")) {
            Map<String, Object> job = job(Map.of("switches", bad));
            Response refused = api.send("POST", "/api/v1/jobs", admin, job);
            assertThat(refused.status()).as("switches %s", bad).isEqualTo(400);
            assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("switches");
        }
        Response directive = api.send("POST", "/api/v1/jobs", admin,
                job(Map.of("script", "#!/bin/bash\n#SBATCH --switches=-1\ntrue\n")));
        assertThat(directive.status()).isEqualTo(400);
        assertThat(directive.body()).contains("switches");
    }

    private Set<String> leaves(JsonNode job) {
        return job.get("allocation").valueStream().map(a -> LEAF.get(a.get("node").asString()))
                .collect(Collectors.toSet());
    }

    private long submit(Map<String, Object> fields) {
        return jobs.submit(fields);
    }

    private static Map<String, Object> job(Map<String, Object> fields) {
        return SimulatedJobs.job(fields);
    }
}
