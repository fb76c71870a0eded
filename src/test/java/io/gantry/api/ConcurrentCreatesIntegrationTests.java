package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.StartEarly;
import tools.jackson.databind.JsonNode;

/**
 * Issue 28, finding 4: eight identical creates at once must be one insert and seven conflicts.
 * Before, some answered 500 (a unique violation nobody mapped) and some names got two 201s while
 * only the last write survived (a create that merged onto the row another request had just made).
 * Each of the eight bodies differs in a harmless field, so the stored row tells whose write it is.
 */
@GantryIntegrationTest
@StartEarly("fifty rounds of eight racing creates of each kind")
class ConcurrentCreatesIntegrationTests {

    private static final int WRITERS = 8;
    private static final int ROUNDS = 50;

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;
    ExecutorService writers;
    final List<String> reservations = new ArrayList<>();

    @BeforeEach
    void setUp() {
        api = new ApiClient(port);
        admin = api.adminToken();
        writers = Executors.newFixedThreadPool(WRITERS);
    }

    @AfterEach
    void tearDown() {
        writers.shutdownNow();
        reservations.forEach(name -> api.send("DELETE", "/api/v1/reservations/" + name, admin, null));
    }

    @Test
    void eightCreatesOfOneAccountAreOneCreatedAndSevenConflictsAndTheStoredAccountIsTheCreatedOne() {
        for (int round = 0; round < ROUNDS; round++) {
            String name = name("race-acct");
            Race race = race("/api/v1/accounts", name, i -> Map.of("name", name, "description", "writer " + i));
            assertThat(api.get("/api/v1/accounts/" + name, admin).json().get("description").asString())
                    .as(race.toString()).isEqualTo("writer " + race.winner());
        }
    }

    @Test
    void eightCreatesOfOneQosAreOneCreatedAndSevenConflictsAndTheStoredQosIsTheCreatedOne() {
        for (int round = 0; round < ROUNDS; round++) {
            String name = name("race-qos");
            Race race = race("/api/v1/qos", name, i -> Map.of("name", name, "description", "writer " + i));
            assertThat(api.get("/api/v1/qos/" + name, admin).json().get("description").asString())
                    .as(race.toString()).isEqualTo("writer " + race.winner());
        }
    }

    @Test
    void eightCreatesOfOneAssociationAreOneCreatedAndSevenConflictsAndTheStoredAssociationIsTheCreatedOne() {
        String user = name("g28creates");
        Response made = api.send("POST", "/api/v1/users", admin, Map.of("username", user,
                "password", "secret-password"));
        assertThat(made.status()).as(made.body()).isEqualTo(201);
        String first = null;
        for (int round = 0; round < ROUNDS; round++) {
            String account = name("race-assoc");
            assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", account)).status()).isEqualTo(201);
            first = first == null ? account : first;

            Race race = race("/api/v1/associations", user, i -> Map.of("account", account, "user", user,
                    "maxJobs", i + 1));
            long id = race.created().json().get("id").asLong();
            JsonNode stored = api.get("/api/v1/associations/" + id, admin).json();
            assertThat(stored.get("maxJobs").asInt()).as(race.toString()).isEqualTo(race.winner() + 1);
            List<JsonNode> rows = api.get("/api/v1/associations?account=" + account + "&user=" + user, admin).json()
                    .get("items").valueStream().toList();
            assertThat(rows).as(race.toString()).hasSize(1);
            assertThat(rows.get(0).get("id").asLong()).isEqualTo(id);
        }
        // The user's first association made its account their default, once.
        assertThat(api.get("/api/v1/users/" + user, admin).json().get("defaultAccount").asString()).isEqualTo(first);
        assertThat(api.get("/api/v1/associations?user=" + user + "&size=1000", admin).json().get("items").size())
                .isEqualTo(ROUNDS);
    }

    @Test
    void eightCreatesOfOneReservationAreOneCreatedAndSevenConflictsAndTheStoredReservationIsTheCreatedOne() {
        // Far in the future, a window of its own each round, so that no job and no other test is in the way.
        Instant start = Instant.now().plus(3650, ChronoUnit.DAYS).truncatedTo(ChronoUnit.DAYS);
        for (int round = 0; round < ROUNDS; round++) {
            String name = name("race-resv");
            String from = start.plus(round, ChronoUnit.DAYS).toString();
            reservations.add(name);
            Race race = race("/api/v1/reservations", name, i -> Map.of("name", name, "nodes", "cpu001",
                    "startTime", from, "durationSeconds", 3600 + i, "users", List.of("admin")));
            JsonNode stored = api.get("/api/v1/reservations/" + name, admin).json();
            assertThat(stored.get("durationSeconds").asLong()).as(race.toString()).isEqualTo(3600 + race.winner());
        }
    }

    /** Not a name this time but nodes and a window: eight reservations of one node at one time are one. */
    @Test
    void ofEightReservationsOfOneNodeAtOneTimeOneIsCreatedAndSevenAreRefusedNamingIt() {
        Instant start = Instant.now().plus(7300, ChronoUnit.DAYS).truncatedTo(ChronoUnit.DAYS);
        for (int round = 0; round < ROUNDS; round++) {
            String prefix = name("race-node");
            String from = start.plus(round, ChronoUnit.DAYS).toString();
            for (int i = 0; i < WRITERS; i++) {
                reservations.add(prefix + "-" + i);
            }
            List<Response> answers = together("/api/v1/reservations", i -> Map.of("name", prefix + "-" + i,
                    "nodes", "cpu002", "startTime", from, "durationSeconds", 3600, "users", List.of("admin")));
            Race race = new Race(prefix, answers);
            assertThat(answers).as(race.toString()).allMatch(r -> r.status() == 201 || r.status() == 409);
            assertThat(answers.stream().filter(r -> r.status() == 201)).as(race.toString()).hasSize(1);
            String winner = prefix + "-" + race.winner();
            for (Response r : answers) {
                if (r.status() == 409) {
                    assertThat(r.json().get("detail").asString()).as(r.body()).contains("cpu002", "'" + winner + "'");
                }
            }
            List<String> stored = api.get("/api/v1/reservations", admin).json().valueStream()
                    .map(j -> j.get("name").asString()).filter(n -> n.startsWith(prefix)).toList();
            assertThat(stored).as(race.toString()).containsExactly(winner);
        }
    }

    @Test
    void eightCreatesOfOneUserAreOneCreatedAndSevenConflictsAndTheStoredUserIsTheCreatedOne() {
        for (int round = 0; round < ROUNDS; round++) {
            String name = name("g28creates");
            Race race = race("/api/v1/users", name, i -> Map.of("username", name, "password", "password-of-writer-" + i));
            // The password that signs in is the one the 201 was for.
            assertThat(api.send("POST", "/api/v1/auth/tokens", null, Map.of("username", name,
                    "password", "password-of-writer-" + race.winner())).status()).as(race.toString()).isEqualTo(201);
        }
    }

    /** What eight writers of one name were answered, in writer order. */
    private record Race(String name, List<Response> answers) {

        int winner() {
            for (int i = 0; i < answers.size(); i++) {
                if (answers.get(i).status() == 201) {
                    return i;
                }
            }
            throw new AssertionError("no 201 for " + name + ": " + this);
        }

        Response created() {
            return answers.get(winner());
        }

        @Override
        public String toString() {
            return name + ": " + answers.stream().map(r -> r.status() + " " + r.body()).toList();
        }
    }

    /**
     * Sends the eight bodies at once, released together, and checks the answers: exactly one 201,
     * the rest 409 problems that name what exists.
     */
    private Race race(String path, String name, IntFunction<Map<String, Object>> body) {
        Race race = new Race(name, together(path, body));
        List<Response> answers = race.answers();
        assertThat(answers).as(race.toString()).allMatch(r -> r.status() == 201 || r.status() == 409);
        assertThat(answers.stream().filter(r -> r.status() == 201)).as(race.toString()).hasSize(1);
        for (Response r : answers) {
            if (r.status() == 409) {
                assertThat(r.isProblem()).as(r.toString()).isTrue();
                assertThat(r.json().get("detail").asString()).as(r.body()).contains(name);
            }
        }
        return race;
    }

    /** The eight answers to the eight bodies, sent at once, released together; in writer order. */
    private List<Response> together(String path, IntFunction<Map<String, Object>> body) {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Response>> pending = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            Map<String, Object> mine = new HashMap<>(body.apply(i));
            pending.add(writers.submit(() -> {
                go.await();
                return api.send("POST", path, admin, mine);
            }));
        }
        go.countDown();
        List<Response> answers = new ArrayList<>();
        for (Future<Response> f : pending) {
            try {
                answers.add(f.get());
            } catch (Exception e) {
                throw new AssertionError("a writer to " + path + " failed", e);
            }
        }
        return answers;
    }

    private static String name(String prefix) {
        return prefix + UUID.randomUUID().toString().substring(0, 8);
    }
}
