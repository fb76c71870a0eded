package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.cli.SlurmCorpus.Result;

/**
 * Issue 37's options that the corpus test only sees succeed: {@code -M/--clusters} naming another
 * cluster is refused before anything is submitted or cancelled, {@code squeue -M} names the cluster
 * first as Slurm's does, and an {@code -O} name squeue does not know is Slurm's stderr line and an empty
 * column, not a failure.
 */
class CliClustersTests {

    private static final Instant NOW = Instant.parse("2026-12-03T15:40:00Z");

    @TempDir
    Path dir;

    private Result run(FakeController controller, String... words) {
        return SlurmCorpus.run(List.of(words), "", Map.of("USER", "root"), dir, NOW, controller);
    }

    /** The recorded corpus's first job (pending in cpu), as {@link CliCorpusTests} builds it. */
    private static FakeController controller() {
        FakeController controller = new FakeController();
        try {
            String line = java.nio.file.Files.readAllLines(SlurmCorpus.directory("/cli/slurm-22.05").resolve("jobs.state"))
                    .get(0);
            controller.addSlurmJob(line.replace("{J1}", "100001"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return controller;
    }

    @Test
    void anotherClusterIsRefusedBeforeAnythingIsSubmittedOrCancelled() {
        FakeController controller = controller();
        Result sbatch = run(controller, "sbatch", "--parsable", "-M", "elsewhere", "--wrap", "true");
        Result scancel = run(controller, "scancel", "--clusters=elsewhere", "100001");
        assertThat(sbatch.exit()).isEqualTo(1);
        assertThat(sbatch.stderr()).isEqualTo("sbatch: error: 'elsewhere' can't be reached now, or it is an invalid "
                + "entry for --cluster.  Use 'sacctmgr list clusters' to see available clusters.\n");
        assertThat(scancel.exit()).isEqualTo(1);
        assertThat(controller.calls()).noneMatch(c -> c.startsWith("POST") || c.startsWith("DELETE"));
    }

    @Test
    void thisClusterOrAllIsAnsweredAndSqueueNamesIt() {
        FakeController controller = controller();
        Result squeue = run(controller, "squeue", "-M", "gantry", "-h", "-o", "%i %t");
        assertThat(squeue.stdout()).isEqualTo("CLUSTER: gantry\n100001 PD\n");
        Result all = run(controller, "squeue", "--clusters=all", "-O", "jobid:\u001f,statecompact:\u001f,");
        assertThat(all.stdout()).isEqualTo("CLUSTER: gantry\nJOBID\u001fST\u001f\n100001\u001fPD\u001f\n");
    }

    @Test
    void anUnknownFormatNameIsAnEmptyColumnAsInSqueue() {
        Result squeue = run(controller(), "squeue", "-h", "-O", "jobid:\u001f,excnodes:\u001f,state:\u001f");
        assertThat(squeue.exit()).isZero();
        assertThat(squeue.stdout()).isEqualTo("100001\u001f\u001fPENDING\u001f\n");
        assertThat(squeue.stderr()).isEqualTo("squeue: error: Invalid job format specification: excnodes\n");
    }
}
