package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Slurm's partition QOS (issue 32): every job of a partition that names a QOS is held to that QOS's
 * limits as well as to its own QOS's; where both set the same limit the partition QOS's wins, unless the
 * job's QOS has OverPartQOS. Each limit counts what runs under the QOS that sets it.
 */
class PartitionQosTests {

    private static Qos gpusPerUser(String name, int gpus) {
        return new Qos(name, 0, 0, 0, Tres.parse("gres/gpu=" + gpus, Tres.UNLIMITED), null, null);
    }

    private static PendingReason reasonOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started")).reason();
    }

    private static EngineFixtures.Scenario gpuCluster() {
        return aCluster().nodes(2).gpusPerNode(8).partition("gpu", 0, 2, 0, 0).scenario()
                .qos(Qos.named("normal", 0)).qos(gpusPerUser("part", 2)).partitionQos("gpu", "part");
    }

    @Test
    void a_users_third_one_gpu_job_waits_for_the_partition_qos_while_their_own_qos_allows_more() {
        var one = aJob().partitions("gpu").gpus(1);
        var two = aJob().partitions("gpu").gpus(1);
        var three = aJob().partitions("gpu").gpus(1);
        var bobs = aJob().partitions("gpu").user("bob").gpus(1);
        var elsewhere = aJob().partitions("main").gpus(1);
        Plan plan = gpuCluster().with(one, two, three, bobs, elsewhere).plan();
        assertThat(plan.start(one.id())).isPresent();
        assertThat(plan.start(two.id())).isPresent();
        assertThat(reasonOf(plan, three)).isEqualTo(PendingReason.QOS_MAX_GRES_PER_USER).hasToString("QOSMaxGRESPerUser");
        assertThat(plan.start(bobs.id())).as("the limit is per user").isPresent();
        assertThat(plan.start(elsewhere.id())).as("a partition without the QOS is not held to it").isPresent();
    }

    @Test
    void where_both_set_a_limit_the_partition_qos_wins_even_when_looser_and_over_part_qos_turns_that_round() {
        var jobs = new ArrayList<EngineFixtures.JobBuilder>();
        for (int i = 0; i < 5; i++) {
            jobs.add(aJob().partitions("gpu").qos("mine").gpus(1));
        }
        var looser = EngineFixtures.aCluster().nodes(2).gpusPerNode(8).partition("gpu", 0, 2, 0, 0).scenario()
                .qos(gpusPerUser("mine", 1)).qos(gpusPerUser("part", 2)).partitionQos("gpu", "part")
                .with(jobs.toArray(EngineFixtures.JobBuilder[]::new)).plan();
        assertThat(looser.starts()).as("the partition QOS's 2 GPUs, not the job QOS's 1").hasSize(2);

        var over = EngineFixtures.aCluster().nodes(2).gpusPerNode(8).partition("gpu", 0, 2, 0, 0).scenario()
                .qos(gpusPerUser("mine", 4).withOverPartQos(true)).qos(gpusPerUser("part", 2))
                .partitionQos("gpu", "part").with(jobs.toArray(EngineFixtures.JobBuilder[]::new)).plan();
        assertThat(over.starts()).as("OverPartQOS: the job QOS's 4 GPUs win").hasSize(4);
        assertThat(reasonOf(over, jobs.get(4))).isEqualTo(PendingReason.QOS_MAX_GRES_PER_USER);
    }

    @Test
    void a_limit_only_the_job_qos_sets_still_holds_and_the_partition_qos_counts_every_users_jobs() {
        Qos oneJob = new Qos("mine", 0, 0, 1, null, null, null);
        Qos grp = new Qos("part", 0, 0, 0, null, null, Tres.parse("gres/gpu=3", Tres.UNLIMITED));
        var a1 = aJob().partitions("gpu").qos("mine").gpus(1);
        var a2 = aJob().partitions("gpu").qos("mine").gpus(1);
        var b1 = aJob().partitions("gpu").user("bob").gpus(2);
        var c1 = aJob().partitions("gpu").user("carol").gpus(1);
        Plan plan = aCluster().nodes(2).gpusPerNode(8).partition("gpu", 0, 2, 0, 0).scenario()
                .qos(Qos.named("normal", 0)).qos(oneJob).qos(grp).partitionQos("gpu", "part")
                .with(a1, a2, b1, c1).plan();
        assertThat(plan.start(a1.id())).isPresent();
        assertThat(reasonOf(plan, a2)).isEqualTo(PendingReason.QOS_MAX_JOBS_PER_USER_LIMIT);
        assertThat(plan.start(b1.id())).isPresent();
        assertThat(reasonOf(plan, c1)).as("alice's and bob's 3 GPUs fill the partition QOS's GrpTRES")
                .isEqualTo(PendingReason.QOS_GRP_GRES).hasToString("QOSGrpGRES");
    }

    @Test
    void running_jobs_of_the_partition_count_against_its_qos() {
        EngineFixtures.Scenario s = gpuCluster();
        s.running.add(new RunningJob(JobId.of(900), "alice", "physics", "normal", "gpu",
                List.of(new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of(0, 1))), s.now - 100, s.now + 3600));
        var more = aJob().partitions("gpu").gpus(1);
        var bobs = aJob().partitions("gpu").user("bob").gpus(2);
        Plan plan = s.with(more, bobs).plan();
        assertThat(reasonOf(plan, more)).isEqualTo(PendingReason.QOS_MAX_GRES_PER_USER);
        assertThat(plan.start(bobs.id())).isPresent();
    }

    @Test
    void a_job_of_two_partitions_held_back_in_one_by_its_qos_runs_in_the_other() {
        var one = aJob().partitions("gpu").gpus(2);
        var both = aJob().partitions("gpu", "main").gpus(1);
        Plan plan = gpuCluster().with(one, both).plan();
        assertThat(plan.start(one.id())).isPresent();
        assertThat(plan.start(both.id()).orElseThrow().partition()).isEqualTo("main");
    }

    @Test
    void per_job_limits_of_the_partition_qos_hold_the_job_and_make_it_infeasible() {
        Qos part = new Qos("part", 0, 1800, 0, null, Tres.parse("gres/gpu=1", Tres.UNLIMITED), null);
        var big = aJob().partitions("gpu").gpus(2).timeLimit(1800);
        var long_ = aJob().partitions("gpu").gpus(1).timeLimit(3600);
        var fine = aJob().partitions("gpu").gpus(1).timeLimit(1800);
        EngineFixtures.Scenario s = aCluster().nodes(2).gpusPerNode(8).partition("gpu", 0, 2, 0, 0).scenario()
                .qos(Qos.named("normal", 0)).qos(part).partitionQos("gpu", "part").with(big, long_, fine);
        Plan plan = s.plan();
        assertThat(reasonOf(plan, big)).isEqualTo(PendingReason.QOS_MAX_GRES_PER_JOB);
        assertThat(reasonOf(plan, long_)).isEqualTo(PendingReason.QOS_MAX_WALL_DURATION_PER_JOB_LIMIT);
        assertThat(plan.start(fine.id())).isPresent();
        Feasibility never = new Engine().feasibility(s.snapshot(), s.pending.get(0));
        assertThat(never.fits()).isFalse();
        assertThat(never.reason()).isEqualTo(PendingReason.QOS_MAX_GRES_PER_JOB);
        assertThat(never.message()).contains("QOS part");
    }

    @Test
    void without_over_part_qos_the_job_qos_keeps_only_the_limits_the_partition_qos_leaves_unset() {
        Qos own = new Qos("own", 0, 600, 3, Tres.parse("gres/gpu=4,cpu=8", Tres.UNLIMITED), null, null);
        Qos part = new Qos("part", 0, 0, 0, Tres.parse("gres/gpu=2", Tres.UNLIMITED), null, null);
        Qos[] held = Limits.heldTo(own, part);
        assertThat(held[0]).isSameAs(part);
        assertThat(held[1].maxTresPerUser()).isEqualTo(Tres.parse("cpu=8", Tres.UNLIMITED));
        assertThat(held[1].maxJobsPerUser()).isEqualTo(3);
        assertThat(held[1].maxWallSeconds()).isEqualTo(600);
        Qos[] over = Limits.heldTo(own.withOverPartQos(true), part);
        assertThat(over[0].name()).isEqualTo("own");
        assertThat(over[1].maxTresPerUser()).isEqualTo(Tres.UNLIMITED);
        assertThat(Limits.heldTo(own, own)).containsExactly(own);
    }

    // ---- property: over random jobs, no running set exceeds a partition QOS's group and per-user limits ----

    private static final int SEEDS = 300;

    @Test
    void over_random_jobs_no_running_set_exceeds_a_partition_qoss_group_or_per_user_limits() {
        int held = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            held += runSeed(seed);
        }
        // The runs must really exercise the partition QOS's limits.
        assertThat(held).isGreaterThan(1000);
    }

    private static Tres randomTres(Random r) {
        return new Tres(r.nextInt(3) == 0 ? 4 + r.nextInt(30) : Long.MAX_VALUE, Long.MAX_VALUE,
                r.nextInt(2) == 0 ? 1 + r.nextInt(8) : Long.MAX_VALUE, Long.MAX_VALUE);
    }

    private static Qos randomQos(Random r, String name) {
        return new Qos(name, r.nextInt(3), 0, r.nextInt(3) == 0 ? 1 + r.nextInt(4) : 0, randomTres(r), null,
                randomTres(r));
    }

    /** One seed's cycles; answers how many jobs waited with a QOS reason. */
    private static int runSeed(long seed) {
        Random r = new Random(seed);
        int nodeCount = 2 + r.nextInt(5);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new Node("n" + i, 32, 256_000, 8, "h100", Set.of(), NodeState.UP, null, null));
        }
        List<String> names = nodes.stream().map(Node::name).toList();
        List<Qos> qos = List.of(randomQos(r, "pa"), randomQos(r, "pb"), randomQos(r, "j1"),
                randomQos(r, "j2"));
        // Partition "c" has no QOS; "a" and "b" have theirs. No job QOS has OverPartQOS here, so each limit a
        // partition QOS sets holds every job of its partition.
        List<Partition> parts = List.of(Partition.of("a", names).withQos("pa"), Partition.of("b", names).withQos("pb"),
                Partition.of("c", names));
        Map<String, Qos> byName = new HashMap<>();
        qos.forEach(q -> byName.put(q.name(), q));
        long now = 1_000_000;
        long nextId = 1;
        List<RunningJob> running = new ArrayList<>();
        List<PendingJob> pending = new ArrayList<>();
        Engine engine = new Engine();
        int waitedForQos = 0;
        for (int cycle = 0; cycle < 6; cycle++) {
            for (int k = 3 + r.nextInt(15); k > 0; k--) {
                Request req = Request.builder().nodes(1).tasks(1 + r.nextInt(6)).cpusPerTask(1).memoryMb(1_000)
                        .gpusPerNode(r.nextInt(4)).build();
                String partition = List.of("a", "b", "c").get(r.nextInt(3));
                pending.add(new PendingJob(JobId.of(nextId++), "u" + r.nextInt(3), "acct" + r.nextInt(2),
                        r.nextBoolean() ? "j1" : "j2", List.of(partition), req, 600L * (1 + r.nextInt(6)),
                        now - 50 - k, now - 50 - k, 0, null, 0));
            }
            Snapshot s = new Snapshot(now, nodes, parts, List.of(), running, pending, qos, List.of(), Policy.easy());
            Plan plan = engine.plan(s);
            Invariants.check(s, plan);
            String where = "seed " + seed + " cycle " + cycle;
            List<RunningJob> after = new ArrayList<>(running);
            List<PendingJob> left = new ArrayList<>();
            for (PendingJob job : pending) {
                Start st = plan.start(job.id()).orElse(null);
                if (st == null) {
                    left.add(job);
                    if (plan.waiting(job.id()).orElseThrow().reason().slurmName().startsWith("QOS")) {
                        waitedForQos++;
                    }
                } else {
                    after.add(new RunningJob(job.id(), job.user(), job.account(), job.qos(), st.partition(),
                            st.allocation(), now, st.expectedEnd()));
                }
            }
            for (Partition p : parts) {
                if (p.qos() != null) {
                    checkWithin(where, byName.get(p.qos()),
                            after.stream().filter(j -> j.partition().equals(p.name())).toList());
                }
            }
            running = new ArrayList<>();
            for (RunningJob rj : after) {
                if (r.nextInt(3) != 0) {
                    running.add(rj);
                }
            }
            pending = left;
            now += 60;
        }
        return waitedForQos;
    }

    /** The running jobs of a partition within its QOS's GrpTRES, MaxTRESPerUser and MaxJobsPerUser. */
    private static void checkWithin(String where, Qos q, List<RunningJob> jobs) {
        Tres all = Tres.ZERO;
        Map<String, Tres> perUser = new HashMap<>();
        Map<String, Integer> jobsPerUser = new HashMap<>();
        for (RunningJob j : jobs) {
            all = all.plus(j.tres());
            perUser.merge(j.user(), j.tres(), Tres::plus);
            jobsPerUser.merge(j.user(), 1, Integer::sum);
        }
        assertThat(all.gpus()).as("%s: GPUs in QOS %s", where, q.name()).isLessThanOrEqualTo(q.grpTres().gpus());
        assertThat(all.cpu()).as("%s: CPUs in QOS %s", where, q.name()).isLessThanOrEqualTo(q.grpTres().cpu());
        perUser.forEach((user, t) -> {
            assertThat(t.gpus()).as("%s: %s's GPUs in QOS %s", where, user, q.name())
                    .isLessThanOrEqualTo(q.maxTresPerUser().gpus());
            assertThat(t.cpu()).as("%s: %s's CPUs in QOS %s", where, user, q.name())
                    .isLessThanOrEqualTo(q.maxTresPerUser().cpu());
        });
        if (q.maxJobsPerUser() > 0) {
            jobsPerUser.forEach((user, n) -> assertThat(n).as("%s: %s's jobs in QOS %s", where, user, q.name())
                    .isLessThanOrEqualTo(q.maxJobsPerUser()));
        }
    }

    /** Same snapshot, same plan: the pairing of QOSes is cached per pass and never changes the outcome. */
    @Test
    void the_same_snapshot_gives_the_same_plan() {
        var jobs = new ArrayList<EngineFixtures.JobBuilder>();
        for (int i = 0; i < 12; i++) {
            jobs.add(aJob().partitions(i % 2 == 0 ? "gpu" : "main").user("u" + (i % 3)).gpus(1 + i % 2));
        }
        EngineFixtures.Scenario s = gpuCluster().with(jobs.toArray(EngineFixtures.JobBuilder[]::new));
        Plan first = new Engine().plan(s.snapshot());
        Plan second = new Engine().plan(s.snapshot());
        assertThat(second.starts()).isEqualTo(first.starts());
        assertThat(second.waiting().stream().sorted(Comparator.comparing(Waiting::job)).toList())
                .isEqualTo(first.waiting().stream().sorted(Comparator.comparing(Waiting::job)).toList());
    }
}
