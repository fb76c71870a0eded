package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.gantry.api.fuzz.FuzzGenerator;
import io.gantry.api.fuzz.FuzzGenerator.Identity;
import io.gantry.api.fuzz.FuzzRequest;
import io.gantry.api.fuzz.OpenApiOperations;
import io.gantry.api.fuzz.OpenApiOperations.Operation;
import io.gantry.api.fuzz.RawHttp;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.StartEarly;
import io.gantry.support.TestDatabase;
import tools.jackson.databind.json.JsonMapper;

/**
 * The API under fire: at least 10,000 requests generated from {@code /v3/api-docs} (so every operation
 * any module adds joins by itself), as ADMIN, USER, anonymous and with forged tokens, with wrong
 * types, extremes, huge and odd strings, nulls, bad query strings and random {@code #SBATCH} lines.
 * No answer may be a 5xx, none may go unanswered, no problem detail may name a Java class, and every
 * job answered 201 must still exist at the end.
 *
 * <p>Seeded: the seed is printed and {@code -Dgantry.fuzz.seed=...} repeats a run;
 * {@code -Dgantry.fuzz.only=N} sends request N alone; {@code -Dgantry.fuzz.requests=N} changes how many.
 * The controller is its own, on a database of its own, so its junk reaches no other test.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "gantry.data-dir=target/fuzz-data",
    "gantry.security.jwt-secret=" + FuzzIntegrationTests.SECRET})
@ActiveProfiles("postgres")
@DirtiesContext
@StartEarly("10,000 generated requests")
class FuzzIntegrationTests {

    static final String SECRET = "fuzz-secret-of-at-least-thirty-two-bytes-length";
    private static final String DATABASE = "gantry_fuzz_it_" + ProcessHandle.current().pid();
    private static final String USER = "fuzzuser";
    private static final String USER_PASSWORD = "fuzz-user-password";
    private static final int THREADS = 4;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** What a problem detail must never show: a package of Java, a library or ours. */
    private static final Pattern INTERNALS = Pattern.compile(
            "\\b(java|javax|jakarta|io\\.gantry|org\\.springframework|org\\.hibernate|org\\.postgresql|org\\.h2"
                    + "|org\\.apache|tools\\.jackson|com\\.fasterxml)\\.[a-z]");

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void ownDatabase(DynamicPropertyRegistry registry) {
        TestDatabase db = TestDatabase.migrated(DATABASE);
        registry.add("spring.datasource.url", db::url);
        registry.add("spring.datasource.username", db::username);
        registry.add("spring.datasource.password", db::password);
    }

    @AfterAll
    static void dropDatabase() {
        // The context is closed after this, its pool on a dropped database: nothing is read from it any more.
        TestDatabase.drop(DATABASE);
    }

    @Test
    void noRequestGetsA5xxOrLosesAnAcceptedJob() throws Exception {
        long seed = Long.getLong("gantry.fuzz.seed", new java.security.SecureRandom().nextLong());
        long requests = Long.getLong("gantry.fuzz.requests", 10_000);
        Long only = Long.getLong("gantry.fuzz.only");
        System.out.println("Fuzz seed " + seed + " (repeat with -Dgantry.fuzz.seed=" + seed + ")");

        ApiClient api = new ApiClient(port);
        String admin = api.adminToken();
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", USER, "password", USER_PASSWORD,
                "roles", List.of("USER"), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String user = api.token(USER, USER_PASSWORD);

        OpenApiOperations document = new OpenApiOperations(JSON.readValue(api.get("/v3/api-docs", null).body(),
                Map.class));
        List<Operation> operations = new ArrayList<>();
        for (Operation operation : document.all()) {
            if (changesOwnIdentity(operation)) {
                System.out.println("Fuzz leaves alone " + operation.describe() + " (the identities it uses)");
            } else {
                operations.add(operation);
            }
        }
        assertThat(operations).hasSizeGreaterThan(20);

        List<Identity> identities = List.of(
                new Identity("ADMIN", "Bearer " + admin, 35),
                new Identity("USER", "Bearer " + user, 35),
                new Identity("anonymous", null, 10),
                new Identity("wrong-signature", "Bearer " + admin.substring(0, admin.length() - 4) + "AAAA", 5),
                new Identity("alg-none", "Bearer " + unsigned(admin), 5),
                new Identity("expired", "Bearer " + signed(Instant.now().minus(Duration.ofHours(1))), 5),
                new Identity("garbage", "Bearer \u00e9.\u00e9.\u00e9", 2),
                new Identity("basic", "Basic " + Base64.getEncoder().encodeToString("admin:x".getBytes()), 3));
        List<Long> setupJobs = setUpJobs(api, admin, user);
        List<String> known = known(api, admin, setupJobs);
        FuzzGenerator generator = new FuzzGenerator(document, operations, identities, known,
                Set.of("admin", USER), seed);

        RawHttp http = new RawHttp(port, 60_000);
        Queue failures = new Queue();
        Set<Long> accepted = ConcurrentHashMap.newKeySet();
        accepted.addAll(setupJobs);
        Map<String, AtomicLong> statuses = new ConcurrentHashMap<>();
        Set<String> reached = ConcurrentHashMap.newKeySet();
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long first = only == null ? 0 : only;
        long last = only == null ? requests : only + 1;
        for (long i = first; i < last; i++) {
            long index = i;
            pool.submit(() -> {
                FuzzRequest request = generator.generate(index);
                RawHttp.Answer answer = http.send(request.method(), request.target(), request.headers(), request.body());
                statuses.computeIfAbsent(request.operation() + " " + answer.status(), k -> new AtomicLong())
                        .incrementAndGet();
                reached.add(request.operation());
                String wrong = judge(request, answer);
                if (wrong != null) {
                    failures.add(wrong + "\n" + request.reproduce(seed, 2000) + "answered: " + answer.status() + " "
                            + cut(answer.body(), 1000));
                } else if (answer.status() == 201) {
                    accepted.addAll(jobIds(answer.body()));
                }
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(15, TimeUnit.MINUTES)).as("the fuzz run ends").isTrue();
        System.out.printf("Fuzz sent %d requests in %d s; answers by operation and status:%n", last - first,
                Duration.ofNanos(System.nanoTime() - started).toSeconds());
        new TreeMap<>(statuses).forEach((key, count) -> System.out.println("  " + key + ": " + count));

        List<String> lost = new ArrayList<>();
        for (long jobId : accepted) {
            Response job = api.get("/api/v1/jobs/" + jobId, admin);
            if (job.status() != 200) {
                lost.add("job " + jobId + " was accepted (201) but GET answers " + job.status() + " " + cut(job.body(), 300));
            }
        }
        System.out.println("Fuzz checked " + accepted.size() + " accepted jobs");
        assertThat(api.get("/actuator/health", null).status()).as("the controller is still healthy").isEqualTo(200);
        assertThat(failures.all()).as("requests answered wrongly (seed " + seed + ")").isEmpty();
        assertThat(lost).as("accepted jobs lost").isEmpty();
        if (only == null) {
            assertThat(reached).as("every operation was sent").containsAll(operations.stream()
                    .map(Operation::describe).toList());
            assertThat(accepted.size()).as("some submissions were accepted").isGreaterThan(setupJobs.size());
        }
    }

    /** Null when the answer is fine: any status below 500, a problem detail without Java internals. */
    private static String judge(FuzzRequest request, RawHttp.Answer answer) {
        if (answer.status() >= 500) {
            return "5xx answer";
        }
        if (answer.status() < 0) {
            boolean huge = request.body() != null && request.body().length > 1_000_000;
            return answer.timedOut() || !huge ? "no answer (" + answer.failure() + ")" : null;
        }
        if (answer.status() >= 400 && INTERNALS.matcher(answer.body()).find()) {
            return "the error names Java internals";
        }
        return null;
    }

    /**
     * An operation that could take away what the fuzz signs in with: rotating the join token,
     * revoking tokens, changing a password. Changes to the fuzz's own users are kept out by name.
     */
    private static boolean changesOwnIdentity(Operation operation) {
        String path = operation.path().toLowerCase(Locale.ROOT);
        return !operation.method().equals("GET")
                && (path.contains("rotate") || path.contains("revoke") || path.contains("password"));
    }

    /** A few held jobs (one an array) so that the job operations meet real ids. */
    private static List<Long> setUpJobs(ApiClient api, String admin, String user) {
        List<Long> ids = new ArrayList<>();
        ids.add(api.submitJob(user, Map.of("hold", true, "script", "#!/bin/bash\nsleep 1\n")));
        ids.add(api.submitJob(user, Map.of("hold", true, "array", "0-2")));
        ids.add(api.submitJob(admin, Map.of("hold", true, "partition", "cpu")));
        ids.add(api.submitJob(user, Map.of("simulatedRunSeconds", 1)));
        return ids;
    }

    /** Names and ids that exist, for path and query parameters. */
    private static List<String> known(ApiClient api, String admin, List<Long> jobs) {
        List<String> known = new ArrayList<>(List.of("admin", USER, "root", "normal", "gpu", "cpu", "gpu[001-002]",
                "fuzz-account"));
        api.send("POST", "/api/v1/accounts", admin, Map.of("name", "fuzz-account", "parent", "root"));
        for (long id : jobs) {
            known.add(Long.toString(id));
        }
        known.add(jobs.get(1) + "_1");
        known.add(jobs.get(1) + "_7");
        known.add("1");
        var nodes = api.get("/api/v1/nodes?size=5", admin).json().get("items");
        if (nodes != null) {
            nodes.forEach(node -> known.add(node.get("name").asString()));
        }
        return known;
    }

    private static List<Long> jobIds(String body) {
        try {
            Map<?, ?> answer = JSON.readValue(body, Map.class);
            return answer.get("jobId") instanceof Number id ? List.of(id.longValue()) : List.of();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** The admin token's claims with {@code alg: none} and no signature. */
    private static String unsigned(String token) {
        String header = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        return header + "." + token.split("\\.")[1] + ".";
    }

    /** A well-signed ADMIN token that expired at {@code expiry}. */
    private static String signed(Instant expiry) throws Exception {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = b64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        String claims = b64.encodeToString(("{\"iss\":\"gantry\",\"sub\":\"admin\",\"roles\":[\"ADMIN\"],\"iat\":"
                + (expiry.getEpochSecond() - 3600) + ",\"exp\":" + expiry.getEpochSecond() + "}")
                .getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String signature = b64.encodeToString(mac.doFinal((header + "." + claims).getBytes(StandardCharsets.US_ASCII)));
        return header + "." + claims + "." + signature;
    }

    private static String cut(String text, int max) {
        return text.length() > max ? text.substring(0, max) + "..." : text;
    }

    /** Failures from all threads; only the first 25 are kept whole, the rest counted. */
    private static final class Queue {

        private final ConcurrentLinkedQueue<String> kept = new ConcurrentLinkedQueue<>();
        private final AtomicLong count = new AtomicLong();

        void add(String failure) {
            if (count.incrementAndGet() <= 25) {
                kept.add(failure);
            }
        }

        List<String> all() {
            List<String> all = new ArrayList<>(kept);
            if (count.get() > kept.size()) {
                all.add("... and " + (count.get() - kept.size()) + " more");
            }
            return Collections.unmodifiableList(all);
        }
    }
}
