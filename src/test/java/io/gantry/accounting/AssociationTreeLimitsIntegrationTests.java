package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.SlurmReference;
import tools.jackson.databind.JsonNode;

/**
 * Association limits set on a parent account hold for the jobs of the accounts below it (issue 32,
 * "Done when" 2), on the demo cluster's simulated gpu partition (16 nodes of 8 GPUs): a limit
 * enforced only on a job's own account would let every job run.
 */
@GantryIntegrationTest
class AssociationTreeLimitsIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(90);

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
    void aParentsGrpTresHoldsTheJobsOfBothChildrenToFourGpusAndTheRestWaitWithAssocGrpGres() {
        String parent = account("root");
        patch("/api/v1/associations/" + accountAssociation(parent), Map.of("grpTres", "gres/gpu=4"));
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            tokens.add(user(account(parent)));
        }
        List<Long> jobs = new ArrayList<>();
        for (String token : tokens) {
            for (int k = 0; k < 4; k++) {
                jobs.add(created(api.send("POST", "/api/v1/jobs", token, Map.of("partition", "gpu", "gpus", 1,
                        "timeLimitSeconds", 300, "simulatedRunSeconds", 6))));
            }
        }

        await().atMost(PATIENCE).until(() -> count(jobs, "RUNNING") == 4 && reasons(jobs, "AssocGrpGRES") == 4);
        // As the reference Slurm with slurmdbd ran the same (scripts/record-slurm-limits-fixtures.sh tree).
        assertThat(SlurmReference.output("tree", "squeue -h -t R")).containsExactly("4");
        assertThat(SlurmReference.output("tree", "squeue -h -t PD")).containsExactly("      4 AssocGrpGRES");

        await().atMost(PATIENCE).until(() -> count(jobs, "COMPLETED") == jobs.size());
        // Never more than four at once, from the times the jobs ran (one GET per job is no snapshot: a sample
        // taken across the turnover would count the first half still running and the second half started).
        List<long[]> runs = new ArrayList<>();
        for (long id : jobs) {
            JsonNode j = job(id);
            runs.add(new long[] {java.time.Instant.parse(j.get("startTime").asString()).toEpochMilli(),
                java.time.Instant.parse(j.get("endTime").asString()).toEpochMilli()});
        }
        assertThat(mostAtOnce(runs)).as("jobs running at once under the parent's gres/gpu=4").isLessThanOrEqualTo(4);
    }

    @Test
    void aParentsGrpSubmitJobsRefusesTheChildsSubmissionBeyondItWithSlurmsWords() {
        String parent = account("root");
        patch("/api/v1/associations/" + accountAssociation(parent), Map.of("grpSubmitJobs", 2));
        String child = account(parent);
        String first = user(child);
        String second = user(account(parent));
        long a = created(api.send("POST", "/api/v1/jobs", first, Map.of("partition", "cpu", "hold", true)));
        long b = created(api.send("POST", "/api/v1/jobs", second, Map.of("partition", "cpu", "hold", true)));

        Response refused = api.send("POST", "/api/v1/jobs", first, Map.of("partition", "cpu", "hold", true));

        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.isProblem()).isTrue();
        String message = refused.json().get("errors").valueStream().filter(e -> e.get("field").asString()
                .equals("account")).map(e -> e.get("message").asString()).findFirst().orElse("");
        assertThat(message).startsWith("Job violates accounting/QOS policy (job submit limit, user's size and/or time "
                + "limits)").contains("GrpSubmitJobs", "'" + parent + "'", "has 2");
        api.send("DELETE", "/api/v1/jobs/" + a, admin, null);
        api.send("DELETE", "/api/v1/jobs/" + b, admin, null);
    }

    @Test
    void theNewLimitsAreStoredShownAndClearedAndABadOneIsA400NamingItsField() {
        String acct = account("root");
        long id = accountAssociation(acct);
        JsonNode set = patch("/api/v1/associations/" + id, Map.of("grpJobs", 7, "grpSubmitJobs", 9,
                "maxTresPerJob", "gres/gpu=2", "maxTresPerNode", "cpu=16", "maxWallSeconds", 3600));
        assertThat(set.get("grpJobs").asInt()).isEqualTo(7);
        assertThat(set.get("grpSubmitJobs").asInt()).isEqualTo(9);
        assertThat(set.get("maxTresPerJob").asString()).isEqualTo("gres/gpu=2");
        assertThat(set.get("maxTresPerNode").asString()).isEqualTo("cpu=16");
        assertThat(set.get("maxWallSeconds").asLong()).isEqualTo(3600);

        Response bad = api.send("PATCH", "/api/v1/associations/" + id, admin, Map.of("maxTresPerJob", "bogus=1",
                "maxWallSeconds", 0));
        assertThat(bad.status()).as(bad.body()).isEqualTo(400);
        assertThat(bad.body()).contains("maxTresPerJob", "maxWallSeconds");
        assertThat(api.get("/api/v1/associations/" + id, admin).json().get("maxTresPerJob").asString())
                .as("nothing half-written").isEqualTo("gres/gpu=2");

        JsonNode cleared = patch("/api/v1/associations/" + id, Map.of("grpJobs", -1, "maxTresPerJob", "",
                "maxWallSeconds", -1));
        assertThat(cleared.get("grpJobs").isNull()).isTrue();
        assertThat(cleared.get("maxTresPerJob").isNull()).isTrue();
        assertThat(cleared.get("maxWallSeconds").isNull()).isTrue();
    }

    // --- fixtures ---------------------------------------------------------------------------------

    /** The most runs ({start, end} in ms) that overlap at one moment; one ending as another starts does not. */
    private static int mostAtOnce(List<long[]> runs) {
        int most = 0;
        for (long[] at : runs) {
            int overlapping = 0;
            for (long[] r : runs) {
                if (r[0] <= at[0] && at[0] < r[1]) {
                    overlapping++;
                }
            }
            most = Math.max(most, overlapping);
        }
        return most;
    }

    private long count(List<Long> jobs, String state) {
        return jobs.stream().filter(id -> state.equals(job(id).get("state").asString())).count();
    }

    private long reasons(List<Long> jobs, String reason) {
        return jobs.stream().map(this::job).filter(j -> "PENDING".equals(j.get("state").asString())
                && reason.equals(j.get("reason").asString())).count();
    }

    private String account(String parent) {
        String name = "acct" + suffix();
        Response r = api.send("POST", "/api/v1/accounts", admin, Map.of("name", name, "parent", parent));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return name;
    }

    private long accountAssociation(String account) {
        return api.get("/api/v1/associations?account=" + account, admin).json().get("items").valueStream()
                .filter(a -> a.get("user").isNull()).findFirst().orElseThrow().get("id").asLong();
    }

    /** A new user whose default account is {@code account}; their token. */
    private String user(String account) {
        String name = "u" + suffix();
        Map<String, Object> body = new HashMap<>(Map.of("username", name, "password", "secret-password",
                "defaultAccount", account));
        Response created = api.send("POST", "/api/v1/users", admin, body);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return api.token(name, "secret-password");
    }

    private JsonNode patch(String path, Map<String, Object> body) {
        Response response = api.send("PATCH", path, admin, body);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private static long created(Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
