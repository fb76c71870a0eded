package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.api.fuzz.RawHttp;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * Bad input the hardening issue found answered 5xx, each now a 400 problem naming the field: times
 * beyond what can be stored, products of user numbers that overflow, nulls inside maps and lists,
 * texts longer than their column, malformed query strings, huge hostlists; and error details that
 * name no Java class.
 */
@GantryIntegrationTest
class InputBoundsIntegrationTests {

    @LocalServerPort
    int port;

    private ApiClient api;
    private String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void aBeginTimeBeyondAnyStorableTimeIsRefusedInTheScriptAndInJson() {
        assertRefused(submit(Map.of("hold", true, "script", "#!/bin/bash\n#SBATCH --begin=now+31556889864403199\ntrue\n")),
                "script:2", "beyond");
        assertRefused(submit(Map.of("hold", true, "beginTime", "+1000000000-01-01T00:00:00Z")), "beginTime", "9999");
        assertRefused(submit(Map.of("hold", true, "beginTime", "-5000-01-01T00:00:00Z")), "beginTime", "1970");
    }

    @Test
    void sacctAndUtilizationWindowsAtTheExtremesAreRefused() {
        assertRefused(api.get("/api/v1/accounting/jobs?start=%2B1000000000-01-01T00:00:00Z", admin), "start", "9999");
        assertRefused(api.get("/api/v1/accounting/jobs?end=-999999999-01-01T00:00:00Z", admin), "end", "1970");
        assertRefused(api.get("/api/v1/reports/utilization?start=-999999999-01-01", admin), "start", "1970");
        assertThat(api.get("/api/v1/accounting/jobs?start=1970-01-01&end=9999-12-31", admin).status()).isEqualTo(200);
    }

    @Test
    void aReservationOfLongMaxSecondsIsRefused() {
        Response response = api.send("POST", "/api/v1/reservations", admin, Map.of("name", unique("resv"),
                "nodes", "cpu001", "durationSeconds", Long.MAX_VALUE, "users", List.of("admin")));
        assertRefused(response, "durationSeconds", "100 years");
        Response farEnd = api.send("POST", "/api/v1/reservations", admin, Map.of("name", unique("resv"),
                "nodes", "cpu001", "endTime", "+1000000000-01-01T00:00:00Z", "users", List.of("admin")));
        assertRefused(farEnd, "endTime", "9999");
    }

    @Test
    void productsOfUserNumbersThatOverflowAreRefusedNamingTheField() {
        assertRefused(submit(Map.of("hold", true, "gpusPerTask", 1 << 30, "tasks", 4)), "gpusPerTask", "at most");
        assertRefused(submit(Map.of("hold", true, "memoryMb", Long.MAX_VALUE, "nodes", 2, "partition", "cpu")),
                "memoryMb", "memory");
        assertRefused(submit(Map.of("hold", true, "memPerCpuMb", Long.MAX_VALUE, "tasks", 2, "partition", "cpu")),
                "memPerCpuMb", "memory");
        assertRefused(submit(Map.of("hold", true, "timeLimitSeconds", Long.MAX_VALUE, "partition", "cpu")),
                "timeLimitSeconds", "100 years");
    }

    @Test
    void aChangedNiceValueKeepsToTheSubmissionsRange() {
        String name = unique("u");
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password",
                "secret-password", "roles", List.of("USER"), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String user = api.token(name, "secret-password");
        long id = api.submitJob(user, Map.of("hold", true, "partition", "cpu"));
        assertRefused(api.send("PATCH", "/api/v1/jobs/" + id, user, Map.of("nice", -5)), "nice", "operator");
        assertRefused(api.send("PATCH", "/api/v1/jobs/" + id, admin, Map.of("nice", Integer.MIN_VALUE)), "nice",
                "between");
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
    }

    @Test
    void nullsInsideMapsAndListsAreRefusedNamingWhere() {
        Map<String, String> environment = new HashMap<>();
        environment.put("A", null);
        assertRefused(submit(Map.of("hold", true, "environment", environment)), "environment.A", "null");
        Response association = api.send("POST", "/api/v1/associations", admin,
                "{\"account\":\"root\",\"user\":\"admin\",\"qos\":[\"normal\",null]}");
        assertRefused(association, "qos[1]", "null");
        Response agent = api.send("POST", "/api/v1/agents/register", joinToken(),
                "{\"name\":\"" + unique("n") + "\",\"cpus\":1,\"memoryMb\":100,\"features\":[null]}");
        assertRefused(agent, "features[0]", "null");
    }

    @Test
    void textsLongerThanTheirColumnAreRefusedBeforeTheStore() {
        assertRefused(submit(Map.of("hold", true, "dependency", "afterok:" + "1:".repeat(2500) + "1")), "dependency",
                "4000");
        assertRefused(submit(Map.of("hold", true, "comment", "c".repeat(4097))), "comment", "4096");
        assertRefused(submit(Map.of("hold", true, "workdir", "/" + "w".repeat(4096))), "workdir", "4096");
        assertRefused(submit(Map.of("hold", true, "constraints", "f".repeat(1025))), "constraints", "1024");
        assertRefused(submit(Map.of("hold", true, "script", "#!/bin/bash\n#SBATCH --comment=" + "c".repeat(5000)
                + "\ntrue\n")), "script:2", "4096");
        assertRefused(api.send("POST", "/api/v1/accounts", admin, Map.of("name", unique("a"),
                "description", "d".repeat(1025))), "description", "1024");
        assertRefused(api.send("POST", "/api/v1/accounts", admin, Map.of("name", unique("a"),
                "organization", "o".repeat(257))), "organization", "256");
    }

    @Test
    void aScriptMayBeFourMegabytesButNoMore() {
        String header = "#!/bin/bash\n";
        String fits = header + "#".repeat(4 * 1024 * 1024 - header.length() - 1) + "\n";
        Response accepted = submit(Map.of("hold", true, "partition", "cpu", "script", fits));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(201);
        long id = accepted.json().get("jobId").asLong();
        assertThat(api.get("/api/v1/jobs/" + id, admin).json().get("script").asString()).hasSize(fits.length());
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);

        Response tooLarge = submit(Map.of("hold", true, "partition", "cpu", "script", fits + "x"));
        assertRefused(tooLarge, "script", "gantry.jobs.max-script-bytes");
    }

    @Test
    void malformedQueryStringsAreA400Problem() {
        RawHttp http = new RawHttp(port, 10_000);
        for (String query : List.of("user=%zz", "user=%", "state=%e9", "name=%c3%28", "user=%00")) {
            RawHttp.Answer answer = http.send("GET", ("/api/v1/jobs?" + query).getBytes(),
                    Map.of("Authorization", "Bearer " + admin), null);
            assertThat(answer.status()).as(query + ": " + answer.body()).isEqualTo(400);
            assertThat(answer.contentType()).as(query).startsWith("application/problem+json");
        }
        RawHttp.Answer rawByte = http.send("GET", new byte[] {'/', 'a', 'p', 'i', '/', 'v', '1', '/', 'j', 'o', 'b', 's',
            '?', 'u', '=', (byte) 0xff}, Map.of("Authorization", "Bearer " + admin), null);
        assertThat(rawByte.status()).as(rawByte.body()).isEqualTo(400);
    }

    @Test
    void errorDetailsNameNoJavaClass() {
        List<Response> answers = List.of(
                api.send("POST", "/api/v1/jobs", admin, "[]"),
                api.send("POST", "/api/v1/jobs", admin, "null"),
                api.send("POST", "/api/v1/jobs", admin, "{\"nodes\":\"many\"}"),
                api.send("POST", "/api/v1/jobs", admin, "{\"nodes\":99999999999}"),
                api.send("POST", "/api/v1/associations", admin, "{\"qos\":{}}"),
                api.send("POST", "/api/v1/agents/register", joinToken(), "null"),
                api.get("/api/v1/associations/abc", admin));
        for (Response answer : answers) {
            assertThat(answer.status()).as(answer.body()).isEqualTo(400);
            assertThat(answer.body()).doesNotContainPattern("java\\.|io\\.gantry|tools\\.jackson|springframework|\\$");
        }
        assertThat(answers.get(2).json().get("errors").get(0).get("field").asString()).isEqualTo("nodes");
        assertThat(answers.get(2).body()).contains("expected an integer");
    }

    @Test
    void aHugeNodelistIsRefusedQuicklyWithAFewNamesAndACount() {
        long started = System.nanoTime();
        Response huge = submit(Map.of("hold", true, "nodelist", "x[1-1000000]"));
        Response many = submit(Map.of("hold", true, "nodelist", "x[1-60000]"));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertRefused(huge, "nodelist", "more than 65536");
        assertRefused(many, "nodelist", "'x1', 'x2', 'x3', 'x4', 'x5' and 59,995 more (60,000 in all)");
        assertThat(many.body().length()).isLessThan(2000);
    }

    @Test
    void aNulCharacterInAnyTextIsRefusedNamingTheField() {
        assertRefused(submit(Map.of("hold", true, "name", "a\u0000b")), "name", "NUL");
        assertRefused(api.send("POST", "/api/v1/accounts", admin, Map.of("name", unique("a"), "description", "\u0000")),
                "description", "NUL");
    }

    private Response submit(Map<String, Object> job) {
        return api.send("POST", "/api/v1/jobs", admin, job);
    }

    private String joinToken() {
        return api.get("/api/v1/agents/join-token", admin).json().get("joinToken").asString();
    }

    private static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void assertRefused(Response response, String field, String says) {
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.isProblem()).as(response.contentType()).isTrue();
        JsonNode errors = response.json().get("errors");
        assertThat(errors).as(response.body()).isNotNull();
        assertThat(errors.findValuesAsString("field")).as(response.body()).contains(field);
        assertThat(response.body()).contains(says);
    }
}
