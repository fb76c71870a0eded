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

        // Before being named, the boss is a plain USER.
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

    private String user(String name, String account) {
        Response r = api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password", "secret-password",
                "defaultAccount", account));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return name;
    }
}
