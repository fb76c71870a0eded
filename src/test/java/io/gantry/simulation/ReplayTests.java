package io.gantry.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.engine.Hostlist;
import io.gantry.engine.Policy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ReplayTests {

    private static final Path KTH = Path.of("/work/shared/traces/KTH-SP2-1996-2.1-cln.swf.gz");

    /** A slice of KTH-SP2 when the shared traces are there, else a synthetic trace of the same kind. */
    private static List<SwfJob> slice() throws IOException {
        if (Files.isReadable(KTH)) {
            return SwfReader.read(KTH, 800).jobs();
        }
        StringBuilder sb = new StringBuilder("; synthetic\n");
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        long t = 0;
        for (int i = 1; i <= 800; i++) {
            t += r.nextInt(600);
            long run = 1 + r.nextInt(20_000);
            sb.append(i).append(' ').append(t).append(" -1 ").append(run).append(' ').append(1 + r.nextInt(64))
                    .append(" -1 -1 -1 ").append(run + r.nextInt(20_000)).append(" -1 1 ").append(r.nextInt(30))
                    .append(" -1 -1 -1 -1 -1 -1\n");
        }
        return SwfReader.read(new ByteArrayInputStream(sb.toString().getBytes(StandardCharsets.US_ASCII)), 0).jobs();
    }

    @ParameterizedTest(name = "policy {0}")
    @ValueSource(strings = {"fifo", "easy", "default", "easy:predict=1", "default:predict=2,depth=0,adaptive=1",
        "default:slowdown=100"})
    void a_replayed_schedule_starts_nothing_early_runs_each_job_its_time_and_never_exceeds_capacity(String policy)
            throws IOException {
        List<SwfJob> trace = slice();
        Replay.Result result = new Replay(100, 1, 0, Policy.named(policy)).run(trace);
        Map<Long, SwfJob> byId = new HashMap<>();
        trace.forEach(j -> byId.put(j.id(), j));

        assertThat(result.schedule()).hasSize(trace.size() - result.neverFit());
        TreeMap<Long, Long> delta = new TreeMap<>();
        Map<String, List<long[]>> perNode = new HashMap<>();
        for (Replay.Scheduled s : result.schedule()) {
            SwfJob j = byId.get(s.id());
            assertThat(s.start()).as("job %d starts after its submit", s.id()).isGreaterThanOrEqualTo(j.submit());
            assertThat(s.end() - s.start()).as("job %d runs its run time", s.id()).isEqualTo(j.runTime());
            assertThat(s.nodes()).hasSize(j.procs()).doesNotHaveDuplicates();
            delta.merge(s.start(), (long) j.procs(), Long::sum);
            delta.merge(s.end(), (long) -j.procs(), Long::sum);
            for (String n : s.nodes()) {
                perNode.computeIfAbsent(n, k -> new java.util.ArrayList<>()).add(new long[] {s.start(), s.end()});
            }
        }
        long busy = 0;
        for (long d : delta.values()) {
            busy += d;
            assertThat(busy).isBetween(0L, 100L);
        }
        // One CPU per node: the jobs on a node never overlap.
        perNode.values().forEach(spans -> {
            spans.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int k = 1; k < spans.size(); k++) {
                assertThat(spans.get(k)[0]).isGreaterThanOrEqualTo(spans.get(k - 1)[1]);
            }
        });
    }

    @Test
    void easy_never_waits_longer_on_average_than_fifo() throws IOException {
        List<SwfJob> trace = slice();
        Figures fifo = Figures.of(new Replay(100, 1, 0, Policy.fifo()).run(trace).schedule(), 100);
        Figures easy = Figures.of(new Replay(100, 1, 0, Policy.easy()).run(trace).schedule(), 100);
        assertThat(easy.meanWait()).isLessThanOrEqualTo(fifo.meanWait());
    }

    @Test
    void swf_records_with_no_run_time_or_processors_are_skipped_and_short_requests_raised() throws IOException {
        String swf = """
                ; a comment
                1 0 -1 100 4 -1 -1 8 50 -1 1 3 -1 -1 -1 -1 -1 -1
                2 5 -1 0 4 -1 -1 4 50 -1 1 3 -1 -1 -1 -1 -1 -1
                3 6 -1 10 -1 -1 -1 -1 -1 -1 1 3 -1 -1 -1 -1 -1 -1
                4 7 -1 10 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1
                """;
        SwfReader.Trace t = SwfReader.read(new ByteArrayInputStream(swf.getBytes(StandardCharsets.US_ASCII)), 0);
        assertThat(t.skipped()).isEqualTo(2);
        assertThat(t.jobs()).containsExactly(new SwfJob(1, 0, 100, 8, 100, 3), new SwfJob(4, 7, 10, 2, 10, -1));
    }

    @Test
    void simulate_writes_the_schedule_and_one_line_of_figures(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("tiny");
        Files.writeString(trace, """
                1 0 -1 100 2 -1 -1 2 200 -1 1 1 -1 -1 -1 -1 -1 -1
                2 10 -1 50 1 -1 -1 1 60 -1 1 2 -1 -1 -1 -1 -1 -1
                3 20 -1 30 4 -1 -1 4 30 -1 1 2 -1 -1 -1 -1 -1 -1
                """);
        Path out = dir.resolve("schedule.csv");
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        int code = SimulateCommand.run(new String[] {"--trace", trace.toString(), "--nodes", "4", "--cpus-per-node", "1",
                "--policy", "easy", "--out", out.toString()}, new PrintStream(stdout), new PrintStream(
                new ByteArrayOutputStream()));
        assertThat(code).isZero();
        assertThat(stdout.toString().trim()).matches("jobs=3 mean_wait_s=\\S+ mean_bsld=\\S+ utilization=\\S+ "
                + "cycles=\\d+ mean_cycle_ms=\\S+ max_cycle_ms=\\S+ wall_s=\\S+");
        List<String> lines = Files.readAllLines(out);
        assertThat(lines.get(0)).isEqualTo("job_id,submit,start,end,procs,nodes");
        assertThat(lines).hasSize(4);
        // Job 3 needs all four nodes: it waits for job 1 (ends at 100).
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("3,20,100,130,4,"));
        String nodes = lines.stream().filter(l -> l.startsWith("3,")).findFirst().orElseThrow().split(",", 6)[5];
        assertThat(Hostlist.parse(nodes.replace("\"", "")).size()).isEqualTo(4);
    }

    @Test
    void simulate_rejects_an_unknown_option_with_usage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = SimulateCommand.run(new String[] {"--bogus", "1"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("unknown option --bogus").contains("usage:");
    }
}
