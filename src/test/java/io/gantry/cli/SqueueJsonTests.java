package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code squeue --json} and {@code sinfo --json} in Slurm 22.05's shape: the same envelope as the reference
 * Slurm's recorded answers ({@code reference/squeue-json.txt}, {@code sinfo-json.txt}), and every field Gantry
 * prints is one of Slurm's, with Slurm's type.
 */
class SqueueJsonTests {

    @TempDir
    Path dir;

    @Test
    void jobsPrintInSlurmsShapeWithSlurmsFieldNamesAndTypes() throws IOException {
        FakeController controller = new FakeController();
        String line = Files.readAllLines(SlurmCorpus.directory("/cli/slurm-22.05").resolve("jobs.state")).get(0);
        controller.addSlurmJob(line.replace("{J1}", "100001"));
        SlurmCorpus.Result result = SlurmCorpus.run(List.of("squeue", "--json"), "", Map.of("USER", "root"), dir,
                Instant.parse("2026-12-03T15:40:00Z"), controller);
        assertThat(result.exit()).as(result.stderr()).isZero();
        JsonNode gantry = HttpControllerApi.JSON.readTree(result.stdout());
        JsonNode slurm = HttpControllerApi.JSON.readTree(
                Files.readString(Path.of("src/test/resources/slurm-corpus/reference/squeue-json.txt")));
        assertThat(gantry.get("meta")).isEqualTo(slurm.get("meta"));
        assertThat(gantry.get("errors").isArray()).isTrue();
        JsonNode job = gantry.get("jobs").get(0);
        assertThat(job.get("job_id").asLong()).isEqualTo(100001);
        assertThat(job.get("job_state").asString()).isEqualTo("PENDING");
        assertThat(job.get("partition").asString()).isEqualTo("cpu");
        assertThat(job.get("time_limit").asInt()).isEqualTo(10);
        assertThat(job.get("name").asString()).isEqualTo("fix-run");
        assertThat(notSlurms(job, slurm.get("jobs").get(0))).as("fields not Slurm's, or of another type").isEmpty();
    }

    @Test
    void nodesPrintInSlurmsShapeWithSlurmsFieldNamesAndTypes() throws IOException {
        FakeController controller = new FakeController();
        for (String line : Files.readAllLines(SlurmCorpus.directory("/cli/slurm-22.05").resolve("cluster.state"))) {
            if (!line.isBlank()) {
                controller.addSlurmNodeOrPartition(line);
            }
        }
        SlurmCorpus.Result result = SlurmCorpus.run(List.of("sinfo", "--json"), "", Map.of("USER", "root"), dir,
                Instant.parse("2026-12-03T15:40:00Z"), controller);
        assertThat(result.exit()).as(result.stderr()).isZero();
        JsonNode gantry = HttpControllerApi.JSON.readTree(result.stdout());
        JsonNode slurm = HttpControllerApi.JSON.readTree(
                Files.readString(Path.of("src/test/resources/slurm-corpus/reference/sinfo-json.txt")));
        assertThat(gantry.get("meta")).isEqualTo(slurm.get("meta"));
        JsonNode node = gantry.get("nodes").get(0);
        assertThat(node.get("name").asString()).isNotEmpty();
        assertThat(node.get("cpus").asInt()).isPositive();
        assertThat(node.get("partitions").isArray()).isTrue();
        assertThat(notSlurms(node, slurm.get("nodes").get(0))).as("fields not Slurm's, or of another type").isEmpty();
    }

    private static List<String> notSlurms(JsonNode ours, JsonNode theirs) {
        List<String> unknown = new ArrayList<>();
        for (String name : ours.propertyNames()) {
            JsonNode reference = theirs.get(name);
            if (reference == null || !(reference.isNull() || ours.get(name).isNull()
                    || reference.getNodeType() == ours.get(name).getNodeType())) {
                unknown.add(name);
            }
        }
        return unknown;
    }
}
