package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import io.gantry.jobs.JobViews.JobView;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /jobs} sorted and paged by PostgreSQL: every sort key both ways with the (job id, task
 * id) tie-break, stable pages, the queue order by default, clear 400s for bad keys, and list items
 * without the scripts that one job's view and its node still get.
 */
@GantryIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobListsIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final List<String> KEYS = List.of("id", "submit", "start", "end", "priority", "user", "state");

    @LocalServerPort
    int port;

    @Autowired
    HostedJobs hosted;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    JobLists lists;

    ApiClient api;
    String admin;
    String other;
    String otherName;
    /** Every job of this class has this name, so lists can leave out the other tests' jobs. */
    final String tag = "lists-" + UUID.randomUUID().toString().substring(0, 8);
    int rows;

    /**
     * Eleven rows in every shape a sort meets: held jobs of two users and niceness, an array's three
     * tasks (one job id), a job cancelled while pending (an end, no start) and two that ran (both).
     */
    @BeforeAll
    void submitJobsOfEveryKind() {
        api = new ApiClient(port);
        admin = api.adminToken();
        otherName = "u" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", otherName,
                "password", "secret-password", "roles", List.of("USER"), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        other = api.token(otherName, "secret-password");

        long first = submit(admin, Map.of("partition", "cpu", "simulatedRunSeconds", 1));
        awaitState(Long.toString(first), "COMPLETED");
        submit(admin, Map.of("partition", "cpu", "hold", true));
        submit(admin, Map.of("partition", "cpu", "hold", true, "nice", 100));
        submit(admin, Map.of("partition", "cpu", "hold", true, "array", "0-2"));
        long cancelled = submit(admin, Map.of("partition", "cpu", "hold", true));
        assertThat(api.send("DELETE", "/api/v1/jobs/" + cancelled, admin, null).status()).isEqualTo(200);
        submit(other, Map.of("partition", "gpu", "hold", true));
        submit(admin, Map.of("partition", "cpu", "hold", true, "nice", 10));
        submit(other, Map.of("partition", "gpu", "hold", true));
        long last = submit(admin, Map.of("partition", "cpu", "simulatedRunSeconds", 1));
        awaitState(Long.toString(last), "COMPLETED");
        rows = 11;
    }

    @Test
    void everySortKeyOrdersBothWaysAndBreaksTiesByJobAndTaskId() {
        for (String key : KEYS) {
            for (boolean descending : new boolean[] {false, true}) {
                String sort = (descending ? "-" : "") + key;
                List<JsonNode> items = list("sort=" + sort + "&size=100");
                assertThat(items).as(sort).hasSize(rows);
                Comparator<JsonNode> order = comparator(key, descending).thenComparing(byId(descending));
                assertThat(ids(items)).as("sort=" + sort).containsExactlyElementsOf(ids(items.stream().sorted(order).toList()));

                // Unfiltered, the page comes straight off the key's index rather than from sorting the matches.
                Response all = api.get("/api/v1/jobs?size=100&sort=" + sort, admin);
                List<JsonNode> page = all.json().get("items").valueStream().toList();
                assertThat(page).as(sort).isNotEmpty();
                assertThat(ids(page)).as("unfiltered sort=" + sort).containsExactlyElementsOf(
                        ids(page.stream().sorted(order).toList()));
            }
        }
    }

    @Test
    void jobsNotYetStartedOrEndedSortAfterTheOthersAndFirstWhenDescending() {
        List<JsonNode> byStart = list("sort=start&size=100");
        assertThat(byStart.subList(0, 2)).allMatch(j -> !j.get("startTime").isNull());
        assertThat(byStart.subList(2, rows)).allMatch(j -> j.get("startTime").isNull());
        List<JsonNode> byEndDescending = list("sort=-end&size=100");
        assertThat(byEndDescending.subList(0, rows - 3)).allMatch(j -> j.get("endTime").isNull());
        assertThat(byEndDescending.get(rows - 1).get("state").asString()).as("the first job to end is last")
                .isEqualTo("COMPLETED");
    }

    @Test
    void severalKeysSortInTurn() {
        List<JsonNode> items = list("sort=state,-submit&size=100");
        Comparator<JsonNode> order = comparator("state", false).thenComparing(comparator("submit", true))
                .thenComparing(byId(true));
        assertThat(ids(items)).containsExactlyElementsOf(ids(items.stream().sorted(order).toList()));
        assertThat(items.get(0).get("state").asString()).isEqualTo("CANCELLED");
    }

    @Test
    void theDefaultOrderIsPendingByPriorityThenTheRestById() {
        List<JsonNode> items = list("size=100");
        Comparator<JsonNode> queue = Comparator
                .comparing((JsonNode j) -> j.get("state").asString().equals("PENDING") ? 0 : 1)
                .thenComparing(j -> j.get("state").asString().equals("PENDING") ? -j.get("priority").asLong() : 0L)
                .thenComparing(byId(false));
        assertThat(ids(items)).containsExactlyElementsOf(ids(items.stream().sorted(queue).toList()));
        assertThat(items.subList(0, 8)).allMatch(j -> j.get("state").asString().equals("PENDING"));
    }

    @Test
    void pagesFollowOneAnotherWithoutGapsOrRepeats() {
        // Keys the scheduler does not change between two requests (priorities may change every cycle).
        for (String sort : List.of("id", "-submit", "user", "start", "-end")) {
            List<String> whole = ids(list("sort=" + sort + "&size=100"));
            List<String> paged = new ArrayList<>();
            for (int page = 0; page * 3 < rows; page++) {
                Response response = api.get("/api/v1/jobs?name=" + tag + "&sort=" + sort + "&size=3&page=" + page, admin);
                assertThat(response.json().get("total").asLong()).isEqualTo(rows);
                assertThat(response.json().get("page").asInt()).isEqualTo(page);
                response.json().get("items").forEach(j -> paged.add(j.get("id").asString()));
            }
            assertThat(paged).as("sort=" + sort).containsExactlyElementsOf(whole);
        }
        Response beyond = api.get("/api/v1/jobs?name=" + tag + "&size=5&page=7", admin);
        assertThat(beyond.json().get("items")).isEmpty();
        assertThat(beyond.json().get("total").asLong()).isEqualTo(rows);
    }

    @Test
    void filtersStillNarrowTheList() {
        assertThat(list("user=" + otherName)).hasSize(2).allMatch(j -> j.get("user").asString().equals(otherName));
        assertThat(list("partition=gpu")).hasSize(2);
        assertThat(list("partition=cpu")).hasSize(9);
        assertThat(list("state=COMPLETED,CANCELLED")).hasSize(3);
        assertThat(api.get("/api/v1/jobs?user=" + otherName + "&name=" + tag, other).json().get("total").asLong())
                .isEqualTo(2);
    }

    @Test
    void nameContainsMatchesAPartOfTheNameInAnyCaseWhileNameStaysExact() {
        long literal = submit(admin, Map.of("name", tag + "-Train_50%", "partition", "cpu", "hold", true));
        long plain = submit(admin, Map.of("name", tag + "-train-x", "partition", "cpu", "hold", true));
        try {
            assertThat(ids("nameContains=" + tag.toUpperCase(java.util.Locale.ROOT) + "-TRAIN"))
                    .as("a part of the name, in another case").containsExactlyInAnyOrder(literal, plain);
            assertThat(ids("nameContains=" + java.net.URLEncoder.encode("-train_", java.nio.charset.StandardCharsets.UTF_8)))
                    .as("'_' is a character, not a wildcard that also matches '-'").containsExactly(literal);
            assertThat(ids("nameContains=50%25")).as("'%' is a character").containsExactly(literal);
            assertThat(ids("name=" + tag + "-train")).as("name matches the whole name only, as squeue --name").isEmpty();
            assertThat(ids("name=" + tag + "-train-x&nameContains=train")).containsExactly(plain);
            assertThat(ids("nameContains=" + tag + "-train&user=" + otherName)).as("with the other filters").isEmpty();
        } finally {
            api.send("DELETE", "/api/v1/jobs/" + literal, admin, null);
            api.send("DELETE", "/api/v1/jobs/" + plain, admin, null);
        }
    }

    private List<Long> ids(String query) {
        Response response = api.get("/api/v1/jobs?size=100&" + query, admin);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json().get("items").valueStream().map(j -> j.get("jobId").asLong()).toList();
    }

    @Test
    void withPrivateJobsAUserListsOnlyTheirOwn() {
        // What JobService asks for when gantry.jobs.private-jobs is on and the caller is a USER.
        JobFilter ours = JobFilter.of(null, null, null, null, tag, null);
        JobLists.Page own = lists.find(ours, otherName, JobSort.parse("-submit"), new io.gantry.api.PageRequest(0, 100));
        assertThat(own.total()).isEqualTo(2);
        assertThat(own.rows()).hasSize(2);
        assertThat(lists.find(ours, null, JobSort.QUEUE, new io.gantry.api.PageRequest(0, 100)).total()).isEqualTo(rows);
        assertThat(lists.find(JobFilter.of(null, "admin", null, null, tag, null), otherName, JobSort.QUEUE,
                new io.gantry.api.PageRequest(0, 100)).rows()).as("another user's jobs, asked for by name").isEmpty();
    }

    @Test
    void anUnknownOrMalformedSortKeyIsA400ThatListsTheValidKeys() {
        for (String sort : List.of("bogus", "-", "id,,submit", "submit,-submit", "%2Bid", "--id")) {
            Response response = api.get("/api/v1/jobs?sort=" + sort, admin);
            assertThat(response.status()).as(sort).isEqualTo(400);
            assertThat(response.isProblem()).isTrue();
            assertThat(response.json().get("errors").get(0).get("field").asString()).isEqualTo("sort");
        }
        String detail = api.get("/api/v1/jobs?sort=bogus", admin).json().get("detail").asString();
        assertThat(detail).contains("bogus").contains("id, submit, start, expected, end, priority, user, state, active");
        assertThat(api.get("/api/v1/jobs?sort=&size=1", admin).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/jobs?sort=-SUBMIT&size=1", admin).status()).isEqualTo(200);
    }

    @Test
    void listItemsLeaveOutScriptAndEnvironmentWhichOneJobAndItsNodeStillGet() {
        String script = "#!/bin/bash\n#SBATCH --time=5:00\necho task $SLURM_ARRAY_TASK_ID\n";
        long id = submit(admin, Map.of("name", tag + "-array", "partition", "cpu", "hold", true, "array", "0-2",
                "script", script, "environment", Map.of("GREETING", "hello")));

        List<JsonNode> items = api.get("/api/v1/jobs?arrayJobId=" + id, admin).json().get("items").valueStream().toList();
        assertThat(items).hasSize(3);
        for (JsonNode item : items) {
            assertThat(item.path("script").isMissingNode() || item.get("script").isNull()).as(item.toString()).isTrue();
            assertThat(item.path("environment").isMissingNode() || item.get("environment").isNull()).isTrue();
        }
        List<String> taskIds = List.of(id + "_0", id + "_1", id + "_2");
        for (String task : taskIds) {
            JsonNode one = api.get("/api/v1/jobs/" + task, admin).json();
            assertThat(one.get("script").asString()).isEqualTo(script);
            assertThat(one.get("environment").get("GREETING").asString()).isEqualTo("hello");
        }

        List<Long> rowIds = hosted.find(taskIds).stream().map(HostedJobs.HostedJob::row).toList();
        List<JobView> launches = hosted.views(rowIds);
        assertThat(launches).as("what a node is sent to run each task").hasSize(3)
                .allMatch(v -> script.equals(v.script()) && "hello".equals(v.environment().get("GREETING")));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_scripts WHERE job_id = ?", Long.class, id))
                .as("the array's script is stored once").isEqualTo(1);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isEqualTo(200);
    }

    @Test
    void aScriptOverFourMegabytesIsA400NamingTheScript() {
        String script = "#!/bin/bash\n" + "#".repeat(4 * 1024 * 1024);
        Response response = api.send("POST", "/api/v1/jobs", admin, Map.of("name", tag + "-big", "hold", true,
                "script", script));
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.json().get("errors").get(0).get("field").asString()).isEqualTo("script");
        assertThat(list("")).hasSize(rows);
    }

    private List<JsonNode> list(String query) {
        Response response = api.get("/api/v1/jobs?name=" + tag + "&size=100&" + query, admin);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json().get("items").valueStream().toList();
    }

    /** The key's order as the API promises it: nulls (not yet started or ended) as the latest times. */
    private static Comparator<JsonNode> comparator(String key, boolean descending) {
        Comparator<JsonNode> ascending = switch (key) {
            case "id" -> byId(false);
            case "submit" -> Comparator.comparing(time("submitTime"), Comparator.nullsLast(Comparator.naturalOrder()));
            case "start" -> Comparator.comparing(time("startTime"), Comparator.nullsLast(Comparator.naturalOrder()));
            case "end" -> Comparator.comparing(time("endTime"), Comparator.nullsLast(Comparator.naturalOrder()));
            case "priority" -> Comparator.comparingLong(j -> j.get("priority").asLong());
            case "user" -> Comparator.comparing(j -> j.get("user").asString());
            case "state" -> Comparator.comparing(j -> j.get("state").asString());
            default -> throw new IllegalArgumentException(key);
        };
        return descending ? ascending.reversed() : ascending;
    }

    private static Comparator<JsonNode> byId(boolean descending) {
        Comparator<JsonNode> ascending = Comparator.comparingLong((JsonNode j) -> j.get("jobId").asLong())
                .thenComparingInt(j -> j.get("arrayTaskId").isNull() ? -1 : j.get("arrayTaskId").asInt());
        return descending ? ascending.reversed() : ascending;
    }

    private static Function<JsonNode, Instant> time(String field) {
        return j -> j.get(field).isNull() ? null : Instant.parse(j.get(field).asString());
    }

    private static List<String> ids(List<JsonNode> items) {
        return items.stream().map(j -> j.get("id").asString()).toList();
    }

    private long submit(String token, Map<String, ?> body) {
        Map<String, Object> named = new java.util.HashMap<>(body);
        named.putIfAbsent("name", tag);
        Response response = api.send("POST", "/api/v1/jobs", token, named);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private void awaitState(String id, String state) {
        await().atMost(PATIENCE).until(() -> state.equals(api.get("/api/v1/jobs/" + id, admin).json()
                .get("state").asString()));
    }
}
