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

/** {@code scontrol update NodeName=<hostlist> State=...}: one POST /nodes/update for the whole hostlist. */
class ScontrolNodeUpdateTests {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Records the POSTs; refuses a hostlist naming node99 with 404, as the controller does. */
    private static final class Controller implements ControllerApi {
        final List<String> posted = new ArrayList<>();

        @Override
        public JsonNode post(String path, Object body) {
            if (body instanceof Map<?, ?> map && String.valueOf(map.get("nodes")).contains("99")) {
                throw new ApiException(404, "Node 'node99' does not exist; no node was changed");
            }
            posted.add(path + " " + body);
            return HttpControllerApi.JSON.createObjectNode();
        }

        @Override
        public JsonNode patch(String path, Object body) {
            throw new AssertionError("one request per hostlist, not PATCH " + path);
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
    void aHostlistIsDrainedOrResumedInOneRequest() {
        Controller api = new Controller();

        assertThat(run(api, "update", "NodeName=node[01-04]", "State=DRAIN", "Reason=bad fans")).isZero();
        assertThat(run(api, "update", "nodename=node[01-04]", "state=undrain")).isZero();

        assertThat(api.posted).containsExactly(
                "/api/v1/nodes/update {nodes=node[01-04], state=DRAIN, reason=bad fans}",
                "/api/v1/nodes/update {nodes=node[01-04], state=RESUME}");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void anUnknownNodeFailsTheWholeHostlistInSlurmsWords() {
        Controller api = new Controller();

        assertThat(run(api, "update", "NodeName=node[01,99]", "State=DRAIN", "Reason=x")).isEqualTo(1);

        assertThat(api.posted).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
                "slurm_update error: Invalid node name specified (Node 'node99' does not exist; no node was changed)\n");
    }

    private int run(ControllerApi api, String... args) {
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, () -> api);
        return Cli.run(env, "scontrol", List.of(args));
    }
}
