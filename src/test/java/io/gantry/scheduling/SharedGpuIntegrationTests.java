package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * Shared GPUs as a user meets them, through the packaged controller on PostgreSQL: node {@code m1} has
 * three 1g.10gb MIG instances and one 3g.40gb, node {@code s1} two whole GPUs of four shards each. A MIG
 * job gets an instance of its profile and no instance is given twice; shard jobs fill a GPU up to its
 * four shards and never beyond; a GPU with shards in use is not given whole; what no node could ever
 * give is refused with a 400 naming the field.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedGpuIntegrationTests {

    private static final String DATABASE = "wt_sharedgpu_it_" + ProcessHandle.current().pid();

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
                    name: shared
                    nodes:
                      - names: m1
                        cpus: 16
                        memory-mb: 64000
                        mig: "gpu:1g.10gb:3,3g.40gb:1"
                        simulated: true
                      - names: s1
                        cpus: 16
                        memory-mb: 64000
                        gpus: 2
                        gpu-type: a100
                        shards-per-gpu: 4
                        simulated: true
                    partitions:
                      - name: sim
                        nodes: m1,s1
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 1000
                    switches:
                      - name: leaf1
                        nodes: m1,s1
                    blocks:
                      - name: block1
                        nodes: m1,s1
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
    void nodesShowTheirMigInstancesAndShards() {
        JsonNode m1 = api.get("/api/v1/nodes/m1", admin).json();
        List<String> profiles = new ArrayList<>();
        m1.get("migInstances").forEach(m -> profiles.add(m.get("profile").asString()));
        assertThat(profiles).containsExactly("1g.10gb", "1g.10gb", "1g.10gb", "3g.40gb");
        assertThat(m1.get("gpus").asInt()).isZero();
        JsonNode s1 = api.get("/api/v1/nodes/s1", admin).json();
        assertThat(s1.get("shardsPerGpu").asInt()).isEqualTo(4);
        assertThat(s1.get("gpus").asInt()).isEqualTo(2);
    }

    @Test
    void migJobsGetDistinctInstancesOfTheirProfileAndTheRestWait() {
        List<Long> small = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            small.add(submit(Map.of("gpuType", "1g.10gb", "gpusPerNode", 1)));
        }
        long large = submit(Map.of("script", "#!/bin/bash\n#SBATCH --gres=gpu:3g.40gb:1\ntrue\n"));
        Set<Integer> held = new HashSet<>();
        for (long id : small.subList(0, 3)) {
            JsonNode alloc = api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(30)).get("allocation").get(0);
            assertThat(alloc.get("node").asString()).isEqualTo("m1");
            assertThat(alloc.get("gpuIndices")).isEmpty();
            assertThat(alloc.get("migIndices")).hasSize(1);
            // Accounting charges a 1g.10gb instance as 1/7 of a GPU.
            assertThat(alloc.get("gpuMillis").asInt()).isEqualTo(143);
            int index = alloc.get("migIndices").get(0).asInt();
            assertThat(index).isBetween(0, 2);
            assertThat(held.add(index)).as("MIG instance %d given twice", index).isTrue();
        }
        JsonNode big = api.awaitJobState(large, admin, "RUNNING", Duration.ofSeconds(30)).get("allocation").get(0);
        assertThat(big.get("migIndices").get(0).asInt()).isEqualTo(3);
        // The fourth 1g.10gb job finds every instance of its profile busy (the 3g.40gb one is no substitute).
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode job = api.get("/api/v1/jobs/" + small.get(3), admin).json();
            assertThat(job.get("state").asString()).isEqualTo("PENDING");
            assertThat(job.get("reason").asString()).isEqualTo("Resources");
        });
        api.send("DELETE", "/api/v1/jobs/" + small.get(1), admin, null);
        JsonNode last = api.awaitJobState(small.get(3), admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(held).contains(last.get("allocation").get(0).get("migIndices").get(0).asInt());
    }

    @Test
    void shardsFillAGpuUpToItsCountAndAGpuInUseByShardsIsNotGivenWhole() {
        long a = submit(Map.of("shards", 3));
        long b = submit(Map.of("script", "#!/bin/bash\n#SBATCH --gres=shard:3\ntrue\n"));
        Map<Integer, Integer> perGpu = new HashMap<>();
        for (long id : List.of(a, b)) {
            JsonNode job = api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(30));
            assertThat(job.get("shards").asInt()).isEqualTo(3);
            JsonNode alloc = job.get("allocation").get(0);
            assertThat(alloc.get("node").asString()).isEqualTo("s1");
            assertThat(alloc.get("gpuIndices")).isEmpty();
            assertThat(alloc.get("gpuMillis").asInt()).isEqualTo(750);
            perGpu.merge(alloc.get("shardGpu").asInt(), alloc.get("shards").asInt(), Integer::sum);
        }
        // 3 + 3 shards do not fit one GPU of 4: each job has a GPU of its own.
        assertThat(perGpu).containsOnlyKeys(0, 1).containsValues(3, 3);
        long c = submit(Map.of("shards", 1));
        long d = submit(Map.of("shards", 1));
        for (long id : List.of(c, d)) {
            JsonNode alloc = api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(30)).get("allocation").get(0);
            perGpu.merge(alloc.get("shardGpu").asInt(), alloc.get("shards").asInt(), Integer::sum);
        }
        assertThat(perGpu).containsEntry(0, 4).containsEntry(1, 4);
        long more = submit(Map.of("shards", 1));
        long whole = submit(Map.of("gpusPerNode", 1));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (long id : List.of(more, whole)) {
                JsonNode job = api.get("/api/v1/jobs/" + id, admin).json();
                assertThat(job.get("state").asString()).as("job %d", id).isEqualTo("PENDING");
            }
        });
        // Once every shard job of a GPU ends, the GPU can be given whole again.
        api.send("DELETE", "/api/v1/jobs/" + more, admin, null);
        long onGpu = api.get("/api/v1/jobs/" + a, admin).json().get("allocation").get(0).get("shardGpu").asInt();
        for (long id : List.of(a, c, d)) {
            JsonNode alloc = api.get("/api/v1/jobs/" + id, admin).json().get("allocation").get(0);
            if (alloc.get("shardGpu").asInt() == onGpu) {
                api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
            }
        }
        JsonNode given = api.awaitJobState(whole, admin, "RUNNING", Duration.ofSeconds(30));
        assertThat(given.get("allocation").get(0).get("gpuIndices").get(0).asLong()).isEqualTo(onGpu);
    }

    @Test
    void whatNoNodeCouldGiveIsRefusedNamingTheField() {
        Response zero = api.send("POST", "/api/v1/jobs", admin, job(Map.of("shards", 0)));
        assertThat(zero.status()).isEqualTo(400);
        assertThat(zero.body()).contains("shards").contains("must be 1 to");
        Response directive = api.send("POST", "/api/v1/jobs", admin,
                job(Map.of("script", "#!/bin/bash\n#SBATCH --gres=shard:0\ntrue\n")));
        assertThat(directive.status()).isEqualTo(400);
        assertThat(directive.body()).contains("asks for no shard");
        Response unknown = api.send("POST", "/api/v1/jobs", admin, job(Map.of("gpuType", "7g.80gb", "gpusPerNode", 1)));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.contentType()).contains("application/problem+json");
        assertThat(unknown.json().get("errors").get(0).get("field").asString()).isEqualTo("gpuType");
        assertThat(unknown.body()).contains("no node in sim has GPUs of type '7g.80gb'");
        Response tooMany = api.send("POST", "/api/v1/jobs", admin, job(Map.of("shards", 5)));
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.body()).contains("at most 4");
        Response twoNodes = api.send("POST", "/api/v1/jobs", admin, job(Map.of("shards", 1, "nodes", 2)));
        assertThat(twoNodes.status()).isEqualTo(400);
        assertThat(twoNodes.body()).contains("are for a job on one node");
        Response both = api.send("POST", "/api/v1/jobs", admin, job(Map.of("shards", 1, "gpusPerNode", 1)));
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.body()).contains("not both");
        assertThat(api.get("/api/v1/jobs?state=PENDING", admin).json().get("items")).isEmpty();
    }

    private long submit(Map<String, Object> fields) {
        return jobs.submit(fields);
    }

    private static Map<String, Object> job(Map<String, Object> fields) {
        return SimulatedJobs.job(fields);
    }
}
