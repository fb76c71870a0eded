package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class CliTests {

    @TempDir
    Path dir;

    /** Records what was posted and answers like the controller's submit and token endpoints. */
    private static class Recording implements ControllerApi {
        final List<JsonNode> posted = new ArrayList<>();

        @Override
        public JsonNode get(String path) {
            return null;
        }

        @Override
        public JsonNode post(String path, Object body) {
            JsonNode json = HttpControllerApi.JSON.valueToTree(body);
            posted.add(json);
            ObjectNode answer = HttpControllerApi.JSON.createObjectNode();
            if (path.equals("/api/v1/auth/tokens")) {
                if (!json.path("password").asString().equals("secret")) {
                    throw new ApiException(401, "Bad credentials");
                }
                answer.put("token", "the-token");
                answer.put("expiresAt", "2026-12-04T00:00:00Z");
            } else {
                answer.put("jobId", 42);
            }
            return answer;
        }

        @Override
        public JsonNode patch(String path, Object body) {
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

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private CliEnvironment env(Map<String, String> variables, String stdin, ControllerApi api) {
        return new CliEnvironment(variables, dir, dir, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, () -> api);
    }

    @Test
    void commandLineOptionsBecomeDirectivesAfterTheScriptsOwnSoTheyWin() throws Exception {
        Files.writeString(dir.resolve("job.sh"), "#!/bin/bash\n#SBATCH -J from-script\n#SBATCH -t 5\n\necho hi\n");
        Recording api = new Recording();
        int exit = Cli.run(env(Map.of(), "", api), "sbatch", List.of("-t", "10:00", "--comment", "two words", "job.sh"));
        assertThat(exit).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("Submitted batch job 42\n");
        assertThat(api.posted.get(0).path("script").asString()).isEqualTo("""
                #!/bin/bash
                #SBATCH -J from-script
                #SBATCH -t 5

                # Options given on sbatch's command line:
                #SBATCH --time=10:00
                #SBATCH --comment="two words"
                echo hi
                """);
        assertThat(api.posted.get(0).path("workdir").asString()).isEqualTo(dir.toString());
    }

    @Test
    void pyxisContainerOptionsOnTheCommandLineReachTheControllerAsDirectives() throws Exception {
        Files.writeString(dir.resolve("job.sh"), "#!/bin/bash\n#SBATCH --container-image=ubuntu:22.04\necho hi\n");
        Recording api = new Recording();
        int exit = Cli.run(env(Map.of(), "", api), "sbatch", List.of("--container-image=nvcr.io#nvidia/pytorch:24.05-py3",
                "--container-mounts", "/data:/data:ro", "--no-container-mount-home", "--container-remap-root",
                "--container=/srv/bundle", "job.sh"));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        String script = api.posted.get(0).path("script").asString();
        assertThat(script).contains("""
                # Options given on sbatch's command line:
                #SBATCH --container-image="nvcr.io#nvidia/pytorch:24.05-py3"
                #SBATCH --container-mounts=/data:/data:ro
                #SBATCH --no-container-mount-home
                #SBATCH --container-remap-root
                #SBATCH --container=/srv/bundle
                """);
        // the controller reads them with the script's own, the command line's last
        io.gantry.noded.protocol.ContainerSpec c = io.gantry.jobs.SbatchDirectives.parse(script).container();
        assertThat(c.image()).isEqualTo("nvcr.io#nvidia/pytorch:24.05-py3");
        assertThat(c.mounts()).containsExactly("/data:/data:ro");
        assertThat(c.mountHome()).isFalse();
        assertThat(c.remapRoot()).isTrue();
        assertThat(c.bundle()).isEqualTo("/srv/bundle");
    }

    @Test
    void pyxisVariablesInSbatchsEnvironmentGiveWhatNoOptionGave() throws Exception {
        Files.writeString(dir.resolve("job.sh"), "#!/bin/bash\n#SBATCH --container-workdir=/w\necho hi\n");
        Recording api = new Recording();
        int exit = Cli.run(env(Map.of("PYXIS_CONTAINER_IMAGE", "ubuntu:22.04", "PYXIS_CONTAINER_WORKDIR", "/env"), "",
                api), "sbatch", List.of("--container-remap-root", "job.sh"));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode container = api.posted.get(0).path("container");
        assertThat(container.path("image").asString()).isEqualTo("ubuntu:22.04");
        assertThat(container.path("workdir").asString()).as("the script's directive wins").isEqualTo("/w");
        assertThat(container.path("remapRoot").asBoolean()).isTrue();

        Recording without = new Recording();
        assertThat(Cli.run(env(Map.of(), "", without), "sbatch", List.of("job.sh"))).isZero();
        assertThat(without.posted.get(0).has("container")).as("the directives speak for themselves").isFalse();
    }

    @Test
    void aRelativeChdirIsSentResolvedAgainstWhereSbatchRuns() throws Exception {
        // The controller refuses a relative workdir: it means nothing on the job's node.
        Files.writeString(dir.resolve("job.sh"), "#!/bin/bash\n#SBATCH -D ../from-script\necho hi\n");
        Recording api = new Recording();
        assertThat(Cli.run(env(Map.of(), "", api), "sbatch", List.of("job.sh"))).isZero();
        assertThat(api.posted.get(0).path("workdir").asString())
                .isEqualTo(dir.resolve("../from-script").normalize().toString());

        Recording line = new Recording();
        assertThat(Cli.run(env(Map.of(), "", line), "sbatch", List.of("-D", "out/here", "job.sh"))).isZero();
        assertThat(line.posted.get(0).path("workdir").asString()).isEqualTo(dir.resolve("out/here").toString());

        Files.writeString(dir.resolve("abs.sh"), "#!/bin/bash\n#SBATCH --chdir=/scratch/run\necho hi\n");
        Recording absolute = new Recording();
        assertThat(Cli.run(env(Map.of(), "", absolute), "sbatch", List.of("abs.sh"))).isZero();
        assertThat(absolute.posted.get(0).has("workdir")).as("the directive says it").isFalse();
    }

    /** Answers the submit with job 42, then each read of it with the next of {@code answers}. */
    private static final class Waiting extends Recording {
        final java.util.ArrayDeque<String> answers;
        final List<String> asked = new ArrayList<>();

        Waiting(String... answers) {
            this.answers = new java.util.ArrayDeque<>(List.of(answers));
        }

        @Override
        public JsonNode get(String path) {
            asked.add(path);
            if (path.startsWith("/api/v1/jobs?arrayJobId=42")) {
                String next = answers.size() > 1 ? answers.poll() : answers.peek();
                return HttpControllerApi.JSON.readTree(next);
            }
            return HttpControllerApi.JSON.readTree("{\"jobId\":\"42\",\"state\":\"CANCELLED\",\"exitCode\":null}");
        }
    }

    @Test
    void waitReturnsWhenEveryTaskEndedWithTheHighestExitCode() {
        Waiting api = new Waiting(
                "{\"items\":[{\"state\":\"RUNNING\"},{\"state\":\"PENDING\"}],\"total\":2}",
                "{\"items\":[{\"state\":\"FAILED\",\"exitCode\":3},{\"state\":\"COMPLETED\",\"exitCode\":0}],\"total\":2}");
        int exit = Cli.run(env(Map.of(), "", api), "sbatch", List.of("--wait", "-a", "0-1", "--wrap", "exit 3"));
        assertThat(exit).isEqualTo(3);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("Submitted batch job 42\n");
        assertThat(api.asked).hasSize(2);
    }

    @Test
    void waitOnACancelledJobExitsOneAsForASignal() {
        Waiting api = new Waiting("{\"items\":[],\"total\":0}");
        assertThat(Cli.run(env(Map.of(), "", api), "sbatch", List.of("-W", "--wrap", "sleep 100"))).isEqualTo(1);
        assertThat(api.asked).containsExactly("/api/v1/jobs?arrayJobId=42&size=1000&page=0", "/api/v1/jobs/42");
    }

    @Test
    void wrapMakesSbatchsScriptAndParsablePrintsTheIdAlone() {
        Recording api = new Recording();
        assertThat(Cli.run(env(Map.of(), "", api), "sbatch", List.of("--parsable", "--wrap", "hostname"))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("42\n");
        assertThat(api.posted.get(0).path("script").asString())
                .isEqualTo("#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname\n");
        assertThat(api.posted.get(0).path("name").asString()).isEqualTo("wrap");
    }

    @Test
    void exportAllNeverCarriesTheTokenOrTheJobCredentialIntoTheJob() throws Exception {
        Recording api = new Recording();
        Cli.run(env(Map.of("PATH", "/bin", "GANTRY_TOKEN", "t", "GANTRY_JOB_TOKEN", "j", "BASH_FUNC_x%%", "() {}"), "",
                api), "sbatch", List.of("--wrap", "true"));
        // SLURM_SUBMIT_HOST: sbatch's own host, which Slurm's sbatch passes whatever --export says
        assertThat(api.posted.get(0).path("environment").propertyNames()).containsExactly("PATH", "SLURM_SUBMIT_HOST");
        Cli.run(env(Map.of("PATH", "/bin", "HOME", "/h"), "", api), "sbatch", List.of("--export=HOME,A=1", "--wrap", "true"));
        String host = java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        assertThat(api.posted.get(1).path("environment").toString())
                .isEqualTo("{\"A\":\"1\",\"HOME\":\"/h\",\"SLURM_SUBMIT_HOST\":\"" + host + "\"}");
    }

    @Test
    void loginKeepsTheTokenWhereOnlyItsOwnerCanReadIt() throws Exception {
        Recording api = new Recording();
        int exit = Cli.run(env(Map.of(), "secret\n", api), "login", List.of("--user", "alice", "--password-stdin"));
        assertThat(exit).isZero();
        Path token = dir.resolve(".config/gantry/token");
        assertThat(Files.readString(token)).isEqualTo("the-token\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token.getParent()))).isEqualTo("rwx------");
        assertThat(env(Map.of(), "", api).token()).isEqualTo("the-token");
        assertThat(env(Map.of("GANTRY_JOB_TOKEN", "job"), "", api).token()).isEqualTo("job");
        assertThat(env(Map.of("GANTRY_TOKEN", "env", "GANTRY_JOB_TOKEN", "job"), "", api).token()).isEqualTo("env");
    }

    /** Issue 28: a ~/.config/gantry made before (mkdir under umask 022) stayed 0755 after login. */
    @Test
    void loginClosesAConfigDirectoryAndTokenFileThatOthersCouldRead() throws Exception {
        Path config = Files.createDirectories(dir.resolve(".config/gantry"));
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path token = Files.writeString(config.resolve("token"), "an-old-token\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

        int exit = Cli.run(env(Map.of(), "secret\n", new Recording()), "login", List.of("--user", "alice",
                "--password-stdin", "--url", "http://controller:8080"));

        assertThat(exit).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config.resolve("config"))))
                .isEqualTo("rw-------");
        assertThat(Files.readString(token)).isEqualTo("the-token\n");
    }

    /** A link planted where the token goes is not followed: the token never lands in another file. */
    @Test
    void loginDoesNotWriteTheTokenThroughALink() throws Exception {
        Path config = Files.createDirectories(dir.resolve(".config/gantry"));
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "");
        Files.createSymbolicLink(config.resolve("token"), elsewhere);

        int exit = Cli.run(env(Map.of(), "secret\n", new Recording()), "login", List.of("--user", "alice",
                "--password-stdin"));

        assertThat(exit).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("symbolic link");
        assertThat(Files.readString(elsewhere)).isEmpty();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(elsewhere))).isNotEqualTo("rw-------");
    }

    @Test
    void aWrongPasswordStoresNothing() {
        int exit = Cli.run(env(Map.of(), "wrong\n", new Recording()), "login", List.of("--password-stdin"));
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("login: error: wrong user name or password\n");
        assertThat(dir.resolve(".config/gantry/token")).doesNotExist();
    }

    @Test
    void installWritesALauncherPerCommandThatRunsThisJarWithItsSubcommand() throws Exception {
        Path jar = Files.writeString(dir.resolve("gantry.jar"), "not really a jar");
        int exit = Cli.run(env(Map.of(), "", new Recording()), "cli",
                List.of("install", "--prefix", "bin", "--jar", jar.toString(), "--java", "/opt/java/bin/java", "--no-cds"));
        assertThat(exit).isZero();
        for (String name : Cli.COMMANDS) {
            Path launcher = dir.resolve("bin").resolve(name);
            assertThat(launcher).isExecutable();
            assertThat(Files.readString(launcher)).endsWith("exec '/opt/java/bin/java' " + Install.JVM_OPTIONS + " -jar '"
                    + jar + "' " + name + " \"$@\"\n");
        }
    }

    @Test
    void withoutAControllerTheCommandSaysSoInOneLine() {
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC(), ZoneOffset.UTC, () -> {
                    throw new ControllerApi.Unreachable("no controller: set GANTRY_URL");
                });
        assertThat(Cli.run(env, "squeue", List.of())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("squeue: error: no controller: set GANTRY_URL\n");
    }

    /** Answers GET /api/v1/accounting/jobs with one finished job and one that ended by signal 9. */
    private static final class Accounting extends ControllerApiStub {
        final List<String> asked = new ArrayList<>();

        @Override
        public JsonNode get(String path) {
            asked.add(path);
            return HttpControllerApi.JSON.readTree("""
                    {"items":[{"jobId":"42","name":"wrap","user":"alice","account":"physics","partition":"gpu",
                    "state":"COMPLETED","exitCode":0,"elapsedSeconds":3725,"allocTres":"cpu=4,mem=16G,node=1",
                    "nodeList":"gpu001"},
                    {"jobId":"43_7","name":"a-very-long-name","user":"alice","account":"physics","partition":"gpu",
                    "state":"FAILED","exitCode":137,"elapsedSeconds":5,"allocTres":"cpu=1,mem=1G,node=1",
                    "nodeList":"gpu002"}],"page":0,"size":1000,"total":2}
                    """);
        }
    }

    private abstract static class ControllerApiStub implements ControllerApi {
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

    /** Answers the partitions and nodes of a cluster with a scavenger partition that is cancelled for higher tiers. */
    private static final class Tiers extends ControllerApiStub {
        private static final String SCAVENGER = """
                {"name":"scavenger","nodes":"cpu001","totalNodes":1,"totalCpus":64,"totalGpus":0,"state":"UP",
                 "isDefault":false,"defaultTimeSeconds":null,"maxTimeSeconds":null,"priorityTier":0,
                 "preemptMode":"CANCEL"}""";

        @Override
        public JsonNode get(String path) {
            if (path.startsWith("/api/v1/partitions/")) {
                return HttpControllerApi.JSON.readTree(SCAVENGER);
            }
            if (path.startsWith("/api/v1/partitions")) {
                return HttpControllerApi.JSON.readTree("{\"items\":[" + SCAVENGER + "],\"page\":0,\"size\":1000,\"total\":1}");
            }
            return HttpControllerApi.JSON.readTree("""
                    {"items":[{"name":"cpu001","state":"IDLE","cpus":64,"memoryMb":256000,"gpus":0,"features":[],
                    "allocCpus":0,"allocMemoryMb":0,"allocGpus":0,"partitions":["scavenger"]}],"page":0,"size":1000,
                    "total":1}""");
        }
    }

    @Test
    void aPartitionsPreemptModeIsShownByScontrolAndSinfo() {
        assertThat(Cli.run(env(Map.of(), "", new Tiers()), "scontrol", List.of("show", "partition", "scavenger")))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("   OverTimeLimit=NONE PreemptMode=CANCEL\n");
        out.reset();
        assertThat(Cli.run(env(Map.of(), "", new Tiers()), "sinfo", List.of("-o", "%P %p %M"))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("PARTITION PRIO_TIER PREEMPT_MODE\nscavenger 0 CANCEL\n");
        out.reset();
        assertThat(Cli.run(env(Map.of(), "", new Tiers()), "sinfo", List.of("-O", "partition:10,preemptmode:8")))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("PARTITION PREEMPT_\nscavenger CANCEL  \n");
    }

    @Test
    void sacctPrintsWhatWorkflowEnginesParse() {
        Accounting api = new Accounting();
        assertThat(Cli.run(env(Map.of(), "", api), "sacct", List.of("-X", "-P", "-n", "-j", "42,43_7", "-o",
                "JobIDRaw,State,ExitCode,Elapsed,NodeList"))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(
                "42|COMPLETED|0:0|01:02:05|gpu001\n43_7|FAILED|0:9|00:00:05|gpu002\n");
        assertThat(api.asked.get(0)).contains("jobId=42%2C43_7").contains("includeSteps=false").doesNotContain("start=");
    }

    @Test
    void sacctsDefaultLayoutHasFixedColumnsAndMarksCutValues() {
        assertThat(Cli.run(env(Map.of(), "", new Accounting()), "sacct", List.of("-j", "42"))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("""
                JobID           JobName  Partition    Account  AllocCPUS      State ExitCode\s
                ------------ ---------- ---------- ---------- ---------- ---------- --------\s
                42                 wrap        gpu    physics          4  COMPLETED      0:0\s
                43_7         a-very-lo+        gpu    physics          1     FAILED      0:9\s
                """);
    }

    @Test
    void hostlistsExpandAndCompressAsScontrolDoes() {
        assertThat(SlurmText.expand("ref[1-3],vm,gpu[08-10]")).containsExactly("ref1", "ref2", "ref3", "vm", "gpu08",
                "gpu09", "gpu10");
        assertThat(SlurmText.compress(List.of("ref1", "ref2", "ref3", "gpu08", "gpu09", "n5"))).isEqualTo(
                "ref[1-3],gpu[08-09],n5");
        assertThat(Scancel.expandIds("7_[1-3,5],8")).containsExactly("7_1", "7_2", "7_3", "7_5", "8");
    }

    /** Answers {@code POST /jobs/{id}/signal} and {@code POST /jobs/test} like the controller, recording each call. */
    private static final class Signalling extends Recording {
        final List<String> paths = new ArrayList<>();

        @Override
        public JsonNode get(String path) {
            // 42 runs, 43 is pending (the step relay knows only running jobs), 44 does not exist
            return path.equals("/api/v1/jobs/42") || path.equals("/api/v1/jobs/43")
                    ? HttpControllerApi.JSON.createObjectNode().put("jobId", path.substring(13)) : null;
        }

        @Override
        public JsonNode delete(String path) {
            paths.add("DELETE " + path);
            return HttpControllerApi.JSON.createObjectNode();
        }

        @Override
        public JsonNode post(String path, Object body) {
            paths.add(path);
            if (path.matches("/api/v1/jobs/4[34]/steps/.*")) {
                throw new ApiException(404, "Job '" + path.substring(13, 15) + "' does not exist");
            }
            if (path.startsWith("/api/v1/jobs/42/steps/7/")) {
                throw new ApiException(404, "Running step '42.7' does not exist");
            }
            if (path.startsWith("/api/v1/jobs/42/steps/")) {
                // step 1 runs on n1; step 2 has ended, so nothing is signalled
                String step = path.substring(22, path.indexOf('/', 22));
                return HttpControllerApi.JSON.readTree("{\"step\":\"42." + step + "\",\"signal\":\"KILL\",\"nodes\":"
                        + (step.equals("1") ? "[\"n1\"]" : "[]") + "}");
            }
            if (path.startsWith("/api/v1/jobs/43/")) {
                throw new ApiException(409, "Job 43 is PENDING: only a running job can be signalled; cancel it instead");
            }
            if (path.startsWith("/api/v1/jobs/44/")) {
                throw new ApiException(404, "Job '44' does not exist");
            }
            if (path.startsWith("/api/v1/jobs/45/")) {
                throw new ApiException(409, "Job 45 is COMPLETED: only a running job can be signalled");
            }
            if (path.equals("/api/v1/jobs/test")) {
                posted.add(HttpControllerApi.JSON.valueToTree(body));
                if (HttpControllerApi.JSON.valueToTree(body).path("script").asString().contains("--partition=nope")) {
                    throw new ApiException(400, "partition: unknown partition 'nope'; known: cpu, gpu");
                }
                if (HttpControllerApi.JSON.valueToTree(body).path("script").asString().contains("--partition=long")) {
                    return HttpControllerApi.JSON.readTree("{\"jobId\":0,\"startTime\":\"2026-12-24T09:00:00Z\","
                            + "\"processors\":2,\"nodes\":null,\"partition\":\"long\",\"reason\":null,"
                            + "\"warnings\":[\"the start time is rough\"]}");
                }
                return HttpControllerApi.JSON.readTree("{\"jobId\":0,\"startTime\":\"2026-12-03T22:30:00Z\","
                        + "\"processors\":4,\"nodes\":\"n1\",\"partition\":\"gpu\",\"reason\":null,"
                        + "\"warnings\":[\"--mail-type is accepted but not acted on\"]}");
            }
            return HttpControllerApi.JSON.readTree("{\"jobs\":[\"42\"],\"signal\":\"USR1\"}");
        }
    }

    @Test
    void scancelSignalGoesToTheStepsAloneUnlessBatchOrFullSaysOtherwise() {
        Signalling api = new Signalling();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-s", "USR1", "42"))).isZero();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("--signal=sigusr2", "-b", "42_7"))).isZero();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-f", "-b", "--signal", "10", "42"))).isZero();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("--full", "-s", "TERM", "42_[1-2]"))).isZero();
        assertThat(api.paths).containsExactly(
                "/api/v1/jobs/42/signal?signal=USR1&stepsOnly=true",
                "/api/v1/jobs/42_7/signal?signal=USR2&batch=true",
                "/api/v1/jobs/42/signal?signal=USR1",
                "/api/v1/jobs/42_1/signal?signal=TERM",
                "/api/v1/jobs/42_2/signal?signal=TERM");
        assertThat(out.toString(StandardCharsets.UTF_8)).as("silent on success, as scancel is").isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void scancelSignalSaysWhatSlurmSaysForABadSignalOrAJobThatDoesNotRun() {
        Signalling api = new Signalling();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("--signal=FOO", "42"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("Unknown job signal: FOO\n");
        assertThat(api.paths).as("nothing is sent").isEmpty();
        err.reset();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-s", "USR1", "-f", "43", "44", "45", "42")))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                scancel: error: Kill job error on job id 43: Job can not be altered now, try again later
                scancel: error: Kill job error on job id 44: Invalid job id specified
                scancel: error: Kill job error on job id 45: Job/step already completing or completed
                """);
        assertThat(api.paths).as("the running one is still signalled").endsWith("/api/v1/jobs/42/signal?signal=USR1");
    }

    @Test
    void scancelOfAStepSignalsItThroughTheStepRelayAndWithoutSignalKillsItAlone() {
        Signalling api = new Signalling();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("--signal=USR1", "42.1"))).isZero();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-s", "2", "42.1"))).isZero();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("42.1"))).isZero();
        assertThat(api.paths).as("the job itself is not cancelled").containsExactly(
                "/api/v1/jobs/42/steps/1/signal?signal=USR1",
                "/api/v1/jobs/42/steps/1/signal?signal=INT",
                "/api/v1/jobs/42/steps/1/signal?signal=KILL");
        assertThat(out.toString(StandardCharsets.UTF_8)).as("silent on success, as scancel is").isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void scancelOfAStepThatIsNotThereAnswersAsSlurm2205Does() {
        Signalling api = new Signalling();
        // a running job without that step (or whose step ended): the job alone is named, exit 225
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("42.7"))).isEqualTo(225);
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("42.2"))).isEqualTo(225);
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("43.1"))).isEqualTo(225);
        // an unknown job: the step is named, exit 1
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("44.1"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                scancel: error: Kill job error on job step id 42: Invalid job id specified
                scancel: error: Kill job error on job step id 42: Invalid job id specified
                scancel: error: Kill job error on job step id 43: Invalid job id specified
                scancel: error: Kill job error on job step id 44.1: Invalid job id specified
                """);
        err.reset();
        // only a signal to a step that is not there: Slurm says nothing and exits 0; the job must exist
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("--signal=USR1", "42.7"))).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-s", "USR1", "44.2"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("scancel: error: Kill job error on job step id 44.2: Invalid job id specified\n");
        err.reset();
        int sent = api.paths.size();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("42.batch"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("scancel: error: Invalid job id 42.batch\n");
        assertThat(api.paths).as("nothing is sent").hasSize(sent);
    }

    @Test
    void scancelBatchWithoutSignalKillsTheBatchShellAloneAndCancelsAPendingJob() {
        Signalling api = new Signalling();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-b", "42"))).isZero();
        assertThat(api.paths).containsExactly("/api/v1/jobs/42/signal?signal=KILL&batch=true");
        api.paths.clear();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("--batch", "43"))).isZero();
        assertThat(api.paths).as("a pending job has no shell: Slurm cancels it on SIGKILL").containsExactly(
                "/api/v1/jobs/43/signal?signal=KILL&batch=true", "DELETE /api/v1/jobs/43");
        api.paths.clear();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-b", "-f", "42"))).isZero();
        assertThat(api.paths).as("-f wins over -b: the whole job").containsExactly("DELETE /api/v1/jobs/42");
        api.paths.clear();
        assertThat(Cli.run(env(Map.of(), "", api), "scancel", List.of("-b", "44"))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("scancel: error: Kill job error on job id 44: Invalid job id specified\n");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void testOnlyPrintsSlurmsEstimateAndSubmitsNothing() {
        Signalling api = new Signalling();
        assertThat(Cli.run(env(Map.of(), "", api), "sbatch", List.of("--test-only", "-n", "4", "--wrap", "hostname")))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                sbatch: warning: --mail-type is accepted but not acted on
                sbatch: Job 0 to start at 2026-12-03T22:30:00 using 4 processors on nodes n1 in partition gpu
                """);
        assertThat(api.paths).containsExactly("/api/v1/jobs/test");
        assertThat(api.posted.get(0).path("script").asString()).contains("#SBATCH --ntasks=4");
        err.reset();
        assertThat(Cli.run(env(Map.of(), "", api), "sbatch", List.of("--test-only", "-p", "nope", "--wrap", "true")))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("allocation failure: Invalid partition name specified\n");
        err.reset();
        // A rough time (far down a long queue) names no nodes: Slurm's (null) for them.
        assertThat(Cli.run(env(Map.of(), "", api), "sbatch", List.of("--test-only", "-p", "long", "--wrap", "true")))
                .isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                sbatch: warning: the start time is rough
                sbatch: Job 0 to start at 2026-12-24T09:00:00 using 2 processors on nodes (null) in partition long
                """);
    }

    // --- sacctmgr, sshare, sprio, sreport over the recorded accounting state -------------------------

    private FakeAccounting accounting(String caller) throws Exception {
        FakeAccounting fake = FakeAccounting.load(Path.of(getClass().getResource("/cli/slurm-22.05-accounting").toURI()));
        fake.callAs(caller);
        return fake;
    }

    private int run(FakeAccounting api, String stdin, String command, String... args) {
        return Cli.run(env(Map.of(Sacctmgr.CLUSTER_ENV, "gantryacct"), stdin, api), command, List.of(args));
    }

    private String qosNames(FakeAccounting api) {
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "list", "qos", "format=name");
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void sacctmgrSetsTheTreesLimitsOnAnAccountAndShowAssocShowsThem() throws Exception {
        FakeAccounting api = accounting("root");
        int exit = run(api, "", "sacctmgr", "-i", "modify", "account", "chem", "set", "GrpJobs=6", "GrpSubmitJobs=20",
                "MaxTRESPerJob=gres/gpu=2", "MaxTRESPerNode=cpu=16", "MaxWall=2:00:00");
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "show", "assoc", "account=chem", "format=account,user,grpjobs,grpsubmit,"
                + "maxtres,maxtrespernode,maxwall");
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("chem||6|20|gres/gpu=2|cpu=16|02:00:00\n");
    }

    @Test
    void sacctmgrNamesTheEntitiesItKnowsWhenGivenAnotherAndExitsOne() throws Exception {
        int exit = run(accounting("root"), "", "sacctmgr", "show", "frobnicate");
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("No valid entity in list command\n")
                .contains("\"QOS\"", "\"User\"");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void aUserWhoIsNotAnAdminCannotAddAQosAndNothingIsAdded() throws Exception {
        FakeAccounting api = accounting("alice");
        int exit = run(api, "", "sacctmgr", "-i", "add", "qos", "gpu", "priority=20");
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(" Problem adding QOS: Access/permission denied\n");
        assertThat(qosNames(api)).doesNotContain("gpu");
    }

    @Test
    void aUserWhoIsNotAnAdminCannotModifyAQos() throws Exception {
        int exit = run(accounting("alice"), "", "sacctmgr", "-i", "modify", "qos", "short", "set", "priority=3");
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
                "sacctmgr: error: Your user doesn't have privilege to perform this action\n"
                        + " Error with request: Access/permission denied\n");
    }

    @Test
    void addingAUserToAnAccountThatDoesNotExistAddsNothing() throws Exception {
        int exit = run(accounting("root"), "", "sacctmgr", "-i", "add", "user", "alice", "account=nosuch");
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
                " This account 'nosuch' doesn't exist.\n        Contact your admin to add this account.\n");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(" Nothing new added.\n");
    }

    @Test
    void withoutImmediateAnUnansweredQuestionChangesNothing() throws Exception {
        FakeAccounting api = accounting("root");
        int exit = run(api, "", "sacctmgr", "add", "qos", "gpu");
        assertThat(exit).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).endsWith(
                "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): timeout\n Changes Discarded\n");
        assertThat(qosNames(api)).doesNotContain("gpu");
    }

    @Test
    void readonlyRefusesEveryChangeButStillLists() throws Exception {
        FakeAccounting api = accounting("root");
        assertThat(run(api, "", "sacctmgr", "-r", "-i", "add", "qos", "gpu")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("Can't run this command in readonly mode.\n");
        assertThat(qosNames(api)).doesNotContain("gpu").contains("normal");
    }

    @Test
    void aModifiedQosLimitIsWhatTheNextListingPrints() throws Exception {
        FakeAccounting api = accounting("root");
        assertThat(run(api, "", "sacctmgr", "-i", "modify", "qos", "where", "name=short", "set", "MaxWall=2-0",
                "MaxJobsPerUser=7")).isZero();
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "show", "qos", "short", "format=name,maxwall,maxjobspu");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("short|2-00:00:00|7\n");
    }

    @Test
    void aQosGraceTimeIsInSecondsAsSlurmsIs() throws Exception {
        FakeAccounting api = accounting("root");
        assertThat(run(api, "", "sacctmgr", "-i", "modify", "qos", "where", "name=short", "set", "GraceTime=120"))
                .isZero();
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "show", "qos", "short", "format=name,gracetime");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("short|00:02:00\n");
        assertThat(run(api, "", "sacctmgr", "-i", "modify", "qos", "where", "name=short", "set", "GraceTime=00:05:00"))
                .isZero();
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "show", "qos", "short", "format=name,gracetime");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("short|00:05:00\n");
    }

    @Test
    void aQosPreemptExemptTimeIsATimeWhoseBareNumberIsMinutesAsSlurmsIs() throws Exception {
        FakeAccounting api = accounting("root");
        assertThat(run(api, "", "sacctmgr", "-i", "modify", "qos", "where", "name=short", "set",
                "PreemptExemptTime=10")).isZero();
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "show", "qos", "short", "format=name,preemptexempttime");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("short|00:10:00\n");
        assertThat(run(api, "", "sacctmgr", "-i", "modify", "qos", "where", "name=short", "set",
                "PreemptExemptTime=00:00:30")).isZero();
        out.reset();
        run(api, "", "sacctmgr", "-n", "-P", "show", "qos", "short", "format=name,preemptexempttime");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("short|00:00:30\n");
    }

    @Test
    void anUnknownFieldOrTimeFormatIsRefusedWithSlurmsMessage() throws Exception {
        assertThat(run(accounting("root"), "", "sshare", "-o", "Account,Bogus")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("sshare: error: Invalid field requested: \"Bogus\"\n");
        err.reset();
        assertThat(run(accounting("root"), "", "sreport", "-t", "fortnights", "cluster", "utilization")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("unknown time format fortnights");
    }

    @Test
    void sshareCountsWhatRunningJobsStillHoldInTheirAssociationAndEveryAccountAbove() throws Exception {
        FakeAccounting api = accounting("root");
        // Started ten minutes before the clock (12:00) with a thirty-minute limit: twenty minutes left.
        api.addRunningJob("alice", "theory", 4, 1024, "2026-12-03T11:50:00Z", 1800);
        assertThat(run(api, "", "sshare", "-a", "-n", "-P", "-o", "Account,User,TRESRunMins")).isZero();
        String zero = "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0";
        String held = "cpu=80,mem=20480,energy=0,node=20,billing=80,fs/disk=0,vmem=0,pages=0";
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly("root||" + held,
                " root|root|" + zero, " chem||" + zero, "  chem|bob|" + zero, " physics||" + held,
                "  physics|alice|" + zero, "  theory||" + held, "   theory|alice|" + held);
    }
}
