package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.OwnDatabase;
import tools.jackson.databind.JsonNode;

/**
 * With {@code gantry.accounting.private-users} (Slurm's PrivateData=users) a USER meets no other
 * user's name in associations, fair share or priorities; a coordinator sees the users of the
 * accounts they coordinate, OPERATORs everyone. Jobs stay public here: that is private-jobs' call.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "gantry.accounting.private-users=true")
@ActiveProfiles("postgres")
@DirtiesContext
class PrivateUsersIntegrationTests {

    private static final String DATABASE = "gantry_private_users_it_" + ProcessHandle.current().pid();
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @LocalServerPort
    int port;

    @Test
    void aUserSeesNoOtherUserNamesButACoordinatorSeesTheirAccounts() {
        ApiClient api = new ApiClient(port);
        String admin = api.adminToken();
        String s = UUID.randomUUID().toString().substring(0, 8);
        String lab = "lab-" + s;
        String team = "team-" + s;
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", lab)).status()).isEqualTo(201);
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", team, "parent", lab)).status())
                .isEqualTo(201);
        String aliceName = user(api, admin, "alice" + s, "USER", lab);
        String bobName = user(api, admin, "bob" + s, "USER", lab);
        String tomName = user(api, admin, "tom" + s, "USER", team);
        String coraName = user(api, admin, "cora" + s, "USER", "root");
        assertThat(api.send("PUT", "/api/v1/accounts/" + lab + "/coordinators", admin,
                Map.of("users", List.of(coraName))).status()).isEqualTo(200);
        String alice = api.token(aliceName, "secret-password");
        String bob = api.token(bobName, "secret-password");
        String cora = api.token(coraName, "secret-password");
        String operator = api.token(user(api, admin, "oper" + s, "OPERATOR", "root"), "secret-password");
        reserveCpuNodes(api, admin, "maint-" + s);
        long alicesJob = api.submitJob(alice, Map.of("name", "a-" + s, "partition", "cpu"));
        long bobsJob = api.submitJob(bob, Map.of("name", "b-" + s, "partition", "cpu"));

        // Associations: bob sees his own and the accounts', not alice's, even by asking for her or her row.
        Response bobsAssociations = api.get("/api/v1/associations?size=500", bob);
        assertThat(users(bobsAssociations.json().get("items"))).containsExactly(bobName);
        assertThat(bobsAssociations.body()).doesNotContain(aliceName).doesNotContain(tomName).contains(lab);
        assertThat(api.get("/api/v1/associations?user=" + aliceName, bob).json().get("items")).isEmpty();
        long alicesAssociation = api.get("/api/v1/associations?user=" + aliceName, admin).json().get("items").get(0)
                .get("id").asLong();
        assertThat(api.get("/api/v1/associations/" + alicesAssociation, bob).status()).isEqualTo(404);
        assertThat(api.get("/api/v1/associations/" + alicesAssociation, alice).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/associations/" + alicesAssociation, cora).status()).isEqualTo(200);
        assertThat(users(api.get("/api/v1/associations?size=500", cora).json().get("items")))
                .contains(aliceName, bobName, tomName, coraName);
        assertThat(users(api.get("/api/v1/associations?size=500", operator).json().get("items")))
                .contains(aliceName, bobName, tomName, coraName);

        // Fair share: the accounts stay, the other users' lines go.
        Response bobsTree = api.get("/api/v1/fairshare", bob);
        assertThat(users(bobsTree.json())).containsExactly(bobName);
        assertThat(StreamSupport.stream(bobsTree.json().spliterator(), false)
                .anyMatch(l -> lab.equals(l.get("account").asString()) && l.get("user").isNull())).isTrue();
        assertThat(bobsTree.body()).doesNotContain(aliceName);
        assertThat(users(api.get("/api/v1/fairshare", cora).json())).contains(aliceName, bobName, tomName);
        assertThat(users(api.get("/api/v1/fairshare", operator).json())).contains(aliceName, bobName, tomName);

        // Priorities: bob sees alice's pending job, as the queue is public, but not whose it is.
        await().atMost(PATIENCE).until(() -> priority(api, operator, alicesJob) != null
                && priority(api, operator, bobsJob) != null);
        assertThat(priority(api, operator, alicesJob).get("user").asString()).isEqualTo(aliceName);
        assertThat(priority(api, cora, alicesJob).get("user").asString()).isEqualTo(aliceName);
        JsonNode hidden = priority(api, bob, alicesJob);
        assertThat(hidden.get("user").isNull()).isTrue();
        assertThat(hidden.get("account").asString()).isEqualTo(lab);
        assertThat(priority(api, bob, bobsJob).get("user").asString()).isEqualTo(bobName);
        assertThat(api.get("/api/v1/priority", bob).body()).doesNotContain(aliceName);
        assertThat(api.get("/api/v1/priority?user=" + aliceName, bob).json().get("jobs")).isEmpty();
    }

    private static List<String> users(JsonNode lines) {
        return StreamSupport.stream(lines.spliterator(), false).map(l -> l.get("user"))
                .filter(u -> u != null && !u.isNull()).map(JsonNode::asString).filter(Objects::nonNull).distinct()
                .toList();
    }

    private static JsonNode priority(ApiClient api, String token, long jobId) {
        for (JsonNode j : api.get("/api/v1/priority", token).json().get("jobs")) {
            if (j.get("jobId").asString().equals(Long.toString(jobId))) {
                return j;
            }
        }
        return null;
    }

    /**
     * A maintenance reservation over every cpu node (this context's database is its own): cpu jobs
     * submitted now stay pending, planned by the scheduler and so listed with their priorities.
     */
    private static void reserveCpuNodes(ApiClient api, String admin, String name) {
        Response reserved = api.send("POST", "/api/v1/reservations", admin, Map.of("name", name,
                "nodes", "cpu[001-008]", "durationSeconds", 3600, "users", List.of("admin"),
                "flags", List.of("MAINT", "IGNORE_JOBS")));
        assertThat(reserved.status()).as(reserved.body()).isEqualTo(201);
    }

    private static String user(ApiClient api, String admin, String name, String role, String account) {
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", name,
                "password", "secret-password", "roles", List.of(role), "defaultAccount", account));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return name;
    }
}
