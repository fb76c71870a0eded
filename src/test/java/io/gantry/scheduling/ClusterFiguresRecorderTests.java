package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.gantry.engine.Node;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.Hold;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobState;
import io.gantry.metrics.ClusterFigures;

/**
 * The figures {@code /metrics} shows, counted from the scheduler's live jobs and the nodes it plans
 * with: node states as sinfo says them, a partition's GPUs held, free and down, and each account's
 * and user's jobs.
 */
class ClusterFiguresRecorderTests {

    private static final List<Node> NODES = List.of(node("g1", NodeState.UP), node("g2", NodeState.UP),
            node("g3", NodeState.DRAIN), node("g4", NodeState.DOWN), node("g5", NodeState.DRAIN));
    private static final List<Partition> PARTITIONS = List.of(
            new Partition("gpu", List.of("g1", "g2", "g3", "g4", "g5"), 0, 1, true),
            new Partition("debug", List.of("g2"), 0, 1, true));
    private static final ClusterFigures.Scheduler SCHEDULER = new ClusterFigures.Scheduler(1, 2, 3, 4, 5, 6, 7);

    private static Node node(String name, NodeState state) {
        return new Node(name, 8, 64000, 4, "a100", Set.of(), state, null, null, List.of(), 0);
    }

    private static LiveJobs.Entry job(long id, JobState state, String user, String account, String partition,
            Hold hold, String reason, List<JobAllocation> allocation) {
        ActiveJob job = new ActiveJob(id, 1, id, -1, "j" + id, user, account, "normal", List.of(partition), state, hold,
                Instant.EPOCH, null, 600, 0, 1, 1, 1, 0, 0, 0, null, null, false, null, null,
                state == JobState.PENDING ? null : partition, state == JobState.PENDING ? null : Instant.EPOCH,
                allocation, false, null, null, reason, 0, null, null, null, null, null, null, null, null, null, null, null, null);
        return new LiveJobs.Entry(job);
    }

    @Test
    void nodesPartitionsAccountsAndUsersAreCountedFromTheLiveJobs() {
        List<LiveJobs.Entry> jobs = List.of(
                // g1 full on GPUs (alloc), g2 partly used (mixed), g3 draining with a job on it.
                job(1, JobState.RUNNING, "alice", "physics", "gpu", Hold.NONE, null,
                        List.of(new JobAllocation("g1", 2, 1000, List.of(0, 1, 2, 3)))),
                job(2, JobState.RUNNING, "bob", "chem", "debug", Hold.NONE, null,
                        List.of(new JobAllocation("g2", 1, 1000, List.of(0)))),
                job(3, JobState.COMPLETING, "alice", "physics", "gpu", Hold.NONE, null,
                        List.of(new JobAllocation("g3", 1, 1000, List.of(2)))),
                job(4, JobState.PENDING, "alice", "physics", "gpu", Hold.NONE, "Resources", List.of()),
                job(5, JobState.PENDING, "carol", "chem", "gpu", Hold.USER, "JobHeldUser", List.of()),
                job(6, JobState.SUSPENDED, "bob", "chem", "gpu", Hold.NONE, null, List.of()));
        ClusterFigures f = ClusterFiguresRecorder.figures(jobs, NODES, PARTITIONS, SCHEDULER);

        assertThat(f.leader()).isTrue();
        assertThat(f.nodesByState()).containsOnly(Map.entry("alloc", 1), Map.entry("mixed", 1),
                Map.entry("draining", 1), Map.entry("down", 1), Map.entry("drained", 1));
        assertThat(f.jobs()).isEqualTo(new ClusterFigures.Jobs(2, 2, 1, 1, 1, 6));

        ClusterFigures.Partition gpu = f.partitions().get("gpu");
        assertThat(gpu.nodes()).isEqualTo(5);
        assertThat(gpu.gpus()).isEqualTo(20);
        // Held on its nodes by any job: 4 on g1, 1 on g2 (a debug job), 1 on g3.
        assertThat(gpu.gpusAllocated()).isEqualTo(6);
        // Free on usable nodes: none on g1, 3 on g2; the rest of g3, g4 and g5 are down.
        assertThat(gpu.gpusIdle()).isEqualTo(3);
        assertThat(gpu.gpusDown()).isEqualTo(3 + 4 + 4);
        assertThat(gpu.gpusAllocated() + gpu.gpusIdle() + gpu.gpusDown()).isEqualTo(gpu.gpus());
        // Its own jobs: job 1 runs in it (job 3 completes), jobs 4 and 5 wait for it.
        assertThat(gpu.jobsRunning()).isEqualTo(1);
        assertThat(gpu.jobsPending()).isEqualTo(2);
        assertThat(gpu.jobsGpusAllocated()).isEqualTo(5);
        assertThat(f.partitions().get("debug").jobsGpusAllocated()).isEqualTo(1);
        assertThat(f.partitions().get("debug").nodesByState()).containsOnly(Map.entry("mixed", 1));

        assertThat(f.accounts().get("physics")).isEqualTo(new ClusterFigures.Holder(1, 1, 5));
        assertThat(f.accounts().get("chem")).isEqualTo(new ClusterFigures.Holder(1, 1, 1));
        assertThat(f.users().get("alice")).isEqualTo(new ClusterFigures.Holder(1, 1, 5));
        assertThat(f.users().get("carol")).isEqualTo(new ClusterFigures.Holder(0, 1, 0));
        assertThat(f.pendingByReason()).containsOnly(Map.entry("Resources", 1), Map.entry("JobHeldUser", 1));
        assertThat(f.scheduler()).isEqualTo(SCHEDULER);
    }

    @Test
    void anEmptyClusterHasEveryNodeIdleAndEveryGpuFree() {
        ClusterFigures f = ClusterFiguresRecorder.figures(List.of(),
                List.of(node("g1", NodeState.UP), node("g2", NodeState.UP)),
                List.of(new Partition("gpu", List.of("g1", "g2"), 0, 1, true)), SCHEDULER);
        assertThat(f.nodesByState()).containsOnly(Map.entry("idle", 2));
        assertThat(f.partitions().get("gpu").gpusIdle()).isEqualTo(8);
        assertThat(f.accounts()).isEmpty();
    }
}
