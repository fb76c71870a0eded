package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.SseClient;
import io.gantry.support.TestLocks;
import io.gantry.support.TimesTheHost;
import io.gantry.support.UnixAccounts;
import tools.jackson.databind.json.JsonMapper;

/**
 * A job's output and errors read through the API while it runs, from a real agent process that runs
 * its real bash script: at once, from an offset, and followed like {@code tail -f} until the job
 * ends. Only the owner (and OPERATORs, ADMINs) may read them; a job on a simulated node has none.
 */
@TimesTheHost
@ResourceLock(value = TestLocks.QUIET, mode = ResourceAccessMode.READ) // the path-swap race's loop takes a core
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobOutputIntegrationTests {

    private static final String JOIN_TOKEN = "output-test-join-token-0123456789";
    private static final String PASSWORD = "output-test-password";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String DATABASE = "gantry_output_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private String bob;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE,
                ClusterYaml.oneRealAndOneSimulatedNode("output-test", 4, 4000, JOIN_TOKEN));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        bob = api.createUser(admin, "bob", PASSWORD);

        cluster.startAgent(controller, JOIN_TOKEN, "node1", 4, 4000);
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aRunningJobsOutputIsReadAndFollowedUntilItEnds() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path go = out.resolve("go");
        long id = submit(admin, Map.of("name", "talker", "workdir", out.toString(), "stdout", "talk-%j.out",
                "stderr", "talk-%j.err", "script", """
                        #!/bin/bash
                        echo "first line"
                        echo "first error" >&2
                        while [ ! -e %s ]; do sleep 0.1; done
                        echo "second line"
                        printf 'caf\\xc3\\xa9 done\\n'
                        """.formatted(go)));
        awaitState(id, "RUNNING");

        // Read at once while it runs: what it wrote so far, and where to go on from.
        HttpResponse<String> now = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> get("/api/v1/jobs/" + id + "/output", admin), r -> r.statusCode() == 200
                        && r.body().equals("first line\n"));
        assertThat(now.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        assertThat(now.headers().firstValue("Gantry-Job-Running")).hasValue("true");
        assertThat(now.headers().firstValue("Gantry-Output-Next-Offset")).hasValue("11");
        assertThat(get("/api/v1/jobs/" + id + "/output?offset=6", admin).body()).isEqualTo("line\n");
        assertThat(get("/api/v1/jobs/" + id + "/error", admin).body()).isEqualTo("first error\n");

        // Someone else's job: refused, as the jobs API refuses acting on it; a bad offset is named.
        Response refused = api.get("/api/v1/jobs/" + id + "/output", bob);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body()).contains("only its owner");
        Response negative = api.get("/api/v1/jobs/" + id + "/output?offset=-1", admin);
        assertThat(negative.status()).isEqualTo(400);
        assertThat(negative.body()).contains("offset");

        // Follow from the start: the first line at once, the rest as the job writes it, then the end.
        try (SseClient follow = SseClient.open(controller.port(), "/api/v1/jobs/" + id + "/output?follow=true", admin, null)) {
            assertThat(follow.status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> followed(follow).equals("first line\n"));
            Files.writeString(go, "");
            follow.awaitEnd();
            assertThat(followed(follow)).isEqualTo("first line\nsecond line\ncafé done\n");
            SseClient.Sse end = follow.events().get(follow.events().size() - 1);
            assertThat(end.event()).isEqualTo("end");
            assertThat(JSON.readTree(end.data()).get("state").asString()).isEqualTo("COMPLETED");
            // Each piece's id is the byte offset after it: Last-Event-ID resumes there.
            assertThat(follow.events().stream().filter(e -> "output".equals(e.event())).reduce((a, b) -> b)
                    .orElseThrow().id()).isEqualTo((long) "first line\nsecond line\ncafé done\n".getBytes(StandardCharsets.UTF_8).length);
        }
        awaitState(id, "COMPLETED");
        // Resumed after the first line, once the job ended: the rest, then the end.
        try (SseClient resumed = SseClient.open(controller.port(), "/api/v1/jobs/" + id + "/output?follow=true", admin, 11L)) {
            resumed.awaitEnd();
            assertThat(followed(resumed)).isEqualTo("second line\ncafé done\n");
        }
        // After the end the whole file is still there to read.
        HttpResponse<String> after = get("/api/v1/jobs/" + id + "/output", admin);
        assertThat(after.body()).isEqualTo("first line\nsecond line\ncafé done\n");
        assertThat(after.headers().firstValue("Gantry-Job-Running")).hasValue("false");
    }

    @Test
    void jobsWithoutAnErrorFileOrThatRanOnASimulatedNodeOrNotYetSayTheyHaveNone() throws Exception {
        Path out = Files.createDirectories(dir.resolve("merged"));
        long merged = submit(admin, Map.of("workdir", out.toString(), "script", "#!/bin/bash\necho out\necho err >&2\n"));
        awaitState(merged, "COMPLETED");
        assertThat(get("/api/v1/jobs/" + merged + "/output", admin).body()).isEqualTo("out\nerr\n");
        Response noErrorFile = api.get("/api/v1/jobs/" + merged + "/error", admin);
        assertThat(noErrorFile.status()).isEqualTo(404);
        assertThat(noErrorFile.body()).contains("--error");

        long simulated = submit(admin, Map.of("partition", "sim", "script", "#!/bin/bash\necho never\n",
                "simulatedRunSeconds", 30));
        awaitState(simulated, "RUNNING");
        Response none = api.get("/api/v1/jobs/" + simulated + "/output", admin);
        assertThat(none.status()).isEqualTo(404);
        assertThat(none.body()).contains("simulated node sim1").doesNotContain("never");
        // Followed, the same is said in the stream (a page following every job's output meets no error).
        try (SseClient follow = SseClient.open(controller.port(), "/api/v1/jobs/" + simulated + "/output?follow=true",
                admin, null)) {
            assertThat(follow.status()).isEqualTo(200);
            follow.awaitEnd();
            assertThat(follow.events()).singleElement().satisfies(e -> {
                assertThat(e.event()).isEqualTo("notice");
                assertThat(JSON.readTree(e.data()).get("detail").asString()).contains("simulated node sim1");
            });
        }

        long held = submit(admin, Map.of("hold", true, "script", "#!/bin/bash\necho later\n"));
        Response pending = api.get("/api/v1/jobs/" + held + "/output", admin);
        assertThat(pending.status()).isEqualTo(409);
        assertThat(pending.body()).contains("has not started");
        assertThat(api.get("/api/v1/jobs/999999/output", admin).status()).isEqualTo(404);
    }

    @Test
    void aFollowedOutputEndsWithinSecondsOnceItsTokenIsRevoked() throws Exception {
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", "olga", "password", PASSWORD,
                "roles", java.util.List.of("OPERATOR"), "defaultAccount", "root"));
        assertThat(created.status()).isEqualTo(201);
        String olga = api.token("olga", PASSWORD);
        Path out = Files.createDirectories(dir.resolve("revoked"));
        Path go = out.resolve("go");
        long id = submit(admin, Map.of("workdir", out.toString(), "stdout", "long-%j.out", "script", """
                #!/bin/bash
                echo "before"
                while [ ! -e %s ]; do sleep 0.1; done
                echo "after the revocation"
                """.formatted(go)));
        awaitState(id, "RUNNING");
        try (SseClient follow = SseClient.open(controller.port(), "/api/v1/jobs/" + id + "/output?follow=true", olga, null);
                SseClient kept = SseClient.open(controller.port(), "/api/v1/jobs/" + id + "/output?follow=true", admin,
                        null)) {
            assertThat(follow.status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> followed(follow).equals("before\n")
                    && followed(kept).equals("before\n"));

            assertThat(api.send("POST", "/api/v1/auth/tokens/revoke", olga, null).status()).isEqualTo(204);
            long revoked = System.nanoTime();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> follow.events().stream()
                    .anyMatch(e -> "notice".equals(e.event())));
            follow.awaitEnd();
            assertThat(Duration.ofNanos(System.nanoTime() - revoked)).isLessThan(Duration.ofSeconds(5));
            assertThat(JSON.readTree(follow.events().get(follow.events().size() - 1).data()).get("detail").asString())
                    .contains("no longer holds");

            // what the job writes after the revocation reaches the stream whose token holds, not the revoked one
            Files.writeString(go, "");
            kept.awaitEnd();
            assertThat(followed(kept)).isEqualTo("before\nafter the revocation\n");
            assertThat(followed(follow)).isEqualTo("before\n");
        }
        try (SseClient again = SseClient.open(controller.port(), "/api/v1/jobs/" + id + "/output?follow=true", olga, null)) {
            assertThat(again.status()).as("and it cannot be reopened").isEqualTo(401);
        }
    }

    /**
     * Finding 1 of issue 28 end to end, as the review did it: a real Unix user's job swaps a directory
     * of its own output path for a link to {@code /etc} and to the agent's state directory, in a loop,
     * while its output is read through the API hundreds of times. Each answer is the job's own output
     * or a refusal; never {@code /etc/shadow}, never the node credential.
     */
    @Test
    void aJobSwappingADirectoryOfItsOutputPathGetsNothingButItsOwnOutput() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "runs a job as another Unix user: needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/perl")), "the job's swap loop is a perl one-liner");
        String user = "g28output" + java.util.concurrent.ThreadLocalRandom.current().nextInt(10000, 99999);
        Path base = Path.of("/tmp", user);
        UnixAccounts.addUser("-M", "-s", "/bin/bash", user);
        try {
            // the temporary directory is root's: let the user pass through it to its job's directory in the
            // agent's spool, as it would through /var/lib (the agent's state/ stays 0700)
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
            String token = api.createUser(admin, user, PASSWORD);
            Path state = dir.resolve("agent-node1").resolve("state");
            String credential = JSON.readTree(Files.readString(state.resolve("credential.json"))).get("credential")
                    .asString();
            Path b = Files.createDirectories(base.resolve("a").resolve("b"));
            run("chown", "-R", user + ":", base.toString());
            String own = "the job's own output\n".repeat(20);
            long id = submit(token, Map.of("name", "swapper", "workdir", base.toString(),
                    "stdout", b.resolve("shadow").toString(), "stderr", b.resolve("credential.json").toString(),
                    "script", """
                            #!/bin/bash
                            printf '%%s' "$OWN"
                            printf '%%s' "$OWN" >&2
                            cd a
                            ln -s /etc l.etc; ln -s %s l.state
                            # renames as fast as the review's loop made them: a bash loop of mv and ln is too slow
                            perl -e 'until (-e "../stop") { for my $l ("l.etc", "l.state") {
                              rename "b", "b.real"; rename $l, "b"; rename "b", $l; rename "b.real", "b"; } }'
                            """.formatted(state), "environment", Map.of("OWN", own)));
            awaitState(id, "RUNNING");
            int answered = 0;
            int refused = 0;
            for (int i = 0; i < 150; i++) {
                for (String stream : java.util.List.of("output", "error")) {
                    HttpResponse<String> read = get("/api/v1/jobs/" + id + "/" + stream, token);
                    assertThat(read.body()).as("read " + i + " of the " + stream).doesNotContain("root:")
                            .doesNotContain(credential);
                    if (read.statusCode() == 200) {
                        assertThat(own).as("read " + i + " of the " + stream).startsWith(read.body());
                        answered++;
                    } else {
                        assertThat(read.statusCode()).as(read.body()).isIn(404, 503);
                        refused++;
                    }
                }
            }
            Files.writeString(base.resolve("stop"), "");
            System.out.printf("%d reads answered, %d refused%n", answered, refused);
            var ended = await().atMost(Duration.ofSeconds(60)).until(() -> api.get("/api/v1/jobs/" + id, admin).json(),
                    job -> !java.util.Set.of("PENDING", "RUNNING", "COMPLETING").contains(job.get("state").asString()));
            assertThat(ended.get("state").asString()).as("%s; its errors: %s", ended,
                    get("/api/v1/jobs/" + id + "/error", token).body()).isEqualTo("COMPLETED");
            assertThat(answered).as("reads that found the directory in place").isPositive();
            assertThat(get("/api/v1/jobs/" + id + "/output", token).body()).isEqualTo(own);
        } finally {
            if (Files.isDirectory(base)) {
                Files.writeString(base.resolve("stop"), ""); // the job's loop ends, then its user can go
            }
            // the job's loop sees the stop file and ends: then no process of the user is left to userdel
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> !userHasProcesses(user));
            } catch (org.awaitility.core.ConditionTimeoutException stillRunning) {
                // the test has failed already (the job's loop never saw the stop file): userdel -f anyway
            }
            UnixAccounts.removeUser(user, false);
            run("rm", "-rf", "--", base.toString());
        }
    }

    private static boolean userHasProcesses(String user) throws Exception {
        Process pgrep = new ProcessBuilder("pgrep", "-u", user).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return pgrep.waitFor() == 0;
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + output);
        }
    }

    private static String followed(SseClient stream) {
        StringBuilder text = new StringBuilder();
        for (SseClient.Sse e : stream.events()) {
            if ("output".equals(e.event())) {
                text.append(JSON.readTree(e.data()).get("text").asString());
            }
        }
        return text.toString();
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + controller.port()
                + path)).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private long submit(String token, Map<String, Object> job) {
        return api.submitJob(token, job);
    }

    private void awaitState(long id, String state) {
        api.awaitJobState(id, admin, state, Duration.ofSeconds(60));
    }
}
