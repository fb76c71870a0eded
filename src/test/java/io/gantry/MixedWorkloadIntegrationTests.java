package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.StartEarly;
import tools.jackson.databind.JsonNode;

/**
 * 500 mixed jobs through the API of the embedded default (H2, demo cluster), with the controller
 * killed without warning half way: every accepted job survives and ends, and replaying every
 * job's allocation over time shows no node ever held more than it has.
 */
@StartEarly("a minute and a half of mixed jobs across a controller crash")
class MixedWorkloadIntegrationTests {

    private static final int JOBS = 500;
    private static final List<String> FINAL = List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
            "PREEMPTED", "OUT_OF_MEMORY");

    @TempDir
    Path dataDir;

    @Test
    void everyAcceptedJobEndsAndNoNodeIsEverOverCommittedAcrossACrash() throws Exception {
        try (ControllerProcess controller = new ControllerProcess(dataDir)) {
            ApiClient api = controller.start().api();
            String admin = api.token("admin", ApiClient.ADMIN_PASSWORD);
            SplittableRandom random = new SplittableRandom(42);
            List<String> accepted = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                if (i == JOBS / 2) {
                    controller.kill();
                    controller.start();
                    admin = api.token("admin", ApiClient.ADMIN_PASSWORD);
                }
                Response response = api.send("POST", "/api/v1/jobs", admin, mixedJob(i, random, accepted));
                assertThat(response.status()).as(response.body()).isEqualTo(201);
                long id = response.json().get("jobId").asLong();
                JsonNode tasks = response.json().get("arrayTaskIds");
                if (tasks == null || tasks.isNull()) {
                    accepted.add(Long.toString(id));
                } else {
                    tasks.valueStream().forEach(t -> accepted.add(id + "_" + t.asInt()));
                }
            }

            String token = admin;
            await().atMost(Duration.ofMinutes(8)).pollInterval(Duration.ofSeconds(2)).until(() ->
                    api.get("/api/v1/jobs?state=PENDING,RUNNING,COMPLETING&size=1", token).json()
                            .get("total").asInt() == 0);

            Map<String, JsonNode> jobs = new HashMap<>();
            for (int page = 0; ; page++) {
                JsonNode body = api.get("/api/v1/jobs?size=1000&page=" + page, token).json();
                body.get("items").valueStream().forEach(j -> jobs.put(j.get("id").asString(), j));
                if ((long) (page + 1) * 1000 >= body.get("total").asLong()) {
                    break;
                }
            }
            assertThat(jobs.keySet()).as("every job that got a 201 still exists").containsAll(accepted);
            for (String id : accepted) {
                assertThat(jobs.get(id).get("state").asString()).as("job %s", id).isIn(FINAL);
            }
            assertNoNodeOverCommitted(api, token, jobs.values());
        }
    }

    private static Map<String, Object> mixedJob(int i, SplittableRandom random, List<String> earlier) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", "mix-" + i);
        job.put("simulatedRunSeconds", 1 + random.nextInt(3));
        int kind = random.nextInt(10);
        if (kind < 6) {
            int[] sizes = {1, 1, 2, 2, 4, 8, 8, 16, 32, 64};
            job.put("partition", "gpu");
            job.put("gpus", sizes[random.nextInt(sizes.length)]);
        } else if (kind < 8) {
            job.put("partition", "cpu");
            job.put("tasks", 1 + random.nextInt(64));
            job.put("memoryMb", 1000L * (1 + random.nextInt(100)));
        } else if (kind < 9) {
            job.put("partition", "cpu");
            job.put("array", "0-" + (2 + random.nextInt(6)) + "%2");
        } else {
            job.put("partition", "gpu");
            job.put("gpusPerNode", 1 + random.nextInt(8));
            job.put("nodes", 1 + random.nextInt(2));
        }
        if (!earlier.isEmpty() && random.nextInt(8) == 0) {
            String before = earlier.get(random.nextInt(earlier.size()));
            job.put("dependency", "afterany:" + before);
        }
        if (random.nextInt(25) == 0) {
            job.put("simulatedExitCode", 2);
        }
        return job;
    }

    /** Sweeps every job's allocation over its [start, end) and checks each node's totals at every instant. */
    private static void assertNoNodeOverCommitted(ApiClient api, String token, Iterable<JsonNode> jobs) {
        Map<String, long[]> capacity = new HashMap<>();
        api.get("/api/v1/nodes?size=1000", token).json().get("items").valueStream().forEach(n -> capacity.put(
                n.get("name").asString(), new long[] {n.get("cpus").asLong(), n.get("memoryMb").asLong(),
                        n.get("gpus").asLong()}));
        record Change(Instant at, boolean ending, String node, long cpus, long memory, List<Integer> gpus) {
        }
        List<Change> changes = new ArrayList<>();
        int ran = 0;
        for (JsonNode job : jobs) {
            if (job.get("startTime").isNull()) {
                continue;
            }
            ran++;
            Instant start = Instant.parse(job.get("startTime").asString());
            Instant end = Instant.parse(job.get("endTime").asString());
            for (JsonNode a : job.get("allocation")) {
                List<Integer> gpus = a.get("gpuIndices").valueStream().map(JsonNode::asInt).toList();
                String node = a.get("node").asString();
                changes.add(new Change(start, false, node, a.get("cpus").asLong(), a.get("memoryMb").asLong(), gpus));
                changes.add(new Change(end, true, node, a.get("cpus").asLong(), a.get("memoryMb").asLong(), gpus));
            }
        }
        assertThat(ran).as("jobs that ran").isGreaterThan(JOBS / 2);
        changes.sort((x, y) -> x.at().equals(y.at()) ? Boolean.compare(y.ending(), x.ending()) : x.at().compareTo(y.at()));
        Map<String, long[]> used = new HashMap<>();
        Map<String, Integer> gpuHolders = new HashMap<>();
        for (Change c : changes) {
            long sign = c.ending() ? -1 : 1;
            long[] u = used.computeIfAbsent(c.node(), n -> new long[3]);
            u[0] += sign * c.cpus();
            u[1] += sign * c.memory();
            u[2] += sign * c.gpus().size();
            for (int gpu : c.gpus()) {
                int holders = gpuHolders.merge(c.node() + "#" + gpu, (int) sign, Integer::sum);
                assertThat(holders).as("GPU %s#%d holders at %s", c.node(), gpu, c.at()).isLessThanOrEqualTo(1);
            }
            long[] cap = capacity.get(c.node());
            assertThat(u[0]).as("CPUs on %s at %s", c.node(), c.at()).isLessThanOrEqualTo(cap[0]);
            assertThat(u[1]).as("memory on %s at %s", c.node(), c.at()).isLessThanOrEqualTo(cap[1]);
            assertThat(u[2]).as("GPUs on %s at %s", c.node(), c.at()).isLessThanOrEqualTo(cap[2]);
        }
    }
}
