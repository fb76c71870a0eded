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

/** {@code scontrol update PartitionName=x State=DOWN}: PATCH /partitions/{name} with the state, as for NodeName=. */
class ScontrolPartitionTests {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Records the PATCHes; refuses partitions it does not know with 404, as the controller does. */
    private static final class Controller implements ControllerApi {
        final List<String> patched = new ArrayList<>();

        @Override
        public JsonNode patch(String path, Object body) {
            if (path.endsWith("/nope")) {
                throw new ApiException(404, "Partition 'nope' does not exist");
            }
            if (body instanceof Map<?, ?> map && "SLEEPY".equals(map.get("state"))) {
                throw new ApiException(400, "state: 'sleepy' is not one of UP, DOWN, DRAIN, INACTIVE");
            }
            patched.add(path + " " + body);
            return HttpControllerApi.JSON.createObjectNode();
        }

        @Override
        public JsonNode post(String path, Object body) {
            return null;
        }

        @Override
        public JsonNode get(String path) {
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
    void settingAPartitionsStatePatchesItQuietly() {
        Controller api = new Controller();

        assertThat(run(api, "update", "PartitionName=gpu", "State=down")).isZero();
        assertThat(run(api, "update", "partitionname=cpu", "state=UP")).isZero();

        assertThat(api.patched).containsExactly("/api/v1/partitions/gpu {state=DOWN}", "/api/v1/partitions/cpu {state=UP}");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void settingOrClearingAPartitionsQosPatchesItsQosField() {
        Controller api = new Controller();

        assertThat(run(api, "update", "PartitionName=gpu", "QOS=gpu")).isZero();
        assertThat(run(api, "update", "PartitionName=gpu", "qos=")).isZero();
        assertThat(run(api, "update", "PartitionName=gpu", "State=DRAIN", "QOS=part")).isZero();

        assertThat(api.patched).containsExactly("/api/v1/partitions/gpu {qos=gpu}", "/api/v1/partitions/gpu {qos=}",
                "/api/v1/partitions/gpu {state=DRAIN, qos=part}");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void anUnknownPartitionABadStateOrAnotherParameterFailsInSlurmsWords() {
        Controller api = new Controller();

        assertThat(run(api, "update", "PartitionName=nope", "State=DOWN")).isEqualTo(1);
        assertThat(run(api, "update", "PartitionName=gpu", "State=sleepy")).isEqualTo(1);
        assertThat(run(api, "update", "PartitionName=gpu", "MaxTime=60")).isEqualTo(1);

        assertThat(api.patched).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                slurm_update error: Invalid partition name specified
                slurm_update error: state: 'sleepy' is not one of UP, DOWN, DRAIN, INACTIVE
                Update of this parameter is not supported: PartitionName=gpu MaxTime=60
                Request aborted
                """);
    }

    private int run(ControllerApi api, String... args) {
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, () -> api);
        return Cli.run(env, "scontrol", List.of(args));
    }
}
