package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

@GantryIntegrationTest
class ClusterIntegrationTests {

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void theDemoClusterIsListedWithItsNodesPartitionsAndTopology() {
        Response nodes = api.get("/api/v1/nodes?size=100", admin);
        assertThat(nodes.status()).isEqualTo(200);
        assertThat(nodes.json().get("total").asInt()).isEqualTo(24);
        JsonNode gpu001 = nodes.json().get("items").get(0);
        assertThat(gpu001.get("name").asString()).isEqualTo("cpu001");

        Response node = api.get("/api/v1/nodes/gpu005", admin);
        assertThat(node.status()).isEqualTo(200);
        assertThat(node.json().get("gpus").asInt()).isEqualTo(8);
        assertThat(node.json().get("gpuType").asString()).isEqualTo("h100");
        assertThat(node.json().get("switchName").asString()).isEqualTo("leaf2");
        assertThat(node.json().get("block").asString()).isEqualTo("block1");
        assertThat(node.json().get("partitions").get(0).asString()).isEqualTo("gpu");
        assertThat(node.json().get("simulated").asBoolean()).isTrue();

        Response partitions = api.get("/api/v1/partitions", admin);
        assertThat(partitions.json().get("total").asInt()).isEqualTo(2);
        Response gpu = api.get("/api/v1/partitions/gpu", admin);
        assertThat(gpu.json().get("nodes").asString()).isEqualTo("gpu[001-016]");
        assertThat(gpu.json().get("totalGpus").asInt()).isEqualTo(128);
        assertThat(gpu.json().get("isDefault").asBoolean()).isTrue();
        assertThat(gpu.json().get("maxTimeSeconds").asLong()).isEqualTo(2 * 86400L);

        Response topology = api.get("/api/v1/topology", admin);
        List<JsonNode> leaves = topology.json().get("switches").valueStream()
                .filter(s -> s.get("leaf").asBoolean()).toList();
        assertThat(leaves).hasSize(4);
        assertThat(leaves).allSatisfy(s -> assertThat(s.get("parent").asString()).isEqualTo("spine"));
        assertThat(topology.json().get("blocks")).hasSize(2);
    }

    @Test
    void listsFilterByStateAndPartitionAndPage() {
        Response cpu = api.get("/api/v1/nodes?partition=cpu&size=5&page=1", admin);
        assertThat(cpu.json().get("total").asInt()).isEqualTo(8);
        assertThat(cpu.json().get("page").asInt()).isEqualTo(1);
        assertThat(cpu.json().get("items")).hasSize(3);
        assertThat(cpu.json().get("items").get(0).get("name").asString()).isEqualTo("cpu006");

        Response idle = api.get("/api/v1/nodes?state=IDLE,MIXED&partition=gpu&size=1000", admin);
        assertThat(idle.status()).isEqualTo(200);
        assertThat(idle.json().get("items").valueStream()).allSatisfy(
                n -> assertThat(n.get("state").asString()).isIn("IDLE", "MIXED"));
    }

    @Test
    void badFiltersAndUnknownNamesAnswerProblems() {
        Response badState = api.get("/api/v1/nodes?state=SLEEPY", admin);
        assertThat(badState.status()).isEqualTo(400);
        assertThat(badState.isProblem()).isTrue();
        assertThat(badState.json().get("errors").get(0).get("field").asString()).isEqualTo("state");

        Response badPartition = api.get("/api/v1/nodes?partition=nope", admin);
        assertThat(badPartition.status()).isEqualTo(400);
        assertThat(badPartition.json().get("detail").asString()).contains("unknown partition 'nope'");

        Response badSize = api.get("/api/v1/nodes?size=1001", admin);
        assertThat(badSize.status()).isEqualTo(400);
        assertThat(badSize.json().get("errors").get(0).get("field").asString()).isEqualTo("size");

        Response badPage = api.get("/api/v1/nodes?page=abc", admin);
        assertThat(badPage.status()).isEqualTo(400);
        assertThat(badPage.isProblem()).isTrue();

        Response unknownNode = api.get("/api/v1/nodes/gpu999", admin);
        assertThat(unknownNode.status()).isEqualTo(404);
        assertThat(unknownNode.isProblem()).isTrue();
        assertThat(unknownNode.json().get("type").asString()).endsWith("/not-found");
        assertThat(unknownNode.json().get("detail").asString()).contains("gpu999");

        assertThat(api.get("/api/v1/partitions/nope", admin).status()).isEqualTo(404);
    }

    @Test
    void withoutATokenTheApiAnswers401Problem() {
        Response response = api.get("/api/v1/nodes", null);
        assertThat(response.status()).isEqualTo(401);
        assertThat(response.isProblem()).isTrue();
    }

    @Test
    void aUserMayNotDrainANodeButAnOperatorMayDrainAndResumeIt() {
        String user = createUser("USER");
        Response forbidden = api.send("PATCH", "/api/v1/nodes/gpu016", user, Map.of("state", "DRAIN", "reason", "x"));
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.isProblem()).isTrue();

        String operator = createUser("OPERATOR");
        Response drained = api.send("PATCH", "/api/v1/nodes/gpu016", operator,
                Map.of("state", "DRAIN", "reason", "bad DIMM, ticket 42"));
        assertThat(drained.status()).isEqualTo(200);
        assertThat(drained.json().get("state").asString()).isEqualTo("DRAINED");

        JsonNode shown = api.get("/api/v1/nodes/gpu016", user).json();
        assertThat(shown.get("state").asString()).isEqualTo("DRAINED");
        assertThat(shown.get("reason").asString()).isEqualTo("bad DIMM, ticket 42");
        assertThat(shown.get("reasonTime").isNull()).isFalse();

        Response resumed = api.send("PATCH", "/api/v1/nodes/gpu016", operator, Map.of("state", "RESUME"));
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(resumed.json().get("state").asString()).isEqualTo("IDLE");
        assertThat(resumed.json().get("reason").isNull()).isTrue();

        Response again = api.send("PATCH", "/api/v1/nodes/gpu016", operator, Map.of("state", "RESUME"));
        assertThat(again.status()).isEqualTo(409);
    }

    @Test
    void badNodeUpdatesAreRejectedAndChangeNothing() {
        Response noReason = api.send("PATCH", "/api/v1/nodes/gpu015", admin, Map.of("state", "DOWN"));
        assertThat(noReason.status()).isEqualTo(400);
        assertThat(noReason.json().get("errors").get(0).get("field").asString()).isEqualTo("reason");

        Response badState = api.send("PATCH", "/api/v1/nodes/gpu015", admin, Map.of("state", "NAP", "reason", "z"));
        assertThat(badState.status()).isEqualTo(400);
        assertThat(badState.json().get("errors").get(0).get("field").asString()).isEqualTo("state");

        Response notJson = api.send("PATCH", "/api/v1/nodes/gpu015", admin, "{not json");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.isProblem()).isTrue();

        Response unknown = api.send("PATCH", "/api/v1/nodes/gpu999", admin, Map.of("state", "DRAIN", "reason", "z"));
        assertThat(unknown.status()).isEqualTo(404);

        assertThat(api.get("/api/v1/nodes/gpu015", admin).json().get("state").asString()).isEqualTo("IDLE");
    }

    @Test
    void anOperatorDrainsAndResumesAHostlistInOneRequestAllOrNothing() {
        String user = createUser("USER");
        String operator = createUser("OPERATOR");
        Map<String, Integer> audited = new java.util.HashMap<>();
        for (String node : List.of("gpu012", "gpu013", "gpu014")) {
            audited.put(node, auditCount(node));
        }
        Map<String, String> drain = Map.of("nodes", "gpu[012-014]", "state", "DRAIN", "reason", "rack 3 PDU swap");
        Response forbidden = api.send("POST", "/api/v1/nodes/update", user, drain);
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.isProblem()).isTrue();

        Response unknown = api.send("POST", "/api/v1/nodes/update", operator,
                Map.of("nodes", "gpu[012-013],gpu999,nope1", "state", "DRAIN", "reason", "x"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.isProblem()).isTrue();
        assertThat(unknown.json().get("detail").asString()).contains("gpu999").contains("nope1")
                .contains("no node was changed").doesNotContain("gpu012");
        Response badList = api.send("POST", "/api/v1/nodes/update", operator,
                Map.of("nodes", "gpu[012-", "state", "DRAIN", "reason", "x"));
        assertThat(badList.status()).isEqualTo(400);
        assertThat(badList.json().get("errors").get(0).get("field").asString()).isEqualTo("nodes");
        // The largest hostlist allowed: its names are looked up in slices (a statement takes at most 32,767
        // parameters on PostgreSQL), and a bad state is refused before any is.
        Response huge = api.send("POST", "/api/v1/nodes/update", operator,
                Map.of("nodes", "x[1-100000]", "state", "DRAIN", "reason", "x"));
        assertThat(huge.status()).as(huge.body()).isEqualTo(404);
        assertThat(huge.json().get("detail").asString()).contains("x[1-100000]");
        Response hugeBadState = api.send("POST", "/api/v1/nodes/update", operator,
                Map.of("nodes", "x[1-100000]", "state", "fuzz695"));
        assertThat(hugeBadState.status()).as(hugeBadState.body()).isEqualTo(400);
        assertThat(hugeBadState.json().get("errors").get(0).get("field").asString()).isEqualTo("state");
        Response noReason = api.send("POST", "/api/v1/nodes/update", operator, Map.of("nodes", "gpu[012-014]", "state", "DRAIN"));
        assertThat(noReason.status()).isEqualTo(400);
        assertThat(noReason.json().get("errors").get(0).get("field").asString()).isEqualTo("reason");
        for (String node : List.of("gpu012", "gpu013", "gpu014")) {
            JsonNode shown = api.get("/api/v1/nodes/" + node, admin).json();
            assertThat(shown.get("state").asString()).as(node).isNotIn("DRAINING", "DRAINED");
            assertThat(auditCount(node)).as(node).isEqualTo(audited.get(node));
        }

        Response drained = api.send("POST", "/api/v1/nodes/update", operator, drain);
        assertThat(drained.status()).as(drained.body()).isEqualTo(200);
        assertThat(drained.json().get("nodes").asString()).isEqualTo("gpu[012-014]");
        assertThat(drained.json().get("count").asInt()).isEqualTo(3);
        for (String node : List.of("gpu012", "gpu013", "gpu014")) {
            JsonNode shown = api.get("/api/v1/nodes/" + node, user).json();
            assertThat(shown.get("state").asString()).as(node).isIn("DRAINING", "DRAINED");
            assertThat(shown.get("reason").asString()).isEqualTo("rack 3 PDU swap");
            assertThat(auditCount(node)).as(node).isEqualTo(audited.get(node) + 1);
            JsonNode trail = api.get("/api/v1/audit?entity=node&key=" + node + "&size=1", admin).json().get("items");
            assertThat(trail.get(0).get("actor").asString()).startsWith("u");
            assertThat(trail.get(0).get("action").asString()).isEqualTo("update");
            assertThat(trail.get(0).get("after").get("reason").asString()).isEqualTo("rack 3 PDU swap");
        }

        // gpu015 is not drained: resuming it with the others is refused and resumes none of them.
        Response mixed = api.send("POST", "/api/v1/nodes/update", operator, Map.of("nodes", "gpu[012-015]", "state", "RESUME"));
        assertThat(mixed.status()).isEqualTo(409);
        assertThat(mixed.json().get("detail").asString()).contains("gpu015");
        assertThat(api.get("/api/v1/nodes/gpu012", admin).json().get("state").asString()).isIn("DRAINING", "DRAINED");

        Response resumed = api.send("POST", "/api/v1/nodes/update", operator, Map.of("nodes", "gpu[012-014]", "state", "RESUME"));
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        for (String node : List.of("gpu012", "gpu013", "gpu014")) {
            JsonNode shown = api.get("/api/v1/nodes/" + node, admin).json();
            assertThat(shown.get("state").asString()).as(node).isIn("IDLE", "MIXED", "ALLOCATED");
            assertThat(shown.get("reason").isNull()).isTrue();
            assertThat(auditCount(node)).as(node).isEqualTo(audited.get(node) + 2);
        }
    }

    private int auditCount(String node) {
        return api.get("/api/v1/audit?entity=node&key=" + node + "&size=1", admin).json().get("total").asInt();
    }

    private String createUser(String role) {
        String name = "u" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "secret-password", "roles", List.of(role), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return api.token(name, "secret-password");
    }
}
