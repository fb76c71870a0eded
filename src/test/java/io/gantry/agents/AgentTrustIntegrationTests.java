package io.gantry.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import tools.jackson.databind.JsonNode;

/**
 * What a node agent may claim, with the packaged controller on PostgreSQL and agents played by plain
 * HTTP calls: {@code node1} and {@code node2} are configured (4 CPUs, 4000 MB, 2 GPUs each), other
 * machines join the default partition only once an ADMIN approves them. Reports about other nodes'
 * jobs or with impossible times change nothing; a rotated join token and approvals live in the store,
 * so a second controller on it and a restart agree.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentTrustIntegrationTests {

    private static final String JOIN_TOKEN = "trust-test-join-token-0123456789";
    private static final String DATABASE = "gantry_trust_it_" + ProcessHandle.current().pid();
    private static final int TEN_MB = 10 * 1024 * 1024;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ControllerProcess standby;
    private ApiClient api;
    private String admin;
    private String user;
    private String node1;
    private String node2;
    private String rotatedToken;

    @BeforeAll
    void startController() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("trust-test", 4, 0) + """
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    approve-new-nodes: true
                    heartbeat-timeout: 600s
                    poll-wait: 1s
                """.formatted(JOIN_TOKEN));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        user = api.createUser(admin, "plainuser", "secret-password");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aConfiguredNodeDeclaringMoreThanConfiguredKeepsItsConfiguredShape() throws Exception {
        Response big = register(JOIN_TOKEN, "node1", 64, 512_000, 8);
        assertThat(big.status()).as(big.body()).isEqualTo(200);
        node1 = big.json().get("credential").asString();
        Response exact = register(JOIN_TOKEN, "node2", 4, 4000, 2);
        assertThat(exact.status()).as(exact.body()).isEqualTo(200);
        node2 = exact.json().get("credential").asString();

        JsonNode shown = api.get("/api/v1/nodes/node1", admin).json();
        assertThat(shown.get("cpus").asInt()).isEqualTo(4);
        assertThat(shown.get("memoryMb").asLong()).isEqualTo(4000);
        assertThat(shown.get("gpus").asInt()).isEqualTo(2);
        assertThat(shown.get("state").asString()).isEqualTo("IDLE");
        assertThat(Files.readString(dir.resolve("controller/controller.log")))
                .contains("The agent of node 'node1' declares more than configured (64 CPUs > 4, 512000 MB > 4000 MB, "
                        + "8 GPUs > 2)");

        // Less than configured still drains, as before.
        Response small = register(node2, "node2", 2, 4000, 2);
        assertThat(small.status()).isEqualTo(200);
        JsonNode drained = api.get("/api/v1/nodes/node2", admin).json();
        assertThat(drained.get("state").asString()).isEqualTo("DRAINED");
        assertThat(drained.get("reason").asString()).isEqualTo("Low CPUs (2 < 4 configured)");
        assertThat(api.send("PATCH", "/api/v1/nodes/node2", admin, Map.of("state", "RESUME")).status()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void forgedReportsAreRefusedWholeAndChangeNothing() throws Exception {
        long id = submit("node1");
        JsonNode running = awaitState(id, "RUNNING");
        String jobId = Long.toString(id);
        Instant started = Instant.parse(running.get("startTime").asString());

        Response foreign = report(node2, "node2", ended(jobId, started.plusSeconds(1)));
        assertRefused(foreign, "reports[0].jobId");
        Response future = report(node1, "node1", ended(jobId, Instant.parse("2999-01-01T00:00:00Z")));
        assertRefused(future, "reports[0].time");
        Response beforeStart = report(node1, "node1", ended(jobId, started.minusSeconds(3600)));
        assertRefused(beforeStart, "reports[0].time");
        Response unknown = report(node1, "node1", ended("987654", started.plusSeconds(1)));
        assertRefused(unknown, "reports[0].jobId");
        // One good report next to a forged one: the batch is refused whole, the good one not applied.
        Response mixed = report(node1, "node1", started(jobId, started.plusSeconds(1)),
                ended(jobId, started.plusSeconds(2)), ended(jobId, Instant.parse("2999-01-01T00:00:00Z")));
        assertRefused(mixed, "reports[2].time");
        assertThat(mixed.body()).doesNotContain("reports[0]", "reports[1]");

        JsonNode after = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(after.get("state").asString()).isEqualTo("RUNNING");
        assertThat(after.get("endTime").isNull()).isTrue();
        assertThat(after.get("exitCode").isNull()).isTrue();
        assertThat(after.get("startTime").asString()).isEqualTo(running.get("startTime").asString());
        assertThat(Files.readString(dir.resolve("controller/controller.log")))
                .contains("Refused reports from node 'node2'", "Refused reports from node 'node1'");

        Response honest = report(node1, "node1", started(jobId, started.plusSeconds(1)), ended(jobId, started.plusSeconds(2)));
        assertThat(honest.status()).as(honest.body()).isEqualTo(200);
        assertThat(honest.json().get("applied").asInt()).isPositive();
        JsonNode done = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(done.get("state").asString()).isEqualTo("COMPLETED");
        assertThat(done.get("exitCode").asInt()).isZero();
        // Agents resend what they are not sure was received: acknowledged, nothing changes.
        Response resent = report(node1, "node1", ended(jobId, started.plusSeconds(2)));
        assertThat(resent.status()).as(resent.body()).isEqualTo(200);
        assertThat(resent.json().get("applied").asInt()).isZero();
        assertThat(api.get("/api/v1/jobs/" + id, admin).json().get("endTime").asString())
                .isEqualTo(done.get("endTime").asString());
    }

    @Test
    @Order(3)
    void aMachineTheConfigurationDoesNotNameWaitsForAnAdminsApproval() {
        Response joined = register(JOIN_TOKEN, "newbie", 8, 16000, 0);
        assertThat(joined.status()).as(joined.body()).isEqualTo(200);
        assertThat(joined.json().get("state").asString()).isEqualTo("DOWN");
        assertThat(joined.json().get("reason").asString()).isEqualTo("awaiting approval");
        JsonNode waiting = api.get("/api/v1/nodes/newbie", admin).json();
        assertThat(waiting.get("state").asString()).isEqualTo("DOWN");
        assertThat(waiting.get("reason").asString()).isEqualTo("awaiting approval");
        // Restarting its agent does not let it in either, nor does an operator's RESUME.
        String credential = joined.json().get("credential").asString();
        assertThat(register(credential, "newbie", 8, 16000, 0).json().get("state").asString()).isEqualTo("DOWN");
        Response resume = api.send("PATCH", "/api/v1/nodes/newbie", admin, Map.of("state", "RESUME"));
        assertThat(resume.status()).isEqualTo(409);
        assertThat(resume.body()).contains("/api/v1/agents/newbie/approve");

        assertThat(api.send("POST", "/api/v1/agents/newbie/approve", user, null).status()).isEqualTo(403);
        Response unknown = api.send("POST", "/api/v1/agents/nosuchnode/approve", admin, null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.isProblem()).isTrue();
        Response approved = api.send("POST", "/api/v1/agents/newbie/approve", admin, null);
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
        assertThat(approved.json().get("state").asString()).isEqualTo("IDLE");
        assertThat(api.get("/api/v1/nodes/newbie", admin).json().get("state").asString()).isEqualTo("IDLE");
        Response again = api.send("POST", "/api/v1/agents/newbie/approve", admin, null);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.isProblem()).isTrue();
        assertThat(register(credential, "newbie", 8, 16000, 0).json().get("state").asString()).isEqualTo("IDLE");
        // A configured node is never held back.
        assertThat(api.send("POST", "/api/v1/agents/node1/approve", admin, null).status()).isEqualTo(409);
    }

    @Test
    @Order(4)
    void anAdminRotatesTheJoinTokenAndTheOldOneStopsWorkingAtOnce() {
        assertThat(api.send("POST", "/api/v1/agents/join-token/rotate", user, null).status()).isEqualTo(403);
        Response rotated = api.send("POST", "/api/v1/agents/join-token/rotate", admin, null);
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        rotatedToken = rotated.json().get("joinToken").asString();
        assertThat(rotatedToken).isNotEqualTo(JOIN_TOKEN).hasSizeGreaterThanOrEqualTo(32);
        assertThat(rotated.json().get("agentCommand").asString()).contains("--join-token " + rotatedToken);
        assertThat(api.get("/api/v1/agents/join-token", admin).json().get("joinToken").asString())
                .isEqualTo(rotatedToken);

        Response old = register(JOIN_TOKEN, "newbie2", 2, 2000, 0);
        assertThat(old.status()).isEqualTo(401);
        assertThat(old.isProblem()).isTrue();
        Response fresh = register(rotatedToken, "newbie2", 2, 2000, 0);
        assertThat(fresh.status()).as(fresh.body()).isEqualTo(200);
        // Nodes that joined keep working with their credentials.
        assertThat(poll(node1, "node1").status()).isEqualTo(200);
    }

    @Test
    @Order(5)
    void anAdminRevokesANodesCredentialAndItsAgentMustJoinAgain() {
        assertThat(api.send("DELETE", "/api/v1/agents/node2/credential", user, null).status()).isEqualTo(403);
        assertThat(api.send("DELETE", "/api/v1/agents/nosuchnode/credential", admin, null).status()).isEqualTo(404);
        assertThat(poll(node2, "node2").status()).isEqualTo(200);
        Response revoked = api.send("DELETE", "/api/v1/agents/node2/credential", admin, null);
        assertThat(revoked.status()).as(revoked.body()).isEqualTo(204);

        Response poll = poll(node2, "node2");
        assertThat(poll.status()).isEqualTo(401);
        assertThat(poll.isProblem()).isTrue();
        assertThat(report(node2, "node2").status()).isEqualTo(401);
        assertThat(register(node2, "node2", 4, 4000, 2).status()).isEqualTo(401);
        Response rejoined = register(rotatedToken, "node2", 4, 4000, 2);
        assertThat(rejoined.status()).as(rejoined.body()).isEqualTo(200);
        node2 = rejoined.json().get("credential").asString();
        assertThat(poll(node2, "node2").status()).isEqualTo(200);
    }

    @Test
    @Order(6)
    void agentsAreAuthenticatedBeforeTheirBodyIsReadAndTheirBodiesAreCapped() throws Exception {
        byte[] tenMb = json(TEN_MB);
        HttpResponse<String> stranger = post("/api/v1/agents/register", "not-the-join-token", tenMb);
        assertThat(stranger.statusCode()).as(stranger.body()).isEqualTo(401);
        assertThat(stranger.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(post("/api/v1/agents/node1/poll", "gnc_forged", tenMb).statusCode()).isEqualTo(401);
        assertThat(post("/api/v1/agents/node1/reports", null, tenMb).statusCode()).isEqualTo(401);

        byte[] twoMb = json(2 * 1024 * 1024);
        for (HttpResponse<String> tooLarge : List.of(post("/api/v1/agents/register", rotatedToken, twoMb),
                post("/api/v1/agents/node1/poll", node1, twoMb), post("/api/v1/agents/node1/reports", node1, twoMb))) {
            assertThat(tooLarge.statusCode()).as(tooLarge.body()).isEqualTo(413);
            assertThat(tooLarge.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(tooLarge.body()).contains("payload-too-large");
        }
    }

    @Test
    @Order(7)
    void theRotatedTokenAndApprovalsHoldOnAnotherControllerAndAfterTheFirstStops() throws Exception {
        standby = cluster.startController("standby");
        ApiClient other = standby.api();
        String otherAdmin = other.adminToken();
        assertThat(other.get("/api/v1/agents/join-token", otherAdmin).json().get("joinToken").asString())
                .isEqualTo(rotatedToken);

        controller.stop();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> other.send("POST", "/api/v1/agents/register", rotatedToken,
                        registration("newbie3", 2, 2000, 0)).status() != 421);
        assertThat(other.send("POST", "/api/v1/agents/register", JOIN_TOKEN, registration("newbie4", 2, 2000, 0))
                .status()).isEqualTo(401);
        assertThat(other.get("/api/v1/nodes/newbie3", otherAdmin).json().get("reason").asString())
                .isEqualTo("awaiting approval");
        Response newbie = other.send("POST", "/api/v1/agents/register", rotatedToken,
                registration("newbie", 8, 16000, 0));
        assertThat(newbie.status()).as(newbie.body()).isEqualTo(200);
        assertThat(newbie.json().get("state").asString()).isEqualTo("IDLE");
        // The ADMIN's writes under /agents reach the leader from any controller.
        Response approved = other.send("POST", "/api/v1/agents/newbie3/approve", otherAdmin, null);
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
    }

    private long submit(String node) {
        Response response = api.send("POST", "/api/v1/jobs", admin, Map.of("name", "trust", "nodelist", node,
                "script", "#!/bin/bash\nsleep 60\n"));
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode awaitState(long id, String state) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return state.equals(last[0].get("state").asString());
        });
        return last[0];
    }

    private static void assertRefused(Response response, String field) {
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.isProblem()).isTrue();
        assertThat(response.json().get("errors").toString()).contains("\"field\":\"" + field + "\"");
    }

    private static Map<String, Object> started(String jobId, Instant at) {
        return Map.of("jobId", jobId, "type", "STARTED", "time", at.toString());
    }

    private static Map<String, Object> ended(String jobId, Instant at) {
        return Map.of("jobId", jobId, "type", "ENDED", "time", at.toString(), "state", "COMPLETED", "exitCode", 0);
    }

    private static Map<String, Object> registration(String name, int cpus, long memoryMb, int gpus) {
        List<Map<String, Object>> gpuList = java.util.stream.IntStream.range(0, gpus)
                .mapToObj(i -> Map.<String, Object>of("index", i)).toList();
        return Map.of("name", name, "cpus", cpus, "memoryMb", memoryMb, "gpus", gpuList, "gpuType", "test");
    }

    private Response register(String bearer, String name, int cpus, long memoryMb, int gpus) {
        return api.send("POST", "/api/v1/agents/register", bearer, registration(name, cpus, memoryMb, gpus));
    }

    private Response poll(String credential, String node) {
        return api.send("POST", "/api/v1/agents/" + node + "/poll", credential, Map.of("runningJobs", List.of(),
                "sync", false));
    }

    @SafeVarargs
    private Response report(String credential, String node, Map<String, Object>... reports) {
        return api.send("POST", "/api/v1/agents/" + node + "/reports", credential, Map.of("reports", List.of(reports)));
    }

    /** A JSON object padded to about {@code size} bytes: valid, just large. */
    private static byte[] json(int size) {
        char[] pad = new char[size];
        Arrays.fill(pad, 'x');
        return ("{\"name\": \"node1\", \"cpus\": 4, \"memoryMb\": 4000, \"agentVersion\": \"" + new String(pad) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private HttpResponse<String> post(String path, String bearer, byte[] body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + controller.port() + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, application/problem+json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
