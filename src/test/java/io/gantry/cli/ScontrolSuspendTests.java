package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/**
 * {@code scontrol suspend|resume} as Slurm 22.05's prints it: nothing on success; for each job refused one
 * line on stderr, Slurm's error text then {@code for job ID} (its {@code "%s for job %s"}), and exit code 1.
 */
class ScontrolSuspendTests {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Answers suspend and resume as the controller does: its problem details, starting with Slurm's words. */
    private static final class Controller implements ControllerApi {
        final List<String> posted = new ArrayList<>();
        final Map<String, ApiException> refusals;

        Controller(Map<String, ApiException> refusals) {
            this.refusals = refusals;
        }

        @Override
        public JsonNode post(String path, Object body) {
            posted.add(path);
            String id = path.split("/")[4];
            if (refusals.containsKey(id)) {
                throw refusals.get(id);
            }
            return HttpControllerApi.JSON.createObjectNode();
        }

        @Override
        public JsonNode get(String path) {
            return null;
        }

        @Override
        public JsonNode patch(String path, Object body) {
            return null;
        }

        @Override
        public JsonNode delete(String path) {
            return null;
        }

        @Override
        public String host() {
            return "controller";
        }
    }

    @Test
    void suspendAndResumePrintNothingWhenTheyWork() {
        Controller api = new Controller(Map.of());

        assertThat(run(api, "suspend", "42")).isZero();
        assertThat(run(api, "resume", "JobId=42")).isZero();
        assertThat(run(api, "suspend", "43,44_[1-2]")).isZero();

        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(api.posted).containsExactly("/api/v1/jobs/42/suspend", "/api/v1/jobs/42/resume",
                "/api/v1/jobs/43/suspend", "/api/v1/jobs/44_1/suspend", "/api/v1/jobs/44_2/suspend");
    }

    @Test
    void eachJobRefusedIsALineInSlurmsWordsAndTheExitCodeIsOne() {
        Controller api = new Controller(Map.of(
                "7", new ControllerApi.ApiException(409, "Job is not running: job 7 is PENDING"),
                "8", new ControllerApi.ApiException(409, "Job is not suspended: job 8 is RUNNING"),
                "9", new ControllerApi.ApiException(403, "Access/permission denied: only an operator or an "
                        + "administrator may suspend a job"),
                "10", new ControllerApi.ApiException(404, "Job '10' does not exist")));

        assertThat(run(api, "suspend", "7,9,10,11")).isEqualTo(1);
        assertThat(run(api, "resume", "8")).isEqualTo(1);

        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                Job is not running for job 7
                Access/permission denied for job 9
                Invalid job id specified for job 10
                Job is not suspended for job 8
                """);
        assertThat(api.posted).as("the jobs after a refused one are still tried").contains("/api/v1/jobs/11/suspend");
    }

    @Test
    void withoutAJobIdItSaysSoAsSlurmDoes() {
        assertThat(run(new Controller(Map.of()), "suspend")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("Invalid job id specified\n");
    }

    private int run(ControllerApi api, String... args) {
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, () -> api);
        return Cli.run(env, "scontrol", List.of(args));
    }
}
