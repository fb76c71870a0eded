package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** A job that names no memory gets its partition's default on each node, and the engine holds it. */
class MemoryDefaultTests {

    private static final long NOW = 1_000_000;
    private final Engine engine = new Engine();

    private Plan plan(MemoryDefault memoryDefault, List<PendingJob> pending) {
        List<Node> nodes = List.of(new Node("n1", 16, 64_000, 0, null, Set.of(), NodeState.UP, null, null));
        Partition p = new Partition("p", List.of("n1"), 0, 1, true, memoryDefault);
        return engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).pending(pending).build());
    }

    private static List<PendingJob> jobs(int count, Request request) {
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            jobs.add(new PendingJob(JobId.of(i), "alice", "root", "normal", List.of("p"), request, 3600, NOW - 10 + i,
                    NOW - 10 + i, 0, null));
        }
        return jobs;
    }

    private static long memoryOf(Plan plan, long job) {
        return plan.start(JobId.of(job)).orElseThrow().allocation().get(0).memoryMb();
    }

    @Test
    void aJobWithoutMemoryGetsTheDefaultPerCpuTimesItsCpusOnTheNode() {
        Plan plan = plan(MemoryDefault.perCpu(1000), jobs(1, Request.builder().tasks(2).cpusPerTask(3).build()));

        assertThat(memoryOf(plan, 1)).isEqualTo(6000);
    }

    @Test
    void aJobWithoutMemoryGetsTheDefaultPerNode() {
        Plan plan = plan(MemoryDefault.perNode(5000), jobs(1, Request.builder().tasks(4).build()));

        assertThat(memoryOf(plan, 1)).isEqualTo(5000);
    }

    @Test
    void withoutADefaultAJobWithoutMemoryGetsTheWholeNodeAndSharesItWithNoOne() {
        Plan plan = plan(MemoryDefault.WHOLE_NODE, jobs(2, Request.oneCpu()));

        assertThat(memoryOf(plan, 1)).isEqualTo(64_000);
        assertThat(plan.start(JobId.of(2))).isEmpty();
    }

    @Test
    void jobsSharingANodeFitByTheirDefaultMemory() {
        // 16 CPUs but 64,000 MB: at 20,000 MB per CPU only three one-CPU jobs fit.
        Plan plan = plan(MemoryDefault.perCpu(20_000), jobs(4, Request.oneCpu()));

        assertThat(plan.starts()).hasSize(3);
        assertThat(plan.start(JobId.of(4))).isEmpty();
    }

    @Test
    void memoryAskedForWinsOverTheDefault() {
        Plan plan = plan(MemoryDefault.perCpu(1000), jobs(1, Request.builder().memoryMb(300).build()));

        assertThat(memoryOf(plan, 1)).isEqualTo(300);
    }

    @Test
    void aDefaultThatCanNeverFitMakesTheJobInfeasible() {
        PendingJob job = jobs(1, Request.builder().tasks(16).build()).get(0);
        List<Node> nodes = List.of(new Node("n1", 16, 64_000, 0, null, Set.of(), NodeState.UP, null, null));
        Partition p = new Partition("p", List.of("n1"), 0, 1, true, MemoryDefault.perCpu(8000));
        Snapshot snapshot = Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).build();

        assertThat(engine.feasibility(snapshot, job).fits()).isFalse();
    }

    @Test
    void aDefaultIsPerCpuPerNodeOrTheWholeNodeNotSeveral() {
        assertThatIllegalArgumentException().isThrownBy(() -> new MemoryDefault(1000, 2000, false));
        assertThatIllegalArgumentException().isThrownBy(() -> new MemoryDefault(1000, 0, true));
    }
}
