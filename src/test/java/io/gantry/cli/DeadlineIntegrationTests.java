package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.jobs.JobService;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobSubmission;
import io.gantry.jobs.JobViews.JobEventView;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.security.CurrentUser;
import io.gantry.security.Role;
import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.json.JsonMapper;

/**
 * sbatch's {@code --deadline} on the controller's simulated demo cluster, through the commands users
 * type: a job that can no longer end by its deadline ends DEADLINE without starting, a running job is
 * stopped when its deadline comes and ends DEADLINE, and squeue, sacct and scontrol say so.
 */
@GantryIntegrationTest
class DeadlineIntegrationTests {

    private static final CurrentUser ADMIN = new CurrentUser("admin", Set.of(Role.ADMIN));

    @LocalServerPort
    int port;
    @Autowired
    JobService jobs;
    @TempDir
    Path dir;

    private String token;

    @BeforeEach
    void signIn() {
        token = new ApiClient(port).adminToken();
    }

    @Test
    void aHeldJobThatCanNoLongerEndByItsDeadlineEndsDeadlineWithoutStarting() throws Exception {
        Files.writeString(dir.resolve("job.sh"), "#!/bin/bash\nhostname\n");
        // Ten minutes of work with a deadline in two: it could not end in time even if it started now.
        Run submitted = cli("sbatch", "--hold", "--time=10", "--deadline=now+2minutes", "job.sh");
        assertThat(submitted.exit()).as(submitted.err()).isZero();
        String id = submitted.out().replaceAll("\\D", "");
        JobView job = await().atMost(Duration.ofSeconds(30))
                .until(() -> jobs.get(id, ADMIN), j -> j.state() == JobState.DEADLINE);

        assertThat(job.startTime()).as("it never started").isNull();
        assertThat(job.endTime()).isNotNull();
        assertThat(job.options().deadline()).isBetween(job.submitTime().plusSeconds(119), job.submitTime().plusSeconds(121));
        assertThat(jobs.events(id, ADMIN)).extracting(JobEventView::type, JobEventView::detail).anySatisfy(e -> {
            assertThat(e.toList().get(0)).isEqualTo("DEADLINE");
            assertThat((String) e.toList().get(1)).startsWith("cannot end by its deadline " + job.options().deadline())
                    .contains("time limit 600 s", "never started");
        });

        Run squeue = cli("squeue", "-h", "-t", "all", "-j", id, "-o", "%i %t %T");
        assertThat(squeue.out()).isEqualTo(id + " DL DEADLINE\n");
        Run sacct = cli("sacct", "-X", "-n", "-P", "-j", id, "-o", "JobID,State");
        assertThat(sacct.out()).isEqualTo(id + "|DEADLINE\n");
        Run byState = cli("sacct", "-X", "-n", "-P", "-j", id, "-s", "DL", "-o", "JobID,State");
        assertThat(byState.err()).isEmpty();
        assertThat(byState.out()).isEqualTo(id + "|DEADLINE\n");
        Run scontrol = cli("scontrol", "show", "job", id);
        assertThat(scontrol.out()).contains("JobState=DEADLINE", "Deadline=" + local(job.options().deadline()))
                .doesNotContain("Deadline=N/A");
    }

    @Test
    void aRunningJobIsStoppedWhenItsDeadlineComesAndEndsDeadline() {
        // It may run ten minutes, and would (simulated), but accepts a time limit of a second: it may
        // start with its deadline five seconds away, and runs into it.
        Instant deadline = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
        JobSubmission submission = JsonMapper.builder().build().convertValue(Map.of("script",
                "#!/bin/bash\nsleep 600\n", "partition", "cpu", "timeLimitSeconds", 600, "timeMinSeconds", 1,
                "simulatedRunSeconds", 600, "deadline", deadline.toString()), JobSubmission.class);
        String id = Long.toString(jobs.submit(submission, ADMIN).jobId());
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.get(id, ADMIN).state() != JobState.PENDING);
        assertThat(jobs.get(id, ADMIN).startTime()).as("it started before its deadline").isBefore(deadline);

        JobView ended = await().atMost(Duration.ofSeconds(30))
                .until(() -> jobs.get(id, ADMIN), j -> j.state().isFinished());
        assertThat(ended.state()).isEqualTo(JobState.DEADLINE);
        assertThat(ended.endTime()).isAfterOrEqualTo(deadline.truncatedTo(ChronoUnit.SECONDS));
        assertThat(ended.options().deadline()).isEqualTo(deadline);
        assertThat(jobs.events(id, ADMIN)).extracting(JobEventView::type).containsSubsequence("STARTED", "DEADLINE");
        assertThat(jobs.events(id, ADMIN)).anySatisfy(e -> assertThat(e.detail())
                .isEqualTo("its deadline " + deadline + " came while it ran; stopping on its nodes"));

        assertThat(cli("sacct", "-X", "-n", "-P", "-j", id, "-o", "JobID,State").out()).isEqualTo(id + "|DEADLINE\n");
    }

    @Test
    void aDeadlineThatHasPassedIsRefusedUnderDeadline() {
        ApiClient.Response refused = new ApiClient(port).send("POST", "/api/v1/jobs", token, Map.of("script",
                "#!/bin/bash\nhostname\n", "deadline", Instant.now().minusSeconds(60).toString()));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("deadline");
        assertThat(refused.json().get("errors").get(0).get("message").asString()).contains("has already passed");
    }

    private record Run(int exit, String out, String err) {
    }

    /** Runs a command in-process against this controller, as the admin, in UTC. */
    private Run cli(String command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC(), ZoneOffset.UTC,
                () -> new HttpControllerApi(URI.create("http://127.0.0.1:" + port), token));
        int exit = Cli.run(env, command, List.of(args));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A time as the commands print it: local (UTC here), to the second, without a zone. */
    private static String local(Instant t) {
        return t.atOffset(ZoneOffset.UTC).toLocalDateTime().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
