package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** seff's lines, as Slurm's contributed script prints them, plus Gantry's GPU lines. */
class SeffTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path etc;

    @Test
    void anEndedGpuJobShowsCpuMemoryAndGpuEfficiency() {
        JsonNode job = JSON.readTree("""
                {"id":"42","cluster":"gantry","user":"alice","state":"COMPLETED","exitCode":0,"gpus":2,
                 "startTime":"2026-12-05T10:00:00Z","endTime":"2026-12-05T11:00:00Z",
                 "allocation":[{"node":"n1","cpus":4,"memoryMb":8192,"gpuIndices":[0,3]}],
                 "totalCpuMillis":3600000,"maxRssBytes":2147483648,
                 "gpuUsage":{"averageUtilization":40.0,"peakUtilization":80.0,"peakMemoryMb":30512,
                   "gpuSeconds":7200,"idleGpuSeconds":3600}}""");
        assertThat(Seff.report(job, Instant.parse("2026-12-05T12:00:00Z"), "users")).isEqualTo("""
                Job ID: 42
                Cluster: gantry
                User/Group: alice/users
                State: COMPLETED (exit code 0)
                Cores: 4
                CPU Utilized: 01:00:00
                CPU Efficiency: 25.00% of 04:00:00 core-walltime
                Job Wall-clock time: 01:00:00
                Memory Utilized: 2.00 GB
                Memory Efficiency: 25.00% of 8.00 GB
                GPUs: 2
                GPU Utilization: 40.00% average, 80.00% peak
                GPU Memory Utilized: 29.80 GB (peak of one GPU)
                GPU Allocated but Idle: 01:00:00 of 02:00:00 GPU-time (50.00%)
                """);
    }

    @Test
    void aRunningJobOnTwoNodesWithoutReadingsSaysSo() {
        JsonNode job = JSON.readTree("""
                {"id":"43_7","arrayTaskId":7,"cluster":"gantry","user":"bob","state":"RUNNING","gpus":1,
                 "startTime":"2026-12-05T10:00:00Z",
                 "allocation":[{"node":"n1","cpus":2,"memoryMb":1024},{"node":"n2","cpus":2,"memoryMb":1024}]}""");
        String out = Seff.report(job, Instant.parse("2026-12-05T10:00:10Z"), "bob");
        assertThat(out).contains("State: RUNNING\nNodes: 2\nCores per node: 2\n", "Job Wall-clock time: 00:00:10\n",
                "Memory Utilized: 0.00 MB (estimated maximum)\n",
                "GPU Utilization: not known (no nvidia-smi readings of its GPUs)\n")
                .endsWith("WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n");
    }

    @Test
    void theGroupIsTheUsersPrimaryGroupFromThePasswdAndGroupFiles() throws Exception {
        Files.writeString(etc.resolve("passwd"), "root:x:0:0::/root:/bin/bash\nalice:x:1000:1500::/home/alice:/bin/sh\n");
        Files.writeString(etc.resolve("group"), "root:x:0:\nphysics:x:1500:alice\n");
        Seff seff = new Seff(null, etc);
        assertThat(seff.group("alice")).isEqualTo("physics");
        assertThat(seff.group("nobody-here")).isEqualTo("nobody-here");
        assertThat(Seff.kbytes(0)).isEqualTo("0.00 MB");
        assertThat(Seff.kbytes(1536)).isEqualTo("1.50 MB");
    }
}
