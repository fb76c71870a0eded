package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.SlurmReference;
import tools.jackson.databind.JsonNode;

/**
 * A QOS's MaxJobsPerAccount, MaxTRESPerAccount and MinTRESPerJob (issue 32), set with sacctmgr and run on
 * the demo cluster's simulated gpu partition, against what the reference Slurm 22.05 did with the same
 * QOS and jobs (scripts/record-slurm-limits-fixtures.sh qos): one account's jobs under the QOS are held
 * with Slurm's reasons while another account's run beside them.
 */
@GantryIntegrationTest
class QosAccountLimitsIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    @TempDir
    Path home;

    ApiClient api;
    String admin;
    final List<Long> submitted = new ArrayList<>();

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @AfterEach
    void cancelAll() {
        submitted.forEach(id -> api.send("DELETE", "/api/v1/jobs/" + id, admin, null));
    }

    @Test
    void maxJobsPerAccountHoldsTheSecondJobOfOneAccountAndNotAnothersAsSlurmDoes() {
        String qos = qos("MaxJobsPerAccount=1");
        String alice = user(account(), qos);
        String bob = user(account(), qos);
        long j1 = submit(alice, qos, 1, 1);
        long j2 = submit(alice, qos, 1, 1);
        long j3 = submit(bob, qos, 1, 1);

        await().atMost(PATIENCE).until(() -> line(j1).equals("RUNNING None") && line(j3).equals("RUNNING None")
                && line(j2).startsWith("PENDING ") && !line(j2).equals("PENDING Priority"));
        assertThat(List.of(line(j1), line(j2), line(j3))).containsExactlyElementsOf(
                reference("squeue -h -j {J1},{J2},{J3} -o '%i %a %T %r'", 3));
    }

    @Test
    void maxTresPerAccountHoldsOneAccountsGpusAndCpusAsSlurmDoes() {
        String qos = qos("MaxTRESPerAccount=gres/gpu=2,cpu=3");
        String alice = user(account(), qos);
        String bob = user(account(), qos);
        long j1 = submit(alice, qos, 1, 1);
        long j2 = submit(alice, qos, 1, 1);
        long j3 = submit(alice, qos, 1, 1);
        long j4 = submit(alice, qos, 0, 4);
        long j5 = submit(bob, qos, 2, 1);

        await().atMost(PATIENCE).until(() -> line(j1).equals("RUNNING None") && line(j2).equals("RUNNING None")
                && line(j5).equals("RUNNING None") && !line(j3).equals("PENDING Priority")
                && !line(j4).equals("PENDING Priority"));
        assertThat(List.of(line(j1), line(j2), line(j3), line(j4), line(j5))).containsExactlyElementsOf(
                reference("squeue -h -j {J1},{J2},{J3},{J4},{J5} -o '%i %a %T %r'", 5));

        Run shown = cli("sacctmgr", "-n", "-P", "show", "qos", qos, "format=name,maxjobspa,maxtrespa,mintres");
        assertThat(shown.out().strip()).isEqualTo(qos + "||cpu=3,gres/gpu=2|");
    }

    @Test
    void aJobAskingLessThanMinTresPerJobIsRefusedNamingTheQosAndOneAskingEnoughRuns() {
        String qos = qos("MinTRESPerJob=gres/gpu=2,cpu=2");
        String alice = user(account(), qos);

        for (int[] asks : new int[][] {{1, 2}, {2, 1}}) {
            Response refused = api.send("POST", "/api/v1/jobs", alice, job(qos, asks[0], asks[1]));
            assertThat(refused.status()).as(refused.body()).isEqualTo(400);
            assertThat(refused.body()).contains("\"field\":\"qos\"", "MinTRESPerJob",
                    "requires at least cpu=2,gres/gpu=2 per job");
        }
        long enough = submit(alice, qos, 2, 2);
        await().atMost(PATIENCE).until(() -> line(enough).equals("RUNNING None"));
        // Slurm keeps the two that ask too little pending (QOSMinGRES, QOSMinCpuNotSatisfied) and runs the third.
        assertThat(SlurmReference.output("qos", "squeue -h -j {J1},{J2},{J3} -o '%i %T %r'"))
                .containsExactly("{J1} PENDING QOSMinGRES", "{J2} PENDING QOSMinCpuNotSatisfied", "{J3} RUNNING None");
    }

    /**
     * Slurm's partition QOS: with gpu's QOS at MaxTRESPerUser=gres/gpu=2, a user's third 1-GPU job pends
     * (QOSMaxGRESPerUser) though their own QOS allows 4; once their QOS has OverPartQOS its 4 GPUs win.
     */
    @Test
    void aPartitionsQosHoldsAUsersThirdGpuJobUntilTheirOwnQosHasOverPartQos() {
        String partQos = qos("MaxTRESPerUser=gres/gpu=2");
        String own = qos("MaxTRESPerUser=gres/gpu=4");
        Response unknown = api.send("PATCH", "/api/v1/partitions/gpu", admin, Map.of("qos", "no-such-qos"));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.body()).contains("\"field\":\"qos\"", "unknown QOS 'no-such-qos'");
        Run set = cli("scontrol", "update", "PartitionName=gpu", "QOS=" + partQos);
        assertThat(set.exit()).as(set.err()).isZero();
        try {
            assertThat(api.get("/api/v1/partitions/gpu", admin).json().get("qos").asString()).isEqualTo(partQos);
            assertThat(cli("scontrol", "show", "partition", "gpu").out()).contains("QoS=" + partQos);
            Response inUse = api.send("DELETE", "/api/v1/qos/" + partQos, admin, null);
            assertThat(inUse.status()).as(inUse.body()).isEqualTo(409);

            String alice = user(account(), own);
            long j1 = submit(alice, own, 1, 1);
            long j2 = submit(alice, own, 1, 1);
            long j3 = submit(alice, own, 1, 1);
            await().atMost(PATIENCE).until(() -> line(j1).equals("RUNNING None") && line(j2).equals("RUNNING None")
                    && line(j3).equals("PENDING QOSMaxGRESPerUser"));

            Run flagged = cli("sacctmgr", "-i", "modify", "qos", own, "set", "Flags=OverPartQOS");
            assertThat(flagged.exit()).as(flagged.err()).isZero();
            assertThat(cli("sacctmgr", "-n", "-P", "show", "qos", own, "format=name,flags").out().strip())
                    .isEqualTo(own + "|OverPartQOS");
            long j4 = submit(alice, own, 1, 1);
            long j5 = submit(alice, own, 1, 1);
            await().atMost(PATIENCE).until(() -> line(j3).equals("RUNNING None") && line(j4).equals("RUNNING None")
                    && line(j5).equals("PENDING QOSMaxGRESPerUser"));
        } finally {
            Response cleared = api.send("PATCH", "/api/v1/partitions/gpu", admin, Map.of("qos", ""));
            assertThat(cleared.status()).as(cleared.body()).isEqualTo(200);
        }
        assertThat(api.get("/api/v1/partitions/gpu", admin).json().get("qos").isNull()).isTrue();
    }

    /** The reference's lines for {@code command} without job ids and accounts: state and reason. */
    private static List<String> reference(String command, int jobs) {
        List<String> out = SlurmReference.output("qos", command);
        assertThat(out).hasSize(jobs);
        return out.stream().map(l -> l.split(" ", 3)[2]).toList();
    }

    private String line(long id) {
        JsonNode j = api.get("/api/v1/jobs/" + id, admin).json();
        String state = j.get("state").asString();
        return state + " " + (state.equals("RUNNING") ? "None" : j.path("reason").asString());
    }

    private String qos(String limit) {
        String name = "q" + suffix();
        Run added = cli("sacctmgr", "-i", "add", "qos", name, limit);
        assertThat(added.exit()).as(added.err()).isZero();
        return name;
    }

    private String account() {
        String name = "acct" + suffix();
        Response r = api.send("POST", "/api/v1/accounts", admin, Map.of("name", name, "parent", "root"));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return name;
    }

    /** A new user of {@code account} whose association defaults to {@code qos}; their token. */
    private String user(String account, String qos) {
        String name = "u" + suffix();
        Response created = api.send("POST", "/api/v1/users", admin, new HashMap<>(Map.of("username", name,
                "password", "secret-password", "defaultAccount", account)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        long association = api.get("/api/v1/associations?account=" + account, admin).json().get("items").valueStream()
                .filter(a -> name.equals(a.path("user").asString(null))).findFirst().orElseThrow().get("id").asLong();
        Response patched = api.send("PATCH", "/api/v1/associations/" + association, admin,
                Map.of("qos", List.of(qos), "defaultQos", qos));
        assertThat(patched.status()).as(patched.body()).isEqualTo(200);
        return api.token(name, "secret-password");
    }

    private static Map<String, Object> job(String qos, int gpus, int cpus) {
        Map<String, Object> body = new HashMap<>(Map.of("partition", "gpu", "qos", qos, "cpusPerTask", cpus,
                "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
        if (gpus > 0) {
            body.put("gpus", gpus);
        }
        return body;
    }

    private long submit(String token, String qos, int gpus, int cpus) {
        Response r = api.send("POST", "/api/v1/jobs", token, job(qos, gpus, cpus));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        long id = r.json().get("jobId").asLong();
        submitted.add(id);
        return id;
    }

    private record Run(int exit, String out, String err) {
    }

    private Run cli(String command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of(CliEnvironment.URL_ENV, "http://127.0.0.1:" + port,
                CliEnvironment.TOKEN_ENV, admin);
        CliEnvironment e = new CliEnvironment(env, home, home, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC(), ZoneOffset.UTC,
                () -> new HttpControllerApi(URI.create("http://127.0.0.1:" + port), admin));
        int exit = Cli.run(e, command, List.of(args));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
