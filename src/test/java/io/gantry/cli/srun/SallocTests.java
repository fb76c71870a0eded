package io.gantry.cli.srun;

import io.gantry.noded.protocol.AgentJson;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** salloc's command line and the variables it gives its command; the whole of it runs in InteractiveIntegrationTests. */
class SallocTests {

    private static JsonNode job(String json) {
        return AgentJson.MAPPER.readTree(json);
    }

    @Test
    void theCommandGetsTheAllocationsVariablesInSlurmsFormats() {
        JsonNode view = job("""
                {"id": "42", "name": "interactive", "partition": "gpu", "account": "physics", "qos": "normal",
                 "workdir": "/home/alice", "allocatedNodes": "node[1-3]", "tasks": 6, "cpusPerTask": 1,
                 "allocation": [{"node": "node1", "cpus": 4}, {"node": "node2", "cpus": 4}, {"node": "node3", "cpus": 2}]}
                """);
        Map<String, String> vars = Salloc.allocationEnvironment(view, SrunOptions.parse(List.of("-N3", "-n6")));
        assertThat(vars).containsEntry("SLURM_JOB_ID", "42").containsEntry("SLURM_JOBID", "42")
                .containsEntry("SLURM_JOB_NAME", "interactive").containsEntry("SLURM_JOB_NODELIST", "node[1-3]")
                .containsEntry("SLURM_NODELIST", "node[1-3]").containsEntry("SLURM_JOB_NUM_NODES", "3")
                .containsEntry("SLURM_NNODES", "3").containsEntry("SLURM_JOB_CPUS_PER_NODE", "4(x2),2")
                .containsEntry("SLURM_NTASKS", "6").containsEntry("SLURM_NPROCS", "6")
                .containsEntry("SLURM_JOB_PARTITION", "gpu").containsEntry("SLURM_JOB_ACCOUNT", "physics")
                .containsEntry("SLURM_SUBMIT_DIR", "/home/alice").containsKey("SLURM_SUBMIT_HOST");
        assertThat(vars.get("SLURM_TASKS_PER_NODE"))
                .as("six tasks in blocks over 4, 4 and 2 CPUs: one a node, then the first filled").isEqualTo("4,1(x2)");

        // without -n: one task a node, and no SLURM_NTASKS (as Slurm's salloc -N2)
        Map<String, String> plain = Salloc.allocationEnvironment(job("""
                {"id": "7", "name": "x", "allocatedNodes": "node[1-2]", "tasks": 2, "cpusPerTask": 1,
                 "allocation": [{"node": "node1", "cpus": 2}, {"node": "node2", "cpus": 2}]}
                """), SrunOptions.parse(List.of("-N2")));
        assertThat(plain).containsEntry("SLURM_TASKS_PER_NODE", "1(x2)").doesNotContainKey("SLURM_NTASKS")
                .doesNotContainKey("SLURM_JOB_ACCOUNT");
    }

    @Test
    void withoutALoginSallocSaysHowToGetOneAndAsksForNothing() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Salloc salloc = new Salloc(Map.of("HOME", "/nonexistent"), new PrintStream(err, true, StandardCharsets.UTF_8),
                Path.of("/tmp"), millis -> { });
        assertThat(salloc.run(List.of("-N1", "--no-shell"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("salloc: error: not logged in: run 'gantry login'");
    }

    @Test
    void aMistakenOptionIsSaidAsSlurmSaysIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Salloc salloc = new Salloc(Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8), Path.of("/tmp"),
                millis -> { });
        assertThat(salloc.run(List.of("--nodes"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("salloc: option '--nodes' requires an argument");
        err.reset();
        assertThat(salloc.run(List.of("--bogus-option"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("salloc: unrecognized option '--bogus-option'")
                .contains("Try \"salloc --help\"");
    }

    @Test
    void containerFlagsAreRefusedSinceSallocsCommandRunsHere() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Salloc salloc = new Salloc(Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8), Path.of("/tmp"),
                millis -> { });
        assertThat(salloc.run(List.of("-N1", "--container-image=ubuntu:24.04"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("salloc: error: --container-* runs nothing here")
                .contains("srun --container-image");
    }
}
