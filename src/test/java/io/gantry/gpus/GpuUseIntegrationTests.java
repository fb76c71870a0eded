package io.gantry.gpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * GPU use end to end with a real agent whose {@code nvidia-smi} is a script playing a utilisation
 * curve: the GPU the job holds (it writes its SLURM_JOB_GPUS into a marker file) reads 80 % for the first
 * {@link #BUSY_SECONDS} after the marker appeared, then 0 %; the other GPU (held by no job) reads 50 %
 * throughout with no power reading ({@code [N/A]}). A job holding
 * one GPU runs {@link #RUN_SECONDS}: while it runs sstat shows gres/gpuutil, and once it ended sacct's
 * TRESUsageInAve/Max, the job view, seff, the series endpoint and the utilisation report's
 * allocated-but-idle hours show what the curve implies, within sampling tolerance.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GpuUseIntegrationTests {

    private static final String JOIN_TOKEN = "gpuuse-test-join-token-0123456789";
    private static final String DATABASE = "gantry_gpuuse_it_" + ProcessHandle.current().pid();
    private static final int BUSY_SECONDS = 8;
    private static final int RUN_SECONDS = 16;
    /** A reading every half second: a reading or two at each edge of the curve is the tolerance. */
    private static final double TOLERANCE_SECONDS = 2.0;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private Path marker;

    private record Ran(int code, String out, String err) {
    }

    @BeforeAll
    void start() throws Exception {
        marker = dir.resolve("job-started");
        Path bin = Files.createDirectories(dir.resolve("fake-bin"));
        Path smi = bin.resolve("nvidia-smi");
        Files.writeString(smi, fakeNvidiaSmi(marker));
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("gpuuse-test", 2, 500) + """
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    kill-wait: 2s
                    poll-wait: 1s
                    gpu-sample-interval: 500ms
                """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, Map.of("PATH", bin + ":" + System.getenv("PATH")), JOIN_TOKEN, "node1", 2,
                4000, "--gpu-type", "test");
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Issue 33's PromQL check: a Prometheus scraping the controller answers each GPU's utilisation as the
     * fake nvidia-smi plays it (80 % on both before any job wrote its marker; once one did, 50 % on the GPU
     * no job held). Nothing changes on the node while this runs: the tests of this class run one at a time.
     */
    @Test
    void prometheusScrapingTheControllerAnswersEachGpusUtilisationAsTheNodeReadsIt() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.gantry.support.Prometheus.installed(),
                io.gantry.support.Prometheus.MISSING);
        boolean jobRan = Files.exists(marker) && Files.size(marker) > 0;
        int other = jobRan ? 1 - Integer.parseInt(Files.readString(marker).strip()) : 1;
        double expected = jobRan ? 0.5 : 0.8;
        try (io.gantry.support.Prometheus prometheus = io.gantry.support.Prometheus.start(dir.resolve("prometheus"),
                controller.port())) {
            String promql = "gantry_gpu_utilization_ratio{node=\"node1\",gpu=\"" + other + "\"}";
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                    .untilAsserted(() -> assertThat(prometheus.value(promql)).as(promql).isEqualTo(expected));
            assertThat(prometheus.value("count(gantry_gpu_utilization_ratio{node=\"node1\"})"))
                    .as("one series per GPU of the node").isEqualTo(2.0);
        }
    }

    @Test
    void aJobAt80ThenIdleShowsItsAverageAndPeakEverywhereAndItsIdleHoursInTheReport() throws Exception {
        Instant before = Instant.now();
        long id = api.submitJob(admin, Map.of("nodes", 1, "gpusPerNode", 1, "nodelist", "node1",
                "workdir", dir.toString(), "script", """
                #!/bin/bash
                echo -n "$SLURM_JOB_GPUS" > %s
                sleep %d
                """.formatted(marker, RUN_SECONDS)));
        api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(marker) && Files.size(marker) > 0);
        int held = Integer.parseInt(Files.readString(marker).strip());
        int other = 1 - held;

        // while it runs: sstat shows the peak of its busy phase
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Ran sstat = cli(admin, "sstat", "-j", id + ".batch", "-P", "-n", "-o", "JobID,TRESUsageInMax");
            assertThat(sstat.out()).as(sstat.err()).contains("gres/gpumem=1000M,gres/gpuutil=80");
        });
        JsonNode live = api.get("/api/v1/jobs/" + id, admin).json().get("gpuUsage");
        assertThat(live.get("peakUtilization").asDouble()).isEqualTo(80.0);

        api.awaitJobState(id, admin, "COMPLETED", Duration.ofSeconds(60));
        Instant after = Instant.now();
        // the readings of its last half second travel with the next poll
        Instant ended = Instant.parse(api.get("/api/v1/jobs/" + id, admin).json().get("endTime").asString());
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(500)).until(() -> Instant.parse(
                api.get("/api/v1/jobs/" + id, admin).json().get("gpuUsage").get("lastSample").asString())
                .isAfter(ended.minusSeconds(1)));

        // and a reading taken just before the end may come with a poll after that one: settled once two
        // answers more than a poll apart agree, so the view, sacct and seff below read the same readings
        JsonNode[] settled = {null};
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(1500)).until(() -> {
            JsonNode now = api.get("/api/v1/jobs/" + id, admin).json().get("gpuUsage");
            boolean same = now.equals(settled[0]);
            settled[0] = now;
            return same;
        });
        JsonNode usage = settled[0];
        double gpuSeconds = usage.get("gpuSeconds").asDouble();
        assertThat(gpuSeconds).as("one GPU for the job's run").isCloseTo(RUN_SECONDS, within(TOLERANCE_SECONDS));
        double expectedAverage = 80.0 * BUSY_SECONDS / gpuSeconds;
        assertThat(usage.get("averageUtilization").asDouble()).isCloseTo(expectedAverage, within(
                80.0 * TOLERANCE_SECONDS / RUN_SECONDS));
        assertThat(usage.get("peakUtilization").asDouble()).isEqualTo(80.0);
        assertThat(usage.get("peakMemoryMb").asLong()).as("the other GPU's 2000 MiB is not the job's").isEqualTo(1000);
        double idle = usage.get("idleGpuSeconds").asDouble();
        assertThat(idle).isCloseTo(RUN_SECONDS - BUSY_SECONDS, within(TOLERANCE_SECONDS));

        Ran sacct = cli(admin, "sacct", "-j", Long.toString(id), "-X", "-P", "-n", "-o",
                "JobID,TRESUsageInAve,TRESUsageInMax");
        String average = Long.toString(Math.round(usage.get("averageUtilization").asDouble()));
        assertThat(sacct.out().strip()).as(sacct.err()).matches(id + "\\|gres/gpumem=[\\d.]+[MG],gres/gpuutil=" + average
                + "\\|gres/gpumem=1000M,gres/gpuutil=80");

        Ran seff = cli(admin, "seff", Long.toString(id));
        assertThat(seff.code()).as(seff.err()).isZero();
        assertThat(seff.out()).startsWith("Job ID: " + id + "\nCluster: gpuuse-test\nUser/Group: admin/")
                .contains("State: COMPLETED (exit code 0)\n", "Cores: ", "CPU Efficiency: ", "Memory Efficiency: ",
                        "GPUs: 1\n", String.format(java.util.Locale.ROOT, "GPU Utilization: %.2f%% average, 80.00%% peak\n",
                                usage.get("averageUtilization").asDouble()),
                        "GPU Memory Utilized: 1000.00 MB (peak of one GPU)\n");

        JsonNode series = api.get("/api/v1/jobs/" + id + "/gpu-usage", admin).json();
        List<Double> utils = new ArrayList<>();
        for (JsonNode p : series.get("points")) {
            assertThat(p.get("node").asString()).isEqualTo("node1");
            assertThat(p.get("gpu").asInt()).isEqualTo(held);
            utils.add(p.get("utilization").asDouble());
        }
        assertThat(utils).hasSizeGreaterThan(RUN_SECONDS);
        assertThat(utils.get(0)).isEqualTo(80.0);
        assertThat(utils.get(utils.size() - 1)).isEqualTo(0.0);
        Response badPoints = api.get("/api/v1/jobs/" + id + "/gpu-usage?maxPoints=0", admin);
        assertThat(badPoints.status()).isEqualTo(400);
        assertThat(badPoints.body()).contains("maxPoints");
        JsonNode merged = api.get("/api/v1/jobs/" + id + "/gpu-usage?maxPoints=4", admin).json();
        assertThat(merged.get("points").size()).isBetween(1, 4);
        assertThat(merged.get("bucketSeconds").asLong()).isPositive();

        JsonNode report = api.get("/api/v1/reports/utilization?start=" + before.minusSeconds(3600) + "&end="
                + Instant.now().plusSeconds(60), admin).json().get("allocatedIdle");
        assertThat(report.get("thresholdPercent").asDouble()).isEqualTo(5.0);
        JsonNode byJob = report.get("byJob").get(0);
        assertThat(byJob.get("name").asString()).isEqualTo(Long.toString(id));
        assertThat(byJob.get("idleGpuHours").asDouble() * 3600).isCloseTo(RUN_SECONDS - BUSY_SECONDS,
                within(TOLERANCE_SECONDS));
        assertThat(report.get("gpuHours").asDouble() * 3600).isCloseTo(idle, within(0.01));
        assertThat(report.get("byUser").get(0).get("name").asString()).isEqualTo("admin");
        assertThat(report.get("byPartition").get(0).get("name").asString()).isEqualTo("batch");
        assertThat(report.get("byAccount").get(0).get("idleGpuHours").asDouble()).isCloseTo(
                byJob.get("idleGpuHours").asDouble(), within(1e-9));

        // the per-GPU gauges: the other GPU's latest reading, its power not reported
        String prometheus = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + controller.port() + "/actuator/prometheus"))
                .header("Accept", "text/plain").header("Authorization", "Bearer " + admin).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        String labels = "{gpu=\"" + other + "\",node=\"node1\"} ";
        assertThat(gauge(prometheus, "gantry_gpu_utilization_ratio" + labels)).isEqualTo(0.5);
        assertThat(gauge(prometheus, "gantry_gpu_memory_used_bytes" + labels)).isEqualTo(2000.0 * 1024 * 1024);
        assertThat(gauge(prometheus, "gantry_gpu_power_watts" + labels)).isNaN();
        assertThat(gauge(prometheus, "gantry_gpu_power_watts{gpu=\"" + held + "\",node=\"node1\"} "))
                .isEqualTo(250.5);
    }

    private static double gauge(String exposition, String prefix) {
        return exposition.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> Double.parseDouble(l.substring(prefix.length()).strip()))
                .orElseThrow(() -> new AssertionError("no " + prefix + " in\n" + exposition));
    }

    /**
     * {@code nvidia-smi} as the agent asks it: {@code -L}, {@code -q} (nothing), and {@code --query-gpu=}
     * any of the fields it reads, for GPUs 0 and 1. The GPU named in {@code marker} reads 80 % and 1000 MiB
     * for the first {@link #BUSY_SECONDS} after it appeared, then 0 % and 10 MiB; the other 50 % and 2000 MiB.
     * Before the marker (the job starting) every GPU reads as busy.
     */
    private static String fakeNvidiaSmi(Path marker) {
        return """
                #!/bin/bash
                if [ "$1" = "-L" ]; then
                  echo "GPU 0: NVIDIA Test GPU (UUID: GPU-fake-0)"
                  echo "GPU 1: NVIDIA Test GPU (UUID: GPU-fake-1)"
                  exit 0
                fi
                if [ "$1" = "-q" ]; then exit 0; fi
                query=""
                for a in "$@"; do case "$a" in --query-gpu=*) query="${a#--query-gpu=}";; esac; done
                [ -n "$query" ] || exit 0
                busy=1
                held=none
                if [ -s %s ]; then
                  held=$(cat %s)
                  age=$(( $(date +%%s) - $(stat -c %%Y %s) ))
                  [ "$age" -lt %d ] || busy=0
                fi
                for i in 0 1; do
                  line=""
                  IFS=, read -ra fields <<< "$query"
                  for f in "${fields[@]}"; do
                    case "$f" in
                      index) v=$i;;
                      uuid) v=GPU-fake-$i;;
                      name) v="NVIDIA Test GPU";;
                      pci.bus_id) v=00000000:0$i:00.0;;
                      utilization.gpu) if [ $held != none ] && [ $i != $held ]; then v=50; elif [ $busy = 1 ]; then v=80; else v=0; fi;;
                      memory.used) if [ $held != none ] && [ $i != $held ]; then v=2000; elif [ $busy = 1 ]; then v=1000; else v=10; fi;;
                      memory.total) v=16384;;
                      power.draw) if [ $held != none ] && [ $i != $held ]; then v="[N/A]"; else v=250.5; fi;;
                      temperature.gpu) v=50;;
                      ecc.errors.uncorrected.volatile.total) v=0;;
                      *) v="[N/A]";;
                    esac
                    line="${line:+$line, }$v"
                  done
                  echo "$line"
                done
                """.formatted(marker, marker, marker, BUSY_SECONDS);
    }

    /** A command as a login node runs it: the packaged jar, the user's login in GANTRY_URL and GANTRY_TOKEN. */
    private Ran cli(String token, String... args) throws IOException, InterruptedException {
        List<String> command = io.gantry.support.TestJvm.gantry();
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "cli", ".out");
        Path err = Files.createTempFile(dir, "cli", ".err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("GANTRY_"));
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", token);
        builder.environment().put("HOME", dir.toString());
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", args) + " ends").isTrue();
        return new Ran(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
