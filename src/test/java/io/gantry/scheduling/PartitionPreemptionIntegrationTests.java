package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.gantry.support.ApiClient;
import io.gantry.support.OwnDatabase;
import tools.jackson.databind.JsonNode;

/**
 * PreemptType=preempt/partition_prio end to end through the REST API on real PostgreSQL and the simulated
 * cpu nodes: {@code scavenger} (PriorityTier 0, PreemptMode CANCEL) on cpu[001-004], {@code cpu} (tier 1,
 * REQUEUE) and {@code urgent} (tier 2) on all eight. A job of {@code urgent} starts at once on a full
 * partition by stopping the lowest tier first: a scavenger job ends PREEMPTED; a bigger one then also
 * requeues cpu jobs; each victim's history names its preemptor and the partitions' tiers, and the urgent
 * jobs themselves (the highest tier) are never touched.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "gantry.cluster.preempt-type=preempt/partition_prio",
        "gantry.cluster.partitions[0].name=gpu", "gantry.cluster.partitions[0].nodes=gpu[001-016]",
        "gantry.cluster.partitions[0].default=true", "gantry.cluster.partitions[0].priority-tier=1",
        "gantry.cluster.partitions[0].default-mem-per-cpu=8000",
        "gantry.cluster.partitions[1].name=cpu", "gantry.cluster.partitions[1].nodes=cpu[001-008]",
        "gantry.cluster.partitions[1].priority-tier=1", "gantry.cluster.partitions[1].default-mem-per-cpu=4000",
        "gantry.cluster.partitions[1].preempt-mode=REQUEUE",
        "gantry.cluster.partitions[2].name=scavenger", "gantry.cluster.partitions[2].nodes=cpu[001-004]",
        "gantry.cluster.partitions[2].priority-tier=0", "gantry.cluster.partitions[2].default-mem-per-cpu=4000",
        "gantry.cluster.partitions[2].preempt-mode=cancel",
        "gantry.cluster.partitions[3].name=urgent", "gantry.cluster.partitions[3].nodes=cpu[001-008]",
        "gantry.cluster.partitions[3].priority-tier=2", "gantry.cluster.partitions[3].default-mem-per-cpu=4000",
        "gantry.cluster.partitions[3].preempt-mode=OFF"})
@ActiveProfiles("postgres")
@DirtiesContext
class PartitionPreemptionIntegrationTests {

    private static final String DATABASE = "gantry_partition_prio_it_" + ProcessHandle.current().pid();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @Test
    void aHigherTierJobStopsTheLowestTierFirstEachVictimAsItsPartitionSaysAndNamesItself() {
        api = new ApiClient(port);
        admin = api.adminToken();
        JsonNode config = api.get("/api/v1/config", admin).json();
        assertThat(config.get("preemptType").asString()).isEqualTo("preempt/partition_prio");
        assertThat(api.get("/api/v1/partitions/scavenger", admin).json().get("preemptMode").asString())
                .isEqualTo("CANCEL");
        assertThat(api.get("/api/v1/partitions/cpu", admin).json().get("preemptMode").asString()).isEqualTo("REQUEUE");

        List<Long> scavengers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            scavengers.add(submit("scavenger", 1));
        }
        scavengers.forEach(id -> api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60)));
        List<Long> cpus = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            cpus.add(submit("cpu", 1));
        }
        cpus.forEach(id -> api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60)));

        // One node: one scavenger job (tier 0) goes, cancelled as its partition says; no cpu job (tier 1) is touched.
        long first = submit("urgent", 1);
        api.awaitJobState(first, admin, "RUNNING", Duration.ofSeconds(30));
        List<Long> preempted = await().atMost(Duration.ofSeconds(30)).until(
                () -> scavengers.stream().filter(id -> state(id).equals("PREEMPTED")).toList(), l -> !l.isEmpty());
        assertThat(preempted).hasSize(1);
        String history = api.get("/api/v1/jobs/" + preempted.get(0) + "/events", admin).body();
        assertThat(history).contains("preempted by job " + first,
                "partition urgent (PriorityTier 2) may preempt partition scavenger (PriorityTier 0)");
        assertThat(cpus).allMatch(id -> state(id).equals("RUNNING"));

        // Five nodes: the three scavenger jobs left and two cpu jobs (requeued, as cpu says); never the urgent one.
        long second = submit("urgent", 5);
        api.awaitJobState(second, admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(state(first)).isEqualTo("RUNNING");
        assertThat(scavengers).allMatch(id -> state(id).equals("PREEMPTED"));
        List<Long> requeued = cpus.stream()
                .filter(id -> api.get("/api/v1/jobs/" + id, admin).json().get("requeueCount").asInt() == 1).toList();
        assertThat(requeued).hasSize(2);
        for (long id : requeued) {
            assertThat(state(id)).isEqualTo("PENDING");
            assertThat(api.get("/api/v1/jobs/" + id + "/events", admin).body()).contains("REQUEUED",
                    "preempted by job " + second, "partition urgent (PriorityTier 2) may preempt partition cpu (PriorityTier 1)");
        }
        assertThat(cpus.stream().filter(id -> !requeued.contains(id))).allMatch(id -> state(id).equals("RUNNING"));
    }

    private long submit(String partition, int nodes) {
        return api.submitJob(admin, Map.of("name", "prio-" + partition, "partition", partition, "nodes", nodes,
                "exclusive", true, "timeLimitSeconds", 1800, "simulatedRunSeconds", 1200));
    }

    private String state(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
    }
}
