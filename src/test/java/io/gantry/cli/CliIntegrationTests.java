package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import io.gantry.support.ControllerProcess;
import io.gantry.support.StartEarly;

/**
 * Issue 18's first "done when": the launchers {@code cli install} writes, first on PATH, driven by a shell
 * script the way a workflow engine drives Slurm, against the packaged controller (its demo cluster of
 * simulated nodes, which run a job for half its time limit).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@StartEarly("workflows through the launchers, each command a JVM of its own")
class CliIntegrationTests {

    @TempDir
    static Path dir;

    private ControllerProcess controller;
    private ApiClient api;
    private String token;

    @BeforeAll
    void start() throws Exception {
        Files.createDirectories(dir.resolve("controller"));
        controller = new ControllerProcess(dir.resolve("controller"));
        api = controller.start().api();
        token = api.adminToken();
    }

    @AfterAll
    void stop() throws Exception {
        if (controller != null) {
            controller.stop();
        }
    }

    private record Run(int exit, String stdout, String stderr) {
    }

    private Run sh(String script, Map<String, String> extraEnv) throws IOException, InterruptedException {
        Path file = dir.resolve("workflow-" + System.nanoTime() + ".sh");
        Files.writeString(file, script);
        ProcessBuilder builder = new ProcessBuilder("sh", file.toString()).directory(dir.toFile());
        builder.environment().put("PATH", dir.resolve("bin") + ":" + System.getenv("PATH"));
        builder.environment().put("HOME", dir.resolve("home").toString());
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().remove("GANTRY_TOKEN");
        builder.environment().putAll(extraEnv);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(10, TimeUnit.MINUTES)).as("the workflow script ends").isTrue();
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private void install() throws Exception {
        Process install = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ControllerProcess.JAR.toAbsolutePath().toString(), "cli", "install", "--prefix", dir.resolve("bin").toString())
                .redirectErrorStream(true).start();
        String said = new String(install.getInputStream().readAllBytes());
        assertThat(install.waitFor()).as(said).isZero();
        for (String name : Cli.COMMANDS) {
            assertThat(dir.resolve("bin").resolve(name)).isExecutable();
        }
    }

    @Test
    void aWorkflowEngineSubmitsPollsCancelsAndReadsTheClusterThroughTheLaunchers() throws Exception {
        install();
        Run run = sh("""
                set -eu
                J1=$(sbatch --parsable -t 0:10 --wrap 'echo hello')
                echo "wrap $J1"
                cat > job.sh <<'EOF'
                #!/bin/bash
                #SBATCH -J scripted
                #SBATCH --time=0:12
                #SBATCH -p cpu
                echo from the script
                EOF
                out=$(sbatch job.sh)
                J2=${out##* }
                echo "script [$out] $J2"
                J3=$(sbatch --parsable -H -J victim --wrap 'sleep 100')
                scancel "$J3"
                echo "cancelled [$(squeue -h -j "$J3" -o %T)] $(sacct -X -P -n -j "$J3" -o State)"
                for J in "$J1" "$J2"; do
                  i=0
                  while :; do
                    st=$(squeue -h -j "$J" -o %T)
                    case "$st" in COMPLETED|FAILED|CANCELLED|TIMEOUT|"") break ;; esac
                    i=$((i + 1)); [ $i -lt 120 ] || { echo "stuck $J $st"; exit 3; }
                    sleep 1
                  done
                  echo "squeue $J $st"
                  echo "sacct $(sacct -X -P -n -j "$J" -o JobIDRaw,State,ExitCode)"
                done
                sinfo -h -o "%P %a %D %t" | sed 's/^/sinfo /'
                scontrol show job "$J2" | sed 's/^/scontrol /'
                """, Map.of("GANTRY_TOKEN", token));
        assertThat(run.exit()).as(run.stdout() + run.stderr()).isZero();
        List<String> lines = run.stdout().lines().toList();
        String j1 = value(lines, "wrap ");
        assertThat(j1).matches("\\d+");
        String scripted = lines.stream().filter(l -> l.startsWith("script [")).findFirst().orElseThrow();
        String j2 = scripted.substring(scripted.lastIndexOf(' ') + 1);
        assertThat(scripted).isEqualTo("script [Submitted batch job " + j2 + "] " + j2);
        // squeue forgets an ended job at once (as Slurm's does once it is purged); sacct keeps it.
        assertThat(value(lines, "cancelled ")).isEqualTo("[] CANCELLED");
        assertThat(lines).contains("squeue " + j1 + " ", "squeue " + j2 + " ", "sacct " + j1 + "|COMPLETED|0:0",
                "sacct " + j2 + "|COMPLETED|0:0");
        List<String> sinfo = new ArrayList<>(lines.stream().filter(l -> l.startsWith("sinfo ")).toList());
        assertThat(sinfo).allSatisfy(l -> assertThat(l.split(" ")).hasSize(5));
        assertThat(sinfo).anySatisfy(l -> assertThat(l).matches("sinfo gpu\\* up 16 \\w+"))
                .anySatisfy(l -> assertThat(l).matches("sinfo cpu up 8 \\w+"));
        String show = String.join("\n", lines.stream().filter(l -> l.startsWith("scontrol ")).toList());
        assertThat(show).contains("JobId=" + j2 + " JobName=scripted", "JobState=COMPLETED", "Partition=cpu",
                "TimeLimit=00:00:12");
    }

    @Test
    void loginKeepsAnOwnerOnlyTokenAndErrorsAreSlurmsOneLiners() throws Exception {
        install();
        Run run = sh("""
                set -u
                printf '%s\\n' "$ADMIN_PASSWORD" | gantry login --user admin --password-stdin >/dev/null || exit 4
                stat -c '%a' "$HOME/.config/gantry/token"
                squeue -h -t PD -o %T >/dev/null; echo "squeue with the stored token: $?"
                squeue -j 987654; echo "unknown job: $?"
                sbatch -p nosuch --wrap true; echo "unknown partition: $?"
                squeue --frobnicate; echo "unknown option: $?"
                GANTRY_URL=http://127.0.0.1:1 squeue; echo "unreachable: $?"
                """, Map.of("ADMIN_PASSWORD", ApiClient.ADMIN_PASSWORD));
        assertThat(run.stdout().lines().toList()).containsExactly("600", "squeue with the stored token: 0",
                "unknown job: 1", "unknown partition: 1", "unknown option: 1", "unreachable: 1");
        assertThat(run.stderr().lines().toList()).containsExactly(
                "slurm_load_jobs error: Invalid job id specified",
                "sbatch: error: invalid partition specified: nosuch",
                "sbatch: error: Batch job submission failed: Invalid partition name specified",
                "squeue: unrecognized option '--frobnicate'",
                "Try \"squeue --help\" for more information",
                "squeue: error: Unable to contact the Gantry controller at http://127.0.0.1:1 (Connection refused)");
    }

    @Test
    void anAdminManagesAccountsAndQosWithSacctmgrAndAUserIsRefused() throws Exception {
        install();
        assertThat(api.send("POST", "/api/v1/users", token, Map.of("username", "carol", "password",
                "carol-password-1", "roles", List.of("USER"))).status()).isEqualTo(201);
        String carol = api.token("carol", "carol-password-1");
        Run run = sh("""
                set -u
                sacctmgr -i add account chem parent=root fairshare=10 description=Chemistry >/dev/null; echo "add account $?"
                sacctmgr -i add qos short priority=10 MaxWall=1:00:00 MaxJobsPerUser=5 >/dev/null; echo "add qos $?"
                sacctmgr -i add user carol account=chem fairshare=3 >/dev/null; echo "add user $?"
                sacctmgr -i modify user carol set defaultaccount=chem >/dev/null; echo "modify user $?"
                sacctmgr -i modify qos short set MaxWall=2:00:00 >/dev/null; echo "modify qos $?"
                sacctmgr -n -P show assoc account=chem format=account,user,share | sed 's/^/assoc /'
                sacctmgr -n -P show account chem format=account,descr | sed 's/^/account /'
                sacctmgr -n -P show user carol format=user,defaultaccount,admin | sed 's/^/user /'
                sacctmgr -n -P show qos short format=name,priority,maxwall,maxjobspu | sed 's/^/qos /'
                sshare -a -n -P -o account,user,rawshares | grep chem | sed 's/^/sshare /'
                sreport -n -P cluster utilization | cut -d'|' -f1 | sed 's/^/sreport /'
                sprio -h -j 987654; echo "sprio $?"
                GANTRY_TOKEN=$CAROL sacctmgr -i add account physics; echo "carol add $?"
                sacctmgr -i delete qos short >/dev/null; echo "delete qos $?"
                sacctmgr -n -P show qos short format=name | sed 's/^/after /'
                """, Map.of("GANTRY_TOKEN", token, "CAROL", carol));
        List<String> lines = run.stdout().lines().toList();
        assertThat(lines).as(run.stdout() + run.stderr()).contains("add account 0", "add qos 0", "add user 0",
                "modify user 0", "modify qos 0", "assoc chem||10", "assoc chem|carol|3", "account chem|chemistry",
                "user carol|chem|None", "qos short|10|02:00:00|5", "sshare  chem||10", "sshare   chem|carol|3",
                "sreport gantry", "sprio 0", "carol add 1", "delete qos 0");
        assertThat(lines).noneMatch(l -> l.startsWith("after "));
        assertThat(run.stderr()).contains(" Problem adding accounts: Access/permission denied");
    }

    @Test
    void scontrolShowsTheControllersReservationsAsSlurmPrintsThem() throws Exception {
        install();
        Run none = sh("scontrol show reservation; echo \"rc $?\"\n", Map.of("GANTRY_TOKEN", token));
        assertThat(none.stdout()).as(none.stderr()).isEqualTo("No reservations in the system\nrc 0\n");
        tools.jackson.databind.JsonNode first = api.get("/api/v1/nodes?size=1000", token).json().get("items").get(0);
        String node = first.get("name").asString();
        int cpus = first.get("cpus").asInt();
        java.time.Instant start = java.time.Instant.now().plus(java.time.Duration.ofHours(2))
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        ApiClient.Response maint = api.send("POST", "/api/v1/reservations", token, Map.of("name", "maint", "nodes", node,
                "startTime", start.toString(), "durationSeconds", 5400, "users", List.of("admin"),
                "flags", List.of("IGNORE_JOBS", "MAINT")));
        assertThat(maint.status()).as(maint.body()).isEqualTo(201);
        ApiClient.Response now = api.send("POST", "/api/v1/reservations", token, Map.of("name", "now",
                "partition", "gpu", "nodeCount", 1, "durationSeconds", 90_000, "users", List.of("admin"),
                "accounts", List.of("root"), "flags", List.of("IGNORE_JOBS")));
        assertThat(now.status()).as(now.body()).isEqualTo(201);
        String chosen = now.json().get("nodes").asString();
        int chosenCpus = api.get("/api/v1/nodes/" + chosen, token).json().get("cpus").asInt();
        Run run = sh("""
                scontrol show res maint
                scontrol -o show reservation
                scontrol show reservation nosuch; echo "rc $?"
                """, Map.of("GANTRY_TOKEN", token));
        String local = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
                .format(java.time.LocalDateTime.ofInstant(start, java.time.ZoneId.systemDefault()));
        String end = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
                .format(java.time.LocalDateTime.ofInstant(start.plusSeconds(5400), java.time.ZoneId.systemDefault()));
        List<String> lines = run.stdout().lines().toList();
        assertThat(lines.subList(0, 6)).as(run.stdout() + run.stderr()).containsExactly(
                "ReservationName=maint StartTime=" + local + " EndTime=" + end + " Duration=01:30:00",
                "   Nodes=" + node + " NodeCnt=1 CoreCnt=" + cpus
                        + " Features=(null) PartitionName=(null) Flags=MAINT,IGNORE_JOBS,SPEC_NODES",
                "   TRES=cpu=" + cpus,
                "   Users=admin Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE BurstBuffer=(null) Watts=n/a",
                "   MaxStartDelay=(null)",
                "");
        // -o: one line each, in the order they were created
        assertThat(lines.get(6)).startsWith("ReservationName=maint ").contains(" State=INACTIVE ");
        assertThat(lines.get(7)).startsWith("ReservationName=now ").contains(" Duration=1-01:00:00 ",
                " Nodes=" + chosen + " NodeCnt=1 CoreCnt=" + chosenCpus + " ", " PartitionName=gpu Flags=IGNORE_JOBS ",
                " Users=admin Groups=(null) Accounts=root ", " State=ACTIVE ").endsWith(" MaxStartDelay=(null)");
        assertThat(lines.subList(8, lines.size())).containsExactly("Reservation nosuch not found", "rc 1");
        api.send("DELETE", "/api/v1/reservations/maint", token, null);
        api.send("DELETE", "/api/v1/reservations/now", token, null);
    }

    @Test
    void anUnknownWordPrintsTheUsageInsteadOfStartingAController() throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ControllerProcess.JAR.toAbsolutePath().toString(), "frobnicate").redirectErrorStream(true).start();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("it exits instead of serving").isTrue();
        String said = new String(process.getInputStream().readAllBytes());
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(said).startsWith("gantry: unknown command 'frobnicate'\nusage: java -jar gantry.jar")
                .contains("cli install --prefix DIR");
    }

    private static String value(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow().substring(prefix.length());
    }
}
