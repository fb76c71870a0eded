package io.gantry.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
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

/**
 * The audit trail: changes by ADMINs, OPERATORs and coordinators are recorded with before and
 * after, refused changes and users' own jobs leave no row, and only ADMINs read it.
 */
@GantryIntegrationTest
class AuditIntegrationTests {

    private static final String PASSWORD = "secret-password";

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;
    String s;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
        s = UUID.randomUUID().toString().substring(0, 6);
    }

    @Test
    void anAdminsChangesAreRecordedWithBeforeAndAfterAndNoPassword() {
        String account = "audited-" + s;
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", account)).status()).isEqualTo(201);
        String name = "aud" + s;
        createUser(name, account, "USER");
        Response promoted = api.send("PATCH", "/api/v1/users/" + name, admin,
                Map.of("roles", List.of("OPERATOR"), "password", "another-password"));
        assertThat(promoted.status()).isEqualTo(200);

        List<JsonNode> userEvents = events("entity=user&key=" + name);
        assertThat(userEvents).extracting(e -> e.get("action").asString()).containsExactly("update", "create");
        JsonNode update = userEvents.get(0);
        assertThat(update.get("actor").asString()).isEqualTo("admin");
        assertThat(update.get("actorRole").asString()).isEqualTo("ADMIN");
        assertThat(update.get("before").get("roles").get(0).asString()).isEqualTo("USER");
        assertThat(update.get("after").get("roles").get(0).asString()).isEqualTo("OPERATOR");
        assertThat(update.get("after").get("passwordChanged").asBoolean()).isTrue();
        assertThat(update.get("clientAddress").asString()).isNotBlank();
        JsonNode create = userEvents.get(1);
        assertThat(create.get("before").isNull()).isTrue();
        assertThat(create.get("after").get("defaultAccount").asString()).isEqualTo(account);
        String trail = api.get("/api/v1/audit?entity=user&key=" + name, admin).body();
        assertThat(trail).doesNotContain(PASSWORD).doesNotContain("another-password").doesNotContain("$2")
                .doesNotContainIgnoringCase("hash");

        JsonNode accountEvent = events("entity=account&key=" + account).get(0);
        assertThat(accountEvent.get("action").asString()).isEqualTo("create");
        assertThat(accountEvent.get("after").get("name").asString()).isEqualTo(account);

        String qos = "audq-" + s;
        assertThat(api.send("POST", "/api/v1/qos", admin, Map.of("name", qos, "priority", 5)).status()).isEqualTo(201);
        assertThat(api.send("PATCH", "/api/v1/qos/" + qos, admin, Map.of("priority", 50)).status()).isEqualTo(200);
        assertThat(api.send("DELETE", "/api/v1/qos/" + qos, admin, null).status()).isEqualTo(204);
        List<JsonNode> qosEvents = events("entity=qos&key=" + qos);
        assertThat(qosEvents).extracting(e -> e.get("action").asString()).containsExactly("delete", "update", "create");
        assertThat(qosEvents.get(1).get("before").get("priority").asInt()).isEqualTo(5);
        assertThat(qosEvents.get(1).get("after").get("priority").asInt()).isEqualTo(50);
        assertThat(qosEvents.get(0).get("after").isNull()).isTrue();

        assertThat(api.send("DELETE", "/api/v1/users/" + name, admin, null).status()).isEqualTo(204);
        assertThat(events("entity=user&key=" + name).get(0).get("action").asString()).isEqualTo("delete");

        // A simulated node has no agent credential: revoking it changes nothing but is still recorded.
        Instant revokedFrom = Instant.now().minusSeconds(1);
        assertThat(api.send("DELETE", "/api/v1/agents/gpu013/credential", admin, null).status()).isEqualTo(204);
        JsonNode revoked = events("entity=node&key=gpu013&since=" + revokedFrom).get(0);
        assertThat(revoked.get("after").get("credential").asBoolean()).isFalse();
        assertThat(api.send("DELETE", "/api/v1/agents/gpu999/credential", admin, null).status()).isEqualTo(404);
        assertThat(events("entity=node&key=gpu999")).as("a failed change leaves no row").isEmpty();
    }

    @Test
    void anOperatorsActionsOnOthersJobsAndNodesAreRecordedButAUsersOwnJobsAreNot() {
        String account = "opjobs-" + s;
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", account)).status()).isEqualTo(201);
        String owner = createUser("own" + s, account, "USER");
        String operator = createUser("op" + s, account, "OPERATOR");
        String ownerToken = api.token(owner, PASSWORD);
        String operatorToken = api.token(operator, PASSWORD);

        long own = api.submitJob(ownerToken, Map.of("partition", "cpu", "hold", true));
        assertThat(api.send("POST", "/api/v1/jobs/" + own + "/release", ownerToken, null).status()).isEqualTo(200);
        // Released, it may already run on its simulated node: then the cancel is accepted while it stops (202).
        assertThat(api.send("DELETE", "/api/v1/jobs/" + own, ownerToken, null).status()).isIn(200, 202);
        assertThat(events("entity=job&key=" + own)).as("a user's own job leaves no row").isEmpty();

        long theirs = api.submitJob(ownerToken, Map.of("partition", "cpu", "hold", true, "nice", 10));
        Response changed = api.send("PATCH", "/api/v1/jobs/" + theirs, operatorToken, Map.of("nice", 100));
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + theirs, operatorToken, null).status()).isEqualTo(200);
        List<JsonNode> jobEvents = events("entity=job&key=" + theirs);
        assertThat(jobEvents).extracting(e -> e.get("action").asString()).containsExactly("cancel", "update");
        JsonNode update = jobEvents.get(1);
        assertThat(update.get("actor").asString()).isEqualTo(operator);
        assertThat(update.get("actorRole").asString()).isEqualTo("OPERATOR");
        assertThat(update.get("before").get("nice").asInt()).isEqualTo(10);
        assertThat(update.get("after").get("nice").asInt()).isEqualTo(100);
        assertThat(update.get("after").get("user").asString()).isEqualTo(owner);
        assertThat(jobEvents.get(0).get("before").get("state").asString()).isEqualTo("PENDING");
        assertThat(jobEvents.get(0).get("after").get("state").asString()).isEqualTo("CANCELLED");
        assertThat(jobEvents.toString()).doesNotContain("script").doesNotContain("environment");

        String node = "gpu014";
        Response drained = api.send("PATCH", "/api/v1/nodes/" + node, operatorToken,
                Map.of("state", "DRAIN", "reason", "audit " + s));
        assertThat(drained.status()).as(drained.body()).isEqualTo(200);
        assertThat(api.send("PATCH", "/api/v1/nodes/" + node, operatorToken, Map.of("state", "RESUME")).status())
                .isEqualTo(200);
        List<JsonNode> nodeEvents = events("entity=node&key=" + node + "&actor=" + operator);
        assertThat(nodeEvents).hasSize(2);
        assertThat(nodeEvents.get(1).get("after").get("reason").asString()).isEqualTo("audit " + s);
        assertThat(nodeEvents.get(0).get("before").get("reason").asString()).isEqualTo("audit " + s);
        assertThat(nodeEvents.get(0).get("after").get("reason").isNull()).isTrue();
    }

    @Test
    void aCoordinatorsChangesAreRecordedAndRefusedOrFailedChangesLeaveNoRow() {
        String dept = "auddept-" + s;
        String team = "audteam-" + s;
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", dept)).status()).isEqualTo(201);
        String boss = createUser("boss" + s, dept, "USER");
        assertThat(api.send("PUT", "/api/v1/accounts/" + dept + "/coordinators", admin,
                Map.of("users", List.of(boss))).status()).isEqualTo(200);
        String bossToken = api.token(boss, PASSWORD);
        assertThat(api.send("POST", "/api/v1/accounts", bossToken, Map.of("name", team, "parent", dept)).status())
                .isEqualTo(201);
        assertThat(api.send("PATCH", "/api/v1/accounts/" + team, bossToken, Map.of("shares", 5)).status())
                .isEqualTo(200);

        List<JsonNode> teamEvents = events("entity=account&key=" + team);
        assertThat(teamEvents).extracting(e -> e.get("action").asString()).containsExactly("update", "create");
        assertThat(teamEvents).allSatisfy(e -> {
            assertThat(e.get("actor").asString()).isEqualTo(boss);
            assertThat(e.get("actorRole").asString()).isEqualTo("COORDINATOR");
        });
        assertThat(teamEvents.get(0).get("before").get("shares").asInt()).isEqualTo(1);
        assertThat(teamEvents.get(0).get("after").get("shares").asInt()).isEqualTo(5);
        JsonNode coordinators = events("entity=coordinators&key=" + dept).get(0);
        assertThat(coordinators.get("before").get("users")).isEmpty();
        assertThat(coordinators.get("after").get("users").get(0).asString()).isEqualTo(boss);

        // Refused (403) and failed (409, 400) changes leave no row.
        assertThat(api.send("PATCH", "/api/v1/accounts/" + dept, bossToken, Map.of("shares", 1_000_000)).status())
                .isEqualTo(403);
        assertThat(api.send("POST", "/api/v1/accounts", bossToken, Map.of("name", team, "parent", dept)).status())
                .isEqualTo(409);
        assertThat(api.send("PATCH", "/api/v1/accounts/" + team, bossToken, Map.of("shares", 0)).status())
                .isEqualTo(400);
        assertThat(events("entity=account&key=" + dept)).extracting(e -> e.get("actor").asString())
                .containsExactly("admin");
        assertThat(events("entity=account&key=" + team)).hasSize(2);
        assertThat(events("actor=" + boss)).hasSize(2);
    }

    @Test
    void onlyAdminsReadTheTrailAndItsFiltersNarrowIt() {
        String account = "filt-" + s;
        Instant before = Instant.now().minusSeconds(1);
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", account)).status()).isEqualTo(201);
        assertThat(api.send("PATCH", "/api/v1/accounts/" + account, admin, Map.of("description", "x")).status())
                .isEqualTo(200);
        String user = createUser("rd" + s, account, "USER");
        String operator = createUser("rdop" + s, account, "OPERATOR");

        Response forbidden = api.get("/api/v1/audit", api.token(user, PASSWORD));
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.isProblem()).isTrue();
        assertThat(api.get("/api/v1/audit", api.token(operator, PASSWORD)).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/audit", null).status()).isEqualTo(401);

        String key = "entity=account&key=" + account;
        assertThat(events(key)).hasSize(2);
        assertThat(events(key + "&since=" + before)).hasSize(2);
        assertThat(events(key + "&until=" + before)).isEmpty();
        assertThat(events(key + "&since=" + Instant.now().plusSeconds(3600))).isEmpty();
        assertThat(events(key + "&since=2000-01-01&until=2000-01-02")).isEmpty();
        assertThat(events(key + "&since=2000-01-01T00:00:00%2B01:00")).hasSize(2);
        assertThat(events("entity=user&key=" + account)).isEmpty();
        assertThat(events("actor=nobody-" + s)).isEmpty();

        JsonNode page = api.get("/api/v1/audit?" + key + "&size=1&page=0", admin).json();
        assertThat(page.get("total").asLong()).isEqualTo(2);
        assertThat(page.get("items").get(0).get("action").asString()).as("newest first").isEqualTo("update");
        JsonNode second = api.get("/api/v1/audit?" + key + "&size=1&page=1", admin).json();
        assertThat(second.get("items").get(0).get("action").asString()).isEqualTo("create");

        Response badSince = api.get("/api/v1/audit?since=yesterday", admin);
        assertThat(badSince.status()).isEqualTo(400);
        assertThat(badSince.json().get("errors").get(0).get("field").asString()).isEqualTo("since");
        Response badEntity = api.get("/api/v1/audit?entity=spaceship", admin);
        assertThat(badEntity.status()).isEqualTo(400);
        assertThat(badEntity.json().get("errors").get(0).get("field").asString()).isEqualTo("entity");
        assertThat(api.get("/api/v1/audit?size=0", admin).status()).isEqualTo(400);
    }

    private List<JsonNode> events(String query) {
        Response response = api.get("/api/v1/audit?size=1000&" + query, admin);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        List<JsonNode> items = new ArrayList<>();
        response.json().get("items").forEach(items::add);
        return items;
    }

    private String createUser(String name, String account, String role) {
        Response r = api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password", PASSWORD,
                "defaultAccount", account, "roles", List.of(role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return name;
    }
}
