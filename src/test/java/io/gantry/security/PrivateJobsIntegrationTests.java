package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import io.gantry.support.SseClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * With {@code gantry.jobs.private-jobs} (Slurm's PrivateData=jobs) a USER sees none of another
 * user's jobs: not in lists, sacct, priorities or the event stream, and their ids answer 404 to
 * every call, as ids that were never used do; the owner and OPERATORs still see them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "gantry.jobs.private-jobs=true")
@ActiveProfiles("postgres")
@DirtiesContext
class PrivateJobsIntegrationTests {

    private static final String DATABASE = "gantry_private_jobs_it_" + ProcessHandle.current().pid();
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @LocalServerPort
    int port;

    @Test
    void aUserSeesNoneOfAnotherUsersJobsAnywhere() throws Exception {
        ApiClient api = new ApiClient(port);
        String admin = api.adminToken();
        String s = UUID.randomUUID().toString().substring(0, 8);
        String aliceName = "alice" + s;
        String alice = token(api, user(api, admin, aliceName, "USER"));
        String bob = token(api, user(api, admin, "bob" + s, "USER"));
        String operator = token(api, user(api, admin, "oper" + s, "OPERATOR"));

        try (SseClient bobStream = SseClient.open(port, bob, null);
                SseClient aliceStream = SseClient.open(port, alice, null);
                SseClient operatorStream = SseClient.open(port, operator, null)) {
            List.of(bobStream, aliceStream, operatorStream).forEach(c -> c.awaitComment("connected"));
            long done = api.submitJob(alice, Map.of("name", "secret-project-" + s, "partition", "cpu",
                    "simulatedRunSeconds", 1));
            api.awaitJobState(done, alice, "COMPLETED", PATIENCE);
            reserveCpuNodes(api, admin, "maint-" + s);
            long held = api.submitJob(alice, Map.of("name", "secret-pending-" + s, "partition", "cpu"));
            long bobs = api.submitJob(bob, Map.of("name", "bobs-" + s, "partition", "cpu"));

            // Another user's job answers as a job that never existed, whatever bob asks of it.
            Response never = api.get("/api/v1/jobs/999999999", bob);
            assertThat(never.status()).isEqualTo(404);
            for (String path : List.of("/api/v1/jobs/" + done, "/api/v1/jobs/" + held, "/api/v1/jobs/" + done + "/events",
                    "/api/v1/jobs/" + done + "/steps")) {
                assertNotFound(api.get(path, bob), never);
                assertThat(api.get(path, alice).status()).isEqualTo(200);
                assertThat(api.get(path, operator).status()).isEqualTo(200);
            }
            assertNotFound(api.send("DELETE", "/api/v1/jobs/" + held, bob, null), never);
            assertNotFound(api.send("POST", "/api/v1/jobs/" + held + "/hold", bob, null), never);
            assertNotFound(api.send("POST", "/api/v1/jobs/" + done + "/requeue", bob, null), never);
            assertNotFound(api.send("PATCH", "/api/v1/jobs/" + held, bob, Map.of("nice", 5)), never);
            assertThat(api.get("/api/v1/jobs/" + held, alice).json().get("state").asString()).isEqualTo("PENDING");
            Response dependent = api.send("POST", "/api/v1/jobs", bob, Map.of("partition", "cpu",
                    "dependency", "afterok:" + done));
            assertThat(dependent.status()).as("a dependency on her job is refused as on no job").isEqualTo(400);
            assertThat(dependent.body()).contains("job " + done + " does not exist");

            // Lists and sacct leave them out for bob, not for the operator.
            assertThat(api.get("/api/v1/jobs?user=" + aliceName, bob).json().get("total").asLong()).isZero();
            Response bobsQueue = api.get("/api/v1/jobs?size=500", bob);
            assertThat(ids(bobsQueue.json().get("items"), "id")).contains(Long.toString(bobs))
                    .doesNotContain(Long.toString(done), Long.toString(held));
            assertThat(bobsQueue.body()).doesNotContain(aliceName).doesNotContain("secret-");
            assertThat(api.get("/api/v1/jobs?user=" + aliceName, operator).json().get("total").asLong()).isEqualTo(2);
            assertThat(api.get("/api/v1/accounting/jobs?jobId=" + done, bob).json().get("items")).isEmpty();
            assertThat(api.get("/api/v1/accounting/jobs?user=" + aliceName, bob).json().get("items")).isEmpty();
            assertThat(api.get("/api/v1/accounting/jobs?jobId=" + done, operator).json().get("items")).hasSize(1);

            // Priorities: bob's own pending job, none of alice's.
            await().atMost(PATIENCE).until(() -> ids(api.get("/api/v1/priority", operator).json().get("jobs"), "jobId")
                    .containsAll(List.of(Long.toString(held), Long.toString(bobs))));
            Response bobsPriorities = api.get("/api/v1/priority", bob);
            assertThat(ids(bobsPriorities.json().get("jobs"), "jobId")).contains(Long.toString(bobs))
                    .doesNotContain(Long.toString(held));
            assertThat(bobsPriorities.body()).doesNotContain(aliceName);
            assertThat(api.get("/api/v1/priority?user=" + aliceName, bob).json().get("jobs")).isEmpty();

            // Events: alice and the operator hear of alice's job; bob, who hears of his own (cancelled
            // last, so everything before it has reached him), hears nothing of hers.
            await().atMost(PATIENCE).until(() -> heard(operatorStream, done, "COMPLETED") && heard(aliceStream, done,
                    "COMPLETED"));
            // The scheduler's word on a pending job (its reason, here the reserved nodes) goes to its owner alike.
            await().atMost(PATIENCE).until(() -> heard(operatorStream, held, "REPLANNED")
                    && heard(aliceStream, held, "REPLANNED") && heard(bobStream, bobs, "REPLANNED"));
            assertThat(api.send("DELETE", "/api/v1/jobs/" + bobs, bob, null).status()).isEqualTo(200);
            await().atMost(PATIENCE).until(() -> heard(bobStream, bobs, "CANCELLED"));
            assertThat(heardOf(bobStream, done)).isFalse();
            assertThat(heardOf(bobStream, held)).isFalse();
            assertThat(heardOf(aliceStream, bobs)).isFalse();
        }
    }

    private static void assertNotFound(Response response, Response never) {
        assertThat(response.status()).as(response.body()).isEqualTo(404);
        assertThat(response.json().get("type")).isEqualTo(never.json().get("type"));
        assertThat(response.body()).doesNotContain("alice");
    }

    private static List<String> ids(JsonNode items, String field) {
        return StreamSupport.stream(items.spliterator(), false).map(j -> j.get(field).asString()).toList();
    }

    /** Whether the stream carried an event of job {@code jobId} (or one of its tasks) with this change. */
    private static boolean heard(SseClient stream, long jobId, String change) {
        return stream.events().stream().filter(e -> "job".equals(e.event())).map(e -> JSON.readTree(e.data()))
                .anyMatch(d -> ofJob(d, jobId) && change.equals(d.get("change").asString()));
    }

    private static boolean heardOf(SseClient stream, long jobId) {
        return stream.events().stream().filter(e -> "job".equals(e.event())).map(e -> JSON.readTree(e.data()))
                .anyMatch(d -> ofJob(d, jobId));
    }

    private static boolean ofJob(JsonNode event, long jobId) {
        String id = event.get("id").asString();
        return id.equals(Long.toString(jobId)) || id.startsWith(jobId + "_");
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

    private static String user(ApiClient api, String admin, String name, String role) {
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", name,
                "password", "secret-password", "roles", List.of(role), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return name;
    }

    private static String token(ApiClient api, String name) {
        return api.token(name, "secret-password");
    }
}
