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

/** Power saving's node states as sinfo and scontrol print them: Slurm's suffixes and flags. */
class PowerStateTextTests {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** A partition of four nodes: one idle, one powered down, one powering up for a job, one powering down. */
    private static final class PoweredCluster implements ControllerApi {
        private static final String PARTITION = """
                {"name":"batch","nodes":"n[1-4]","totalNodes":4,"totalCpus":8,"totalGpus":0,"state":"UP",
                 "isDefault":true,"defaultTimeSeconds":null,"maxTimeSeconds":null,"priorityTier":0,"preemptMode":"OFF"}""";

        private static String node(String name, String state, int allocCpus) {
            return """
                    {"name":"%s","state":"%s","cpus":2,"memoryMb":2000,"gpus":0,"features":[],"allocCpus":%d,
                     "allocMemoryMb":0,"allocGpus":0,"partitions":["batch"]}""".formatted(name, state, allocCpus);
        }

        @Override
        public JsonNode get(String path) {
            if (path.startsWith("/api/v1/partitions")) {
                return HttpControllerApi.JSON.readTree("{\"items\":[" + PARTITION + "],\"page\":0,\"size\":1000,\"total\":1}");
            }
            String nodes = String.join(",", node("n1", "IDLE", 0), node("n2", "POWERED_DOWN", 0),
                    node("n3", "POWERING_UP", 2), node("n4", "POWERING_DOWN", 0));
            if (path.startsWith("/api/v1/nodes/n3")) {
                return HttpControllerApi.JSON.readTree(node("n3", "POWERING_UP", 2));
            }
            return HttpControllerApi.JSON.readTree("{\"items\":[" + nodes + "],\"page\":0,\"size\":1000,\"total\":4}");
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

    private int run(String command, String... args) {
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true,
                        StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-05T12:00:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, PoweredCluster::new);
        return Cli.run(env, command, List.of(args));
    }

    @Test
    void sinfoMarksPoweredDownPoweringUpAndPoweringDownNodesWithSlurmsSuffixes() {
        assertThat(run("sinfo", "-N", "-h", "-o", "%N %t")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("n1 idle\nn2 idle~\nn3 alloc#\nn4 idle%\n");
    }

    @Test
    void sinfoSelectsPoweredDownNodesByState() {
        assertThat(run("sinfo", "-N", "-h", "-t", "powered_down", "-o", "%N %T")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("n2 idle~\n");
    }

    @Test
    void scontrolShowsThePowerStateAsAFlagOnTheNodesState() {
        assertThat(run("scontrol", "show", "node", "n3")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("State=ALLOCATED+POWERING_UP ");
    }
}
