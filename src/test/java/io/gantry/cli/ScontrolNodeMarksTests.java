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
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/** A node's marks as scontrol prints them: who set its reason and when, and +RESERVED inside a reservation. */
class ScontrolNodeMarksTests {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** One node, drained by alice, inside a reservation. */
    private static final class MarkedNode implements ControllerApi {
        @Override
        public JsonNode get(String path) {
            return HttpControllerApi.JSON.readTree("""
                    {"name":"n1","state":"DRAINED","reason":"bad DIMM","reasonUser":"alice",
                     "reasonTime":"2026-12-05T10:00:00Z","cpus":2,"memoryMb":2000,"gpus":0,"features":[],"allocCpus":0,
                     "allocMemoryMb":0,"allocGpus":0,"partitions":["batch"],"reservation":"train",
                     "recentFailures":{"failed":75,"ended":100,"windowMinutes":10,"failing":true}}""");
        }

        @Override
        public JsonNode post(String path, Object body) {
            throw new AssertionError(path);
        }

        @Override
        public JsonNode patch(String path, Object body) {
            throw new AssertionError(path);
        }

        @Override
        public JsonNode delete(String path) {
            throw new AssertionError(path);
        }

        @Override
        public String host() {
            return "controller";
        }
    }

    @Test
    void scontrolShowsWhoDrainedTheNodeWhenAndThatItIsReserved() {
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true,
                        StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-05T12:00:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, MarkedNode::new);
        assertThat(Cli.run(env, "scontrol", List.of("show", "node", "n1"))).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("State=DRAINED+RESERVED ");
        assertThat(text).contains("Reason=bad DIMM [alice@2026-12-05T10:00:00]");
    }
}
