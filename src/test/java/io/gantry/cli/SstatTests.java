package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.noded.protocol.StepStatProtocol;
import io.gantry.noded.protocol.StepStatProtocol.StepUsage;
import io.gantry.noded.protocol.StepStatProtocol.TaskUsage;
import io.gantry.steps.StepStats;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * sstat and scontrol show step against a recorded Slurm 22.05 session ({@code cli/sstat/sstat-22.05.txt}):
 * the controller is faked with the state Slurm had, and the step's usage goes through the controller's own
 * aggregation ({@link StepStats#aggregate}) from per-task readings that give Slurm's figures, so the
 * columns, units, ties and task ids are checked end to end from the agents' numbers.
 */
class SstatTests {

    /** Where Gantry deliberately differs: Slurm 22.05 reads J.batch as J.0 here (a bug). */
    private static final Set<String> DIFFERENT = Set.of("scontrol show step 1.batch");

    @TempDir
    Path dir;

    /** The controller as it would answer for job 1 of the recording. */
    private static final class Recorded implements ControllerApi {

        private final Map<String, JsonNode> answers = new LinkedHashMap<>();
        private final Set<String> forbidden;

        Recorded(Set<String> forbidden) {
            this.forbidden = forbidden;
            ObjectNode job = HttpControllerApi.JSON.createObjectNode();
            job.put("jobId", 1);
            job.put("id", "1");
            job.put("user", "root");
            job.put("partition", "debug");
            job.put("state", "RUNNING");
            job.put("memoryMb", 1024);
            answers.put("/api/v1/jobs/1", job);
            ObjectNode list = HttpControllerApi.JSON.createObjectNode();
            list.putArray("items").add(job);
            list.put("total", 1);
            answers.put("/api/v1/jobs?size=1000&page=0&state=RUNNING", list);
            ObjectNode steps = HttpControllerApi.JSON.createObjectNode();
            steps.putArray("items").add(step("batch", "batch", 1, 1)).add(step("0", "python3", 2, 1));
            answers.put("/api/v1/jobs/1/steps", steps);
            answers.put("/api/v1/jobs/1/steps/0/stat", HttpControllerApi.JSON.valueToTree(StepStats.aggregate("1.0",
                    "0", Map.of("sref1", new StepUsage("r", "1", 0, List.of(
                            new TaskUsage(0, 9378, 66039808, 66039808, 69398528, 69398528, 30, 8, 8, 1685840, 1699),
                            new TaskUsage(1, 9379, 66064384, 66064384, 69398528, 69398528, 20, 6, 6, 1685840, 1699)))),
                    List.of())));
            answers.put("/api/v1/jobs/1/steps/batch/stat", HttpControllerApi.JSON.valueToTree(StepStats.aggregate(
                    "1.batch", "batch", Map.of("sref1", new StepUsage("r", "1", StepStatProtocol.BATCH_STEP, List.of(
                            new TaskUsage(0, 9360, 10784768, 10784768, 224710656, 224710656, 0, 1, 1, 28209, 1079)))),
                    List.of())));
        }

        private static ObjectNode step(String stepId, String name, int tasks, int cpusPerTask) {
            ObjectNode step = HttpControllerApi.JSON.createObjectNode();
            step.put("stepId", stepId);
            step.put("id", "1." + stepId);
            step.put("name", name);
            step.put("nodelist", "sref1");
            step.put("nodes", 1);
            step.put("tasks", tasks);
            step.put("cpusPerTask", cpusPerTask);
            step.put("state", "RUNNING");
            step.put("startTime", "2026-12-04T23:35:37Z");
            return step;
        }

        @Override
        public JsonNode get(String path) {
            if (forbidden.contains(path)) {
                throw new ApiException(403, "Job 1 is root's: only its owner or an operator may read its steps' usage");
            }
            return answers.get(path);
        }

        @Override
        public JsonNode post(String path, Object body) {
            throw new UnsupportedOperationException(path);
        }

        @Override
        public JsonNode patch(String path, Object body) {
            throw new UnsupportedOperationException(path);
        }

        @Override
        public JsonNode delete(String path) {
            throw new UnsupportedOperationException(path);
        }

        @Override
        public String host() {
            return "controller";
        }
    }

    private record Case(String command, String output, int exit) {
    }

    private static List<Case> recorded() throws IOException {
        String text;
        try (InputStream in = SstatTests.class.getResourceAsStream("/cli/sstat/sstat-22.05.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> cases = new ArrayList<>();
        String command = null;
        StringBuilder output = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("# ") && command == null) {
                continue;
            }
            if (line.startsWith("$ ")) {
                command = line.substring(2);
                output.setLength(0);
            } else if (line.matches("\\[rc=\\d+]") && command != null) {
                cases.add(new Case(command, output.toString(), Integer.parseInt(line.replaceAll("\\D", ""))));
                command = null;
            } else if (command != null) {
                output.append(line).append('\n');
            }
        }
        return cases;
    }

    private record Run(int exit, String out, String err) {
    }

    private Run run(String commandLine, ControllerApi api) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliEnvironment env = new CliEnvironment(Map.of(), dir, dir, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.fixed(Instant.parse("2026-12-04T23:36:00Z"), ZoneOffset.UTC), ZoneOffset.UTC, () -> api);
        List<String> words = new ArrayList<>(List.of(commandLine.split(" ")));
        String command = words.remove(0);
        int exit = Cli.run(env, command, words);
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @TestFactory
    List<DynamicTest> printsWhatSlurmPrintedForTheSameSteps() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : recorded()) {
            if (DIFFERENT.contains(c.command())) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(c.command(), () -> {
                Run run = run(c.command(), new Recorded(Set.of()));
                // Gantry does not record srun's host and pid
                String expected = c.output().replaceAll("SrunHost:Pid=vm:\\d+", "SrunHost:Pid=(null):0");
                assertThat(run.out() + run.err()).isEqualTo(expected);
                assertThat(run.exit()).isEqualTo(c.exit());
            }));
        }
        assertThat(tests).hasSizeGreaterThan(15);
        return tests;
    }

    @Test
    void anotherUsersStepIsRefusedAsSlurmRefusesTheStepsLayout() {
        Run run = run("sstat -j 1 -o JobID,MaxRSS", new Recorded(Set.of("/api/v1/jobs/1/steps/0/stat")));
        assertThat(run.out()).isEqualTo("JobID            MaxRSS \n------------ ---------- \n");
        assertThat(run.err()).isEqualTo(
                "sstat: error: problem getting step_layout for StepId=1.0: Access/permission denied\n");
        assertThat(run.exit()).isZero();
    }

    @Test
    void aJobWithoutRunningStepsHasNoneToShowAsSlurmSaysIt() {
        Recorded ended = new Recorded(Set.of());
        ended.answers.get("/api/v1/jobs/1/steps").get("items").forEach(s -> ((ObjectNode) s).put("state", "COMPLETED"));
        // recorded from Slurm 22.05 for an ended (and a pending) job: scontrol show step 2
        Run step = run("scontrol show step 1", ended);
        assertThat(step.out()).isEqualTo("Job step 1. not found\n");
        assertThat(step.exit()).isEqualTo(1);
        Run stat = run("sstat -j 1 -n", ended);
        assertThat(stat.err()).isEqualTo("sstat: error: No steps running for job 1\n");
        assertThat(stat.exit()).isZero();
    }

    @Test
    void theBatchStepIsShownByItsName() {
        Run run = run("scontrol show step 1.batch", new Recorded(Set.of()));
        assertThat(run.out()).startsWith("StepId=1.batch UserId=0 StartTime=2026-12-04T23:35:37 TimeLimit=UNLIMITED\n"
                + "   State=RUNNING Partition=debug NodeList=sref1\n   Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)\n");
    }

    @Test
    void unitsConvertOnlyWhereNothingIsLost() {
        assertThat(Sstat.units(66064384, true)).isEqualTo("64516K");
        assertThat(Sstat.units(52428800, true)).isEqualTo("50M");
        assertThat(Sstat.units(1536, true)).isEqualTo("1.50K");
        assertThat(Sstat.units(1685840, true)).isEqualTo("1685840");
        assertThat(Sstat.units(66064384, false)).isEqualTo("66064384");
        assertThat(Sstat.time(3_725_000)).isEqualTo("01:02:05");
        assertThat(Sstat.time(90_061_000)).isEqualTo("1-01:01:01");
    }
}
