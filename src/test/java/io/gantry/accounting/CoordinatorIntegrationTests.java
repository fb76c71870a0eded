package io.gantry.accounting;

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

/** Account coordinators manage their account's sub-tree, and nothing else; only ADMINs name them. */
@GantryIntegrationTest
class CoordinatorIntegrationTests {

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
    void aCoordinatorManagesItsSubTreeAndNothingElse() {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String dept = "dept-" + s;
        String other = "other-" + s;
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", dept)).status()).isEqualTo(201);
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", other)).status()).isEqualTo(201);
        String boss = user("boss" + s.substring(0, 6), dept);
        String member = user("memb" + s.substring(0, 6), dept);
        String bossToken = api.token(boss, "secret-password");

        // Before being named, the boss is a plain USER, and who-am-I says they coordinate nothing.
        assertThat(api.get("/api/v1/auth/whoami", bossToken).json().get("coordinatorOf").isEmpty()).isTrue();
        assertThat(api.send("POST", "/api/v1/accounts", bossToken, Map.of("name", "team-" + s, "parent", dept))
                .status()).isEqualTo(403);
        // Only an ADMIN names coordinators.
        assertThat(api.send("PUT", "/api/v1/accounts/" + dept + "/coordinators", bossToken,
                Map.of("users", List.of(boss))).status()).isEqualTo(403);
        Response named = api.send("PUT", "/api/v1/accounts/" + dept + "/coordinators", admin,
                Map.of("users", List.of(boss)));
        assertThat(named.status()).as(named.body()).isEqualTo(200);
        assertThat(api.get("/api/v1/accounts/" + dept + "/coordinators", bossToken).json().get("users").get(0)
                .asString()).isEqualTo(boss);
        // Who-am-I tells the dashboard which sub-trees they manage.
        JsonNode me = api.get("/api/v1/auth/whoami", bossToken).json();
        assertThat(me.get("coordinatorOf").size()).isEqualTo(1);
        assertThat(me.get("coordinatorOf").get(0).asString()).isEqualTo(dept);
        assertThat(api.send("PUT", "/api/v1/accounts/" + dept + "/coordinators", admin,
                Map.of("users", List.of("nobody-" + s))).body()).contains("users[0]");

        // Within the sub-tree: a sub-account, a user's association in it, its change and removal.
        Response team = api.send("POST", "/api/v1/accounts", bossToken, Map.of("name", "team-" + s, "parent", dept,
                "shares", 2));
        assertThat(team.status()).as(team.body()).isEqualTo(201);
        Response association = api.send("POST", "/api/v1/associations", bossToken,
                Map.of("account", "team-" + s, "user", member));
        assertThat(association.status()).as(association.body()).isEqualTo(201);
        long id = association.json().get("id").asLong();
        assertThat(api.send("PATCH", "/api/v1/associations/" + id, bossToken, Map.of("maxJobs", 4)).status())
                .isEqualTo(200);
        assertThat(api.send("PATCH", "/api/v1/accounts/team-" + s, bossToken, Map.of("shares", 5)).status())
                .isEqualTo(200);
        assertThat(api.send("DELETE", "/api/v1/associations/" + id, bossToken, null).status()).isEqualTo(204);
        assertThat(api.send("DELETE", "/api/v1/accounts/team-" + s, bossToken, null).status()).isEqualTo(204);

        // Outside it: 403 naming who may.
        Response outside = api.send("POST", "/api/v1/associations", bossToken, Map.of("account", other, "user", member));
        assertThat(outside.status()).isEqualTo(403);
        assertThat(outside.body()).contains("coordinator of account '" + other + "'");
        assertThat(api.send("PATCH", "/api/v1/accounts/" + other, bossToken, Map.of("shares", 9)).status())
                .isEqualTo(403);
        assertThat(api.send("POST", "/api/v1/accounts", bossToken, Map.of("name", "rogue-" + s)).status())
                .isEqualTo(403);
        assertThat(api.send("POST", "/api/v1/qos", bossToken, Map.of("name", "q-" + s)).status()).isEqualTo(403);
    }

    @Test
    void aCoordinatorCannotRaiseTheirOwnAccountClearTheirOwnLimitsOrGrantAQosTheAccountLacks() {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String physics = "physics-" + s;
        String team = "optics-" + s;
        String urgent = "urgent-" + s;
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", physics, "shares", 10)).status())
                .isEqualTo(201);
        assertThat(api.send("POST", "/api/v1/qos", admin, Map.of("name", urgent, "priority", 100000,
                "preempt", List.of("normal"))).status()).isEqualTo(201);
        long physicsOwn = association(physics, null);
        assertThat(api.send("PATCH", "/api/v1/associations/" + physicsOwn, admin,
                Map.of("qos", List.of("normal"), "maxJobs", 10)).status()).isEqualTo(200);
        String boss = user("coor" + s.substring(0, 6), physics);
        String member = user("phys" + s.substring(0, 6), physics);
        long bossOwn = association(physics, boss);
        assertThat(api.send("PATCH", "/api/v1/associations/" + bossOwn, admin,
                Map.of("maxJobs", 2, "grpTres", "cpu=8", "qos", List.of("normal"))).status()).isEqualTo(200);
        assertThat(api.send("PUT", "/api/v1/accounts/" + physics + "/coordinators", admin,
                Map.of("users", List.of(boss))).status()).isEqualTo(200);
        String bossToken = api.token(boss, "secret-password");

        // Escape 1: the coordinated account's own shares (on the account or its own association).
        Response shares = api.send("PATCH", "/api/v1/accounts/" + physics, bossToken, Map.of("shares", 1_000_000));
        assertForbidden(shares, "below their own");
        assertForbidden(api.send("PATCH", "/api/v1/associations/" + physicsOwn, bossToken,
                Map.of("shares", 1_000_000, "maxJobs", -1)), "above '" + physics + "'");
        assertThat(api.get("/api/v1/accounts/" + physics, bossToken).json().get("shares").asInt()).isEqualTo(10);
        assertThat(api.get("/api/v1/associations/" + physicsOwn, bossToken).json().get("maxJobs").asInt())
                .isEqualTo(10);
        assertForbidden(api.send("DELETE", "/api/v1/accounts/" + physics, bossToken, null), "above");

        // Escape 2: clearing their own association's limits.
        Response clear = api.send("PATCH", "/api/v1/associations/" + bossOwn, bossToken,
                Map.of("maxJobs", -1, "grpTres", ""));
        assertForbidden(clear, "their own association");
        JsonNode mine = api.get("/api/v1/associations/" + bossOwn, bossToken).json();
        assertThat(mine.get("maxJobs").asInt()).isEqualTo(2);
        assertThat(mine.get("grpTres").asString()).isEqualTo("cpu=8");

        // Escape 3: granting themselves (or anyone) a QOS the account does not allow.
        assertForbidden(api.send("PATCH", "/api/v1/associations/" + bossOwn, bossToken,
                Map.of("qos", List.of("normal", urgent))), "their own association");
        assertThat(api.send("POST", "/api/v1/accounts", bossToken, Map.of("name", team, "parent", physics))
                .status()).isEqualTo(201);
        assertForbidden(api.send("POST", "/api/v1/associations", bossToken,
                Map.of("account", team, "user", boss, "qos", List.of(urgent))), "their own association");
        Response memberInTeam = api.send("POST", "/api/v1/associations", bossToken,
                Map.of("account", team, "user", member));
        assertThat(memberInTeam.status()).as(memberInTeam.body()).isEqualTo(201);
        assertThat(memberInTeam.json().get("qos").get(0).asString())
                .as("a coordinator's new association allows what their account allows, not every QOS")
                .isEqualTo("normal");
        long memberId = memberInTeam.json().get("id").asLong();
        Response grant = api.send("PATCH", "/api/v1/associations/" + memberId, bossToken,
                Map.of("qos", List.of("normal", urgent)));
        assertForbidden(grant, "does not allow QOS '" + urgent + "'");
        assertThat(grant.json().get("errors").get(0).get("field").asString()).isEqualTo("qos[1]");
        assertForbidden(api.send("PATCH", "/api/v1/associations/" + memberId, bossToken,
                Map.of("defaultQos", urgent)), "defaultQos");
        assertForbidden(api.send("PATCH", "/api/v1/associations/" + memberId, bossToken,
                Map.of("qos", List.of())), "allows every QOS");
        assertThat(api.get("/api/v1/associations/" + memberId, bossToken).json().get("qos").size()).isEqualTo(1);
        Response submitted = api.send("POST", "/api/v1/jobs", api.token(member, "secret-password"),
                Map.of("account", team, "qos", urgent, "hold", true));
        assertThat(submitted.status()).as("the member still cannot use the QOS").isEqualTo(400);
        assertThat(submitted.body()).contains("InvalidQOS");

        // Below their account the coordinator manages as before: the sub-account's shares and own
        // association, and a user's association in it.
        Response teamShares = api.send("PATCH", "/api/v1/accounts/" + team, bossToken, Map.of("shares", 7));
        assertThat(teamShares.status()).as(teamShares.body()).isEqualTo(200);
        assertThat(teamShares.json().get("shares").asInt()).isEqualTo(7);
        Response teamOwn = api.send("PATCH", "/api/v1/associations/" + association(team, null), bossToken,
                Map.of("maxJobs", 20, "qos", List.of("normal")));
        assertThat(teamOwn.status()).as(teamOwn.body()).isEqualTo(200);
        Response memberLimits = api.send("PATCH", "/api/v1/associations/" + memberId, bossToken,
                Map.of("maxJobs", 3, "shares", 4, "defaultQos", "normal"));
        assertThat(memberLimits.status()).as(memberLimits.body()).isEqualTo(200);
        assertThat(memberLimits.json().get("maxJobs").asInt()).isEqualTo(3);
        assertThat(memberLimits.json().get("shares").asInt()).isEqualTo(4);
        // A user's association in the coordinated account itself, not the coordinator's own.
        Response memberInPhysics = api.send("PATCH", "/api/v1/associations/" + association(physics, member), bossToken,
                Map.of("maxJobs", 5));
        assertThat(memberInPhysics.status()).as(memberInPhysics.body()).isEqualTo(200);

        // An ADMIN may do all of it.
        assertThat(api.send("PATCH", "/api/v1/associations/" + memberId, admin, Map.of("qos", List.of(urgent)))
                .status()).isEqualTo(200);
        assertThat(api.send("PATCH", "/api/v1/accounts/" + physics, admin, Map.of("shares", 11)).status())
                .isEqualTo(200);
    }

    private void assertForbidden(Response response, String why) {
        assertThat(response.status()).as(response.body()).isEqualTo(403);
        assertThat(response.isProblem()).isTrue();
        assertThat(response.body()).contains(why);
    }

    private long association(String account, String user) {
        for (JsonNode a : api.get("/api/v1/associations?account=" + account + "&size=1000", admin).json().get("items")) {
            boolean own = a.get("user") == null || a.get("user").isNull();
            if (user == null ? own : !own && a.get("user").asString().equals(user)) {
                return a.get("id").asLong();
            }
        }
        throw new AssertionError("no association of " + user + " in " + account);
    }

    private String user(String name, String account) {
        Response r = api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password", "secret-password",
                "defaultAccount", account));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return name;
    }
}
