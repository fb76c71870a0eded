package io.gantry.fleet;

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
    private String newbie;

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
        newbie = credential;
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
    void aJoinedNodesNameIsNotTakenWithTheJoinTokenAloneOnlyWithItsCredential() {
        // What a job that read the join token would do to receive node1's launches.
        Response impostor = register(JOIN_TOKEN, "node1", 4, 4000, 2);
        assertThat(impostor.status()).as(impostor.body()).isEqualTo(409);
        assertThat(impostor.isProblem()).isTrue();
        assertThat(impostor.body()).doesNotContain("credential\":\"gnc_");
        assertThat(impostor.json().get("detail").asString()).contains("node credential")
                .contains("POST /api/v1/agents/node1/rejoin");
        // Nothing changed: node1's agent keeps its credential, and the name.
        assertThat(poll(node1, "node1").status()).isEqualTo(200);
        Response restarted = register(node1, "node1", 4, 4000, 2);
        assertThat(restarted.status()).as(restarted.body()).isEqualTo(200);
        assertThat(restarted.json().get("credential").isNull()).isTrue();
        assertThat(poll(node1, "node1").status()).isEqualTo(200);

        JsonNode refused = api.get("/api/v1/audit?entity=node&key=node1", admin).json().get("items").get(0);
        assertThat(refused.get("action").asString()).isEqualTo("join_refused");
        assertThat(refused.get("actor").asString()).isEqualTo("join-token");
        assertThat(refused.get("actorRole").asString()).isEqualTo("AGENT");
        assertThat(refused.get("before").get("credential").asBoolean()).isTrue();
        assertThat(refused.get("clientAddress").asString()).isEqualTo("127.0.0.1");
        assertThat(Files.exists(dir.resolve("controller/controller.log"))).isTrue();
    }

    @Test
    @Order(5)
    void anAdminRotatesTheJoinTokenAndTheOldOneStopsWorkingAtOnce() {
        assertThat(api.send("POST", "/api/v1/agents/join-token/rotate", user, null).status()).isEqualTo(403);
        Response rotated = api.send("POST", "/api/v1/agents/join-token/rotate", admin, null);
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        rotatedToken = rotated.json().get("joinToken").asString();
        assertThat(rotatedToken).isNotEqualTo(JOIN_TOKEN).hasSizeGreaterThanOrEqualTo(32);
        // The command puts the token in a file only root reads, through shell builtins: in no process's arguments.
        assertThat(rotated.json().get("agentCommand").asString())
                .contains("(umask 077; printf '%s\\n' '" + rotatedToken + "' > /etc/gantry/join-token)")
                .endsWith("java -jar gantry.jar agent --controller http://127.0.0.1:" + controller.port()
                        + " --join-token-file /etc/gantry/join-token")
                .doesNotContain("--join-token " + rotatedToken);
        // The rotation is in the audit trail: who and when, never the token.
        JsonNode rotation = api.get("/api/v1/audit?entity=join_token", admin).json().get("items");
        assertThat(rotation).hasSize(1);
        assertThat(rotation.get(0).get("action").asString()).isEqualTo("rotate");
        assertThat(rotation.get(0).get("actor").asString()).isEqualTo("admin");
        assertThat(rotation.get(0).get("actorRole").asString()).isEqualTo("ADMIN");
        assertThat(rotation.get(0).get("after").get("rotatedBy").asString()).isEqualTo("admin");
        assertThat(rotation.get(0).toString()).doesNotContain(rotatedToken).doesNotContain(JOIN_TOKEN);
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
    @Order(6)
    void anAdminRevokesANodesCredentialAndItsAgentJoinsAgainOnlyOnAnAdminsLeave() {
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
        // Revoking does not hand the name to whoever holds the join token: an ADMIN must allow the new join.
        Response alone = register(rotatedToken, "node2", 4, 4000, 2);
        assertThat(alone.status()).as(alone.body()).isEqualTo(409);
        assertThat(alone.body()).contains("/api/v1/agents/node2/rejoin");

        assertThat(api.send("POST", "/api/v1/agents/node2/rejoin", user, null).status()).isEqualTo(403);
        assertThat(api.send("POST", "/api/v1/agents/nosuchnode/rejoin", admin, null).status()).isEqualTo(404);
        Response leave = api.send("POST", "/api/v1/agents/node2/rejoin", admin, null);
        assertThat(leave.status()).as(leave.body()).isEqualTo(200);
        assertThat(leave.json().get("node").asString()).isEqualTo("node2");
        Instant until = Instant.parse(leave.json().get("until").asString());
        assertThat(until).isBetween(Instant.now().plusSeconds(3000), Instant.now().plusSeconds(3700));

        Response rejoined = register(rotatedToken, "node2", 4, 4000, 2);
        assertThat(rejoined.status()).as(rejoined.body()).isEqualTo(200);
        node2 = rejoined.json().get("credential").asString();
        assertThat(poll(node2, "node2").status()).isEqualTo(200);
        // The leave is used up by that one join.
        assertThat(register(rotatedToken, "node2", 4, 4000, 2).status()).isEqualTo(409);
        assertThat(poll(node2, "node2").status()).isEqualTo(200);

        // All of it is in the audit trail, newest first: the refused join, the leave, the join that used it.
        JsonNode trail = api.get("/api/v1/audit?entity=node&key=node2", admin).json().get("items");
        List<String> actions = new java.util.ArrayList<>();
        trail.forEach(e -> actions.add(e.get("actor").asString() + " " + e.get("actorRole").asString() + " "
                + e.get("action").asString()));
        assertThat(actions).containsSubsequence("join-token AGENT join_refused", "join-token AGENT join",
                "admin ADMIN update", "join-token AGENT join_refused", "admin ADMIN update");
        assertThat(trail.get(1).get("after").get("credential").asString()).isEqualTo("replaced");
        assertThat(trail.toString()).doesNotContain(node2).doesNotContain(rotatedToken);
    }

    @Test
    @Order(7)
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
    @Order(9)
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
        Response restarted = other.send("POST", "/api/v1/agents/register", newbie,
                registration("newbie", 8, 16000, 0));
        assertThat(restarted.status()).as(restarted.body()).isEqualTo(200);
        assertThat(restarted.json().get("state").asString()).isEqualTo("IDLE");
        // The ADMIN's writes under /agents reach the leader from any controller.
        Response approved = other.send("POST", "/api/v1/agents/newbie3/approve", otherAdmin, null);
        assertThat(approved.status()).as(approved.body()).isEqualTo(200);
    }

    @Test
    @Order(8)
    void anOverLongRegistrationFieldIsRefusedWithNothingApplied() {
        String partitionBefore = api.get("/api/v1/partitions/batch", admin).body();
        List<String> nodesBefore = nodeNames();
        Map<String, Object> sane = registration("ghost1", 2, 2000, 1);
        for (Map.Entry<String, Object> wrong : List.<Map.Entry<String, Object>>of(
                Map.entry("gpuType", "g".repeat(200)),
                Map.entry("features", List.of("f".repeat(65))),
                Map.entry("features", java.util.stream.IntStream.range(0, 65).mapToObj(i -> "f" + i).toList()),
                // each a fine word, but 64 of 64 characters overflow the node's row
                Map.entry("features", java.util.stream.IntStream.range(0, 64).mapToObj(i -> "f".repeat(60) + (1000 + i))
                        .toList()),
                Map.entry("agentVersion", "v".repeat(129)),
                Map.entry("jobUser", "u".repeat(33)),
                Map.entry("runningJobs", List.of("1".repeat(40))),
                Map.entry("runningJobs", java.util.Collections.nCopies(20_001, "1")),
                Map.entry("mig", List.of(Map.of("gpu", 0, "profile", "p".repeat(65), "uuid", "MIG-1"))),
                Map.entry("mig", List.of(Map.of("gpu", 0, "profile", "1g.5gb", "uuid", "MIG-1,x=y"))),
                Map.entry("mig", java.util.Collections.nCopies(65, Map.of("gpu", 0, "profile", "1g.5gb"))),
                Map.entry("gpus", List.of(Map.of("index", 0, "uuid", "u".repeat(129)))),
                Map.entry("gpus", java.util.stream.IntStream.range(0, 65).mapToObj(i -> Map.of("index", i)).toList()),
                Map.entry("cpus", 65_537),
                Map.entry("memoryMb", (1L << 30) + 1))) {
            Map<String, Object> body = new java.util.HashMap<>(sane);
            body.put(wrong.getKey(), wrong.getValue());
            Response refused = api.send("POST", "/api/v1/agents/register", rotatedToken, body);
            assertThat(refused.status()).as(wrong.getKey() + ": " + refused.body()).isEqualTo(400);
            assertThat(refused.isProblem()).isTrue();
            assertThat(refused.json().get("errors").get(0).get("field").asString()).startsWith(wrong.getKey());
            // Nothing applied: no node, in the store or in memory, and the partition as it was.
            assertThat(api.get("/api/v1/nodes/ghost1", admin).status()).isEqualTo(404);
        }
        assertThat(api.get("/api/v1/partitions/batch", admin).body()).isEqualTo(partitionBefore);
        assertThat(nodeNames()).isEqualTo(nodesBefore).doesNotContain("ghost1");

        // The same name then joins as usual, and its polls are bounded alike.
        Response joined = api.send("POST", "/api/v1/agents/register", rotatedToken, sane);
        assertThat(joined.status()).as(joined.body()).isEqualTo(200);
        String ghost = joined.json().get("credential").asString();
        assertThat(api.get("/api/v1/nodes/ghost1", admin).json().get("gpuType").asString()).isEqualTo("test");
        assertThat(api.get("/api/v1/partitions/batch", admin).body()).contains("ghost1");
        Response badPoll = api.send("POST", "/api/v1/agents/ghost1/poll", ghost, Map.of("runningJobs",
                List.of("x".repeat(100)), "sync", true));
        assertThat(badPoll.status()).as(badPoll.body()).isEqualTo(400);
        assertThat(badPoll.json().get("errors").get(0).get("field").asString()).isEqualTo("runningJobs[0]");
        Response longHealth = api.send("POST", "/api/v1/agents/ghost1/poll", ghost, Map.of("runningJobs", List.of(),
                "sync", false, "health", Map.of("healthy", false, "message", "m".repeat(5000))));
        assertThat(longHealth.status()).as(longHealth.body()).isEqualTo(400);
        assertThat(longHealth.json().get("errors").get(0).get("field").asString()).isEqualTo("health.message");
        assertThat(poll(ghost, "ghost1").status()).isEqualTo(200);
    }

    private List<String> nodeNames() {
        JsonNode nodes = api.get("/api/v1/nodes?size=1000", admin).json();
        List<String> names = new java.util.ArrayList<>();
        (nodes.has("items") ? nodes.get("items") : nodes).forEach(n -> names.add(n.get("name").asString()));
        return names;
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
