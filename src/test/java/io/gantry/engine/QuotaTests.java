package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Guarantees, borrowing and reclaim (issue 16) on small hand-made clusters. */
class QuotaTests {

    static final long NOW = 1_000_000;
    private final Engine engine = new Engine();

    /** Two nodes of 8 GPUs; teams a and b guaranteed 8 each under root. */
    static List<Quota> halves(long maxBorrowA, long maxLendB) {
        return List.of(Quota.none("root", null),
                new Quota("a", "root", Map.of("", 8L), maxBorrowA < 0 ? Map.of() : Map.of("", maxBorrowA), Map.of()),
                new Quota("b", "root", Map.of("", 8L), Map.of(), maxLendB < 0 ? Map.of() : Map.of("", maxLendB)));
    }

    static List<Node> nodes(int count) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            nodes.add(new Node("n" + i, 64, 512_000, 8, "h100", Set.of(), NodeState.UP, null, null));
        }
        return nodes;
    }

    static PendingJob pending(long id, String account, int gpus, long submitted) {
        Request r = Request.builder().nodes(1).gpusPerNode(gpus).build();
        return new PendingJob(JobId.of(id), "u" + account, account, "normal", List.of("p"), r, 36_000, submitted,
                submitted, 0, null);
    }

    static RunningJob running(long id, String account, String node, int firstGpu, int gpus, long started) {
        List<Integer> idx = new ArrayList<>();
        for (int g = firstGpu; g < firstGpu + gpus; g++) {
            idx.add(g);
        }
        return new RunningJob(JobId.of(id), "u" + account, account, "normal", "p",
                List.of(new NodeAllocation(node, 1, 1000, idx)), started, started + 36_000);
    }

    Plan plan(List<Quota> quotas, long minRuntime, Set<JobId> stopping, List<RunningJob> running,
            List<PendingJob> pending) {
        List<Node> nodes = nodes(2);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        return engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(running)
                .pending(pending).qos(List.of(Qos.named("normal", 0)))
                .quotas(new QuotaTree(quotas, minRuntime, stopping)).build());
    }

    /** Team a holds its own 8 GPUs on n1 and all of b's 8 on n2 (jobs 11..14 borrow). */
    static List<RunningJob> aHoldsEverything() {
        List<RunningJob> r = new ArrayList<>();
        r.add(running(1, "a", "n1", 0, 8, NOW - 5000));
        for (int k = 0; k < 4; k++) {
            r.add(running(11 + k, "a", "n2", 2 * k, 2, NOW - 4000 + 100 * k));
        }
        return r;
    }

    @Test
    void anAccountBorrowsItsSiblingsIdleGuaranteeAndIsMarkedBorrowing() {
        List<RunningJob> running = List.of(running(1, "a", "n1", 0, 8, NOW - 5000));
        Plan plan = plan(halves(-1, -1), 0, Set.of(), running, List.of(pending(20, "a", 4, NOW - 10)));
        assertThat(plan.start(JobId.of(20))).isPresent();
        assertThat(plan.borrowing()).containsExactly(JobId.of(20));
    }

    @Test
    void borrowingStopsAtTheBorrowersMaxBorrow() {
        List<RunningJob> running = List.of(running(1, "a", "n1", 0, 8, NOW - 5000));
        Plan plan = plan(halves(2, -1), 0, Set.of(), running, List.of(pending(20, "a", 4, NOW - 10)));
        assertThat(plan.start(JobId.of(20))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(20))).isEqualTo(PendingReason.QUOTA_BORROW_LIMIT);
    }

    @Test
    void borrowingStopsAtTheLendersMaxLend() {
        List<RunningJob> running = List.of(running(1, "a", "n1", 0, 8, NOW - 5000));
        Plan plan = plan(halves(-1, 2), 0, Set.of(), running,
                List.of(pending(20, "a", 2, NOW - 10), pending(21, "a", 2, NOW - 5)));
        assertThat(plan.start(JobId.of(20))).isPresent();
        assertThat(plan.start(JobId.of(21))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(21))).isEqualTo(PendingReason.QUOTA_NOTHING_TO_BORROW);
    }

    @Test
    void idleGuaranteeWantedByItsOwnersPendingJobsIsNotLent() {
        List<RunningJob> running = List.of(running(1, "a", "n1", 0, 8, NOW - 5000));
        // b has an eligible job for its whole guarantee: those 8 GPUs are not lent to a.
        Plan plan = plan(halves(-1, -1), 0, Set.of(), running,
                List.of(pending(20, "a", 4, NOW - 100), pending(30, "b", 8, NOW - 10)));
        assertThat(plan.start(JobId.of(30))).isPresent();
        assertThat(plan.start(JobId.of(20))).isEmpty();
        assertThat(plan.borrowing()).isEmpty();
    }

    @Test
    void theOwnerReclaimsTheFewestYoungestBorrowersAndWaitsWithItsReason() {
        Plan plan = plan(halves(-1, -1), 0, Set.of(), aHoldsEverything(), List.of(pending(30, "b", 4, NOW - 10)));
        assertThat(plan.start(JobId.of(30))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(30))).isEqualTo(PendingReason.QUOTA_RECLAIM);
        assertThat(plan.preemptions()).extracting(Preemption::victim)
                .containsExactlyInAnyOrder(JobId.of(13), JobId.of(14));
        assertThat(plan.preemptions()).allMatch(Preemption::reclaim);
        assertThat(plan.preemptions()).extracting(Preemption::by).containsOnly(JobId.of(30));
    }

    @Test
    void jobsWithinTheirGuaranteeAreNeverReclaimed() {
        // b asks for more than its guarantee: nothing is reclaimed for it.
        Plan plan = plan(halves(-1, -1), 0, Set.of(), aHoldsEverything(), List.of(pending(30, "b", 8, NOW - 10),
                pending(31, "b", 2, NOW - 5)));
        assertThat(plan.preemptions()).extracting(Preemption::victim).doesNotContain(JobId.of(1));
    }

    @Test
    void borrowersYoungerThanTheMinimumRunTimeAreKeptAndTheOwnerWaitsForReclaim() {
        Plan plan = plan(halves(-1, -1), 10_000, Set.of(), aHoldsEverything(), List.of(pending(30, "b", 4, NOW - 10)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.reasons().get(JobId.of(30))).isEqualTo(PendingReason.QUOTA_RECLAIM);
    }

    @Test
    void jobsAlreadyStoppingAreCountedAsComingBackSoNoMoreAreTaken() {
        Plan plan = plan(halves(-1, -1), 0, Set.of(JobId.of(13), JobId.of(14)), aHoldsEverything(),
                List.of(pending(30, "b", 4, NOW - 10)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.reasons().get(JobId.of(30))).isEqualTo(PendingReason.QUOTA_RECLAIM);
    }

    @Test
    void capacityNobodyIsGuaranteedIsAFreePoolAndNotBorrowing() {
        List<Quota> quotas = List.of(Quota.none("root", null),
                new Quota("a", "root", Map.of("", 4L), Map.of("", 0L), Map.of()),
                new Quota("b", "root", Map.of("", 4L), Map.of(), Map.of()));
        // 16 GPUs, 8 guaranteed: a may use 4 + 8 free even though it may borrow nothing.
        Plan plan = plan(quotas, 0, Set.of(), List.of(), List.of(pending(20, "a", 8, NOW - 10),
                pending(21, "a", 4, NOW - 5)));
        assertThat(plan.starts()).hasSize(2);
        assertThat(plan.borrowing()).isEmpty();
    }

    @Test
    void withoutAnyGuaranteeNothingChanges() {
        Plan plan = plan(List.of(Quota.none("root", null), Quota.none("a", "root")), 0, Set.of(),
                aHoldsEverything(), List.of(pending(30, "b", 4, NOW - 10)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.reasons().get(JobId.of(30))).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void quotaUseReportsGuaranteedInUseBorrowedLentAndPending() {
        List<Node> nodes = nodes(2);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        Snapshot s = Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(aHoldsEverything())
                .pending(List.of(pending(30, "b", 4, NOW - 10))).qos(List.of(Qos.named("normal", 0)))
                .quotas(new QuotaTree(halves(-1, -1), 0, Set.of())).build();
        Map<String, QuotaUse> byAccount = new java.util.HashMap<>();
        engine.quotaUse(s).forEach(u -> byAccount.put(u.account(), u));
        assertThat(byAccount.get("a")).isEqualTo(new QuotaUse("a", "root", "", 8, 16, 8, 0, 0));
        assertThat(byAccount.get("b")).isEqualTo(new QuotaUse("b", "root", "", 8, 0, 0, 8, 4));
        assertThat(byAccount.get("root")).isEqualTo(new QuotaUse("root", null, "", 16, 16, 0, 0, 4));
    }

    @Test
    void gpuAmountsAreReadAsTresAndAnythingElseIsRefused() {
        assertThat(Quota.parseGpus("gres/gpu=512")).isEqualTo(Map.of("", 512L));
        assertThat(Quota.parseGpus("gres/gpu:h100=64, gres/gpu=8")).isEqualTo(Map.of("h100", 64L, "", 8L));
        assertThatThrownBy(() -> Quota.parseGpus("cpu=4")).hasMessageContaining("quotas count GPUs");
        assertThatThrownBy(() -> Quota.parseGpus("gres/gpu=x")).hasMessageContaining("not a GPU count");
        assertThatThrownBy(() -> Quota.parseGpus("gres/gpu=1,gpu=2")).hasMessageContaining("twice");
    }

    /** The README's worked example, cycle by cycle on 16 nodes of 8 GPUs. */
    @Test
    void theReadmesWorkedExample() {
        List<Node> nodes = nodes(16);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        List<Quota> quotas = List.of(Quota.none("root", null),
                new Quota("vision", "root", Map.of("", 64L), Map.of(), Map.of()),
                new Quota("nlp", "root", Map.of("", 64L), Map.of(), Map.of("", 48L)));
        List<PendingJob> pending = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            pending.add(pending(100 + i, "vision", 8, NOW - 100 + i));
        }
        List<RunningJob> running = new ArrayList<>();
        java.util.Set<JobId> borrowing = Set.of();
        long now = NOW;
        Plan plan = null;
        for (int step = 0; step < 4; step++) {
            if (step == 1) {
                Request r = Request.builder().nodes(2).gpusPerNode(8).build();
                pending.add(new PendingJob(JobId.of(200), "unlp", "nlp", "normal", List.of("p"), r, 36_000, now, now,
                        0, null));
            }
            if (step == 2) {
                Request r = Request.builder().nodes(2).gpusPerNode(8).build();
                pending.add(new PendingJob(JobId.of(201), "unlp", "nlp", "normal", List.of("p"), r, 36_000, now, now,
                        0, null));
            }
            plan = engine.plan(Snapshot.builder().now(now).nodes(nodes).partitions(List.of(p)).running(running)
                    .pending(pending).qos(List.of(Qos.named("normal", 0)))
                    .quotas(new QuotaTree(quotas, 0, Set.of(), borrowing)).build());
            borrowing = plan.borrowing();
            for (Start st : plan.starts()) {
                PendingJob job = pending.stream().filter(j -> j.id().equals(st.job())).findFirst().orElseThrow();
                pending.remove(job);
                running.add(new RunningJob(job.id(), job.user(), job.account(), "normal", "p", st.allocation(), now,
                        now + 36_000));
            }
            if (step == 0) {
                assertThat(plan.starts()).hasSize(14);
                assertThat(plan.borrowing()).hasSize(6);
                assertThat(plan.waiting()).extracting(Waiting::reason)
                        .containsOnly(PendingReason.QUOTA_NOTHING_TO_BORROW);
            }
            if (step == 1) {
                assertThat(plan.start(JobId.of(200))).isPresent();
            }
            if (step == 2) {
                assertThat(plan.reasons().get(JobId.of(201))).isEqualTo(PendingReason.QUOTA_RECLAIM);
                assertThat(plan.preemptions()).hasSize(2).allMatch(Preemption::reclaim);
                // The grace time passes; the victims are requeued.
                for (Preemption victim : plan.preemptions()) {
                    RunningJob r = running.stream().filter(j -> j.id().equals(victim.victim())).findFirst()
                            .orElseThrow();
                    running.remove(r);
                    pending.add(pending(r.id().id(), "vision", 8, now));
                }
            }
            if (step == 3) {
                assertThat(plan.start(JobId.of(201))).isPresent();
                assertThat(plan.waiting()).extracting(Waiting::reason)
                        .containsOnly(PendingReason.QUOTA_NOTHING_TO_BORROW);
            }
            now += 120;
        }
    }

    @Test
    void withGuaranteesQosPreemptionNeverStopsAnotherAccountsJobsAndReclaimTakesOnlyBorrowers() {
        // b holds its own 8 GPUs on n1 (oldest) and borrows a's 8 on n2, all in QOS low; a's job may preempt low.
        Qos low = Qos.named("low", 0);
        Qos high = new Qos("high", 100, 0, 0, null, null, null, Set.of("low"), Preemption.Mode.REQUEUE);
        List<RunningJob> running = List.of(
                new RunningJob(JobId.of(1), "ub", "b", "low", "p", List.of(new NodeAllocation("n1", 1, 1000,
                        List.of(0, 1, 2, 3, 4, 5, 6, 7))), NOW - 5000, NOW + 30_000),
                new RunningJob(JobId.of(2), "ub", "b", "low", "p", List.of(new NodeAllocation("n2", 1, 1000,
                        List.of(0, 1, 2, 3, 4, 5, 6, 7))), NOW - 4000, NOW + 30_000));
        Request r = Request.builder().nodes(1).gpusPerNode(8).build();
        PendingJob urgent = new PendingJob(JobId.of(30), "ua", "a", "high", List.of("p"), r, 3600, NOW - 10, NOW - 10,
                0, null);
        List<Node> nodes = nodes(2);
        Partition p = new Partition("p", List.of("n1", "n2"), 0, 1, true);
        Plan plan = engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(running)
                .pending(List.of(urgent)).qos(List.of(low, high, Qos.named("normal", 0)))
                .quotas(new QuotaTree(halves(-1, -1), 0, Set.of(), Set.of(JobId.of(2)))).build());
        assertThat(plan.preemptions()).containsExactly(
                new Preemption(JobId.of(2), JobId.of(30), Preemption.Mode.REQUEUE, true));
        assertThat(plan.start(JobId.of(30))).as("it waits for the reclaim, it does not preempt by QOS").isEmpty();
        assertThat(plan.reasons().get(JobId.of(30))).isEqualTo(PendingReason.QUOTA_RECLAIM);
    }

    /**
     * Two levels on 4 nodes of 8 GPUs: research guaranteed 24 (vision 8, nlp 8, 8 left to research's
     * own pool), prod 8; {@code researchMaxBorrow} and {@code visionMaxLend} negative for no limit.
     */
    static List<Quota> twoLevels(long researchMaxBorrow, long visionMaxLend) {
        return List.of(Quota.none("root", null),
                new Quota("research", "root", Map.of("", 24L),
                        researchMaxBorrow < 0 ? Map.of() : Map.of("", researchMaxBorrow), Map.of()),
                new Quota("vision", "research", Map.of("", 8L), Map.of(),
                        visionMaxLend < 0 ? Map.of() : Map.of("", visionMaxLend)),
                new Quota("nlp", "research", Map.of("", 8L), Map.of(), Map.of()),
                new Quota("prod", "root", Map.of("", 8L), Map.of(), Map.of()));
    }

    Plan plan4(List<Quota> quotas, List<RunningJob> running, List<PendingJob> pending) {
        List<Node> nodes = nodes(4);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        return engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(running)
                .pending(pending).qos(List.of(Qos.named("normal", 0)))
                .quotas(new QuotaTree(quotas, 0, Set.of())).build());
    }

    @Test
    void aJobUsesItsGuaranteeThenItsParentsPoolThenItsSiblingsThenItsParentBorrowsFromItsOwnSiblings() {
        // nlp's four 8-GPU jobs: its own 8, research's own pool, vision's idle 8 inside research, and
        // then research is full and borrows prod's idle 8.
        Plan plan = plan4(twoLevels(-1, -1), List.of(), List.of(pending(1, "nlp", 8, NOW - 40),
                pending(2, "nlp", 8, NOW - 30), pending(3, "nlp", 8, NOW - 20), pending(4, "nlp", 8, NOW - 10)));
        assertThat(plan.starts()).hasSize(4);
        assertThat(plan.borrowing()).containsExactlyInAnyOrder(JobId.of(3), JobId.of(4));
        assertThat(plan.borrowedAt().get(JobId.of(3))).containsEntry("", "research");
        assertThat(plan.borrowedAt().get(JobId.of(4))).containsEntry("", "root");
    }

    @Test
    void theParentsMaxBorrowStopsItsChildrenBorrowingAboveIt() {
        // research may borrow nothing: nlp still borrows vision's idle guarantee inside research, not prod's.
        Plan plan = plan4(twoLevels(0, -1), List.of(), List.of(pending(1, "nlp", 8, NOW - 40),
                pending(2, "nlp", 8, NOW - 30), pending(3, "nlp", 8, NOW - 20), pending(4, "nlp", 8, NOW - 10)));
        assertThat(plan.start(JobId.of(3))).isPresent();
        assertThat(plan.start(JobId.of(4))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(4))).isEqualTo(PendingReason.QUOTA_BORROW_LIMIT);
    }

    @Test
    void aChildsMaxLendHoldsWhenItsParentLendsAbove() {
        // prod borrows research's idle guarantee: its own pool and nlp's 8, never vision's (maxLend 0),
        // although vision's 8 GPUs are free.
        Plan plan = plan4(twoLevels(-1, 0), List.of(), List.of(pending(1, "prod", 8, NOW - 40),
                pending(2, "prod", 8, NOW - 30), pending(3, "prod", 8, NOW - 20), pending(4, "prod", 8, NOW - 10)));
        assertThat(plan.starts()).hasSize(3);
        assertThat(plan.reasons().get(JobId.of(4))).isEqualTo(PendingReason.QUOTA_NOTHING_TO_BORROW);
        assertThat(plan.borrowing()).containsExactlyInAnyOrder(JobId.of(2), JobId.of(3));
    }

    /** nlp holds all 32 GPUs: its own 8 (job 1), research's pool (2), vision's 8 (3) and prod's 8 (4). */
    static List<RunningJob> nlpHoldsEverything() {
        return List.of(running(1, "nlp", "n1", 0, 8, NOW - 4000), running(2, "nlp", "n2", 0, 8, NOW - 3000),
                running(3, "nlp", "n3", 0, 8, NOW - 2000), running(4, "nlp", "n4", 0, 8, NOW - 1000));
    }

    @Test
    void anAccountReclaimsOnlyFromJobsBorrowingAcrossItsBoundary() {
        // prod gets back its 8 from the job that borrows them at the root, not from the one borrowing
        // vision's inside research, nor from those within research's guarantee.
        Plan plan = plan4(twoLevels(-1, -1), nlpHoldsEverything(), List.of(pending(30, "prod", 8, NOW - 10)));
        assertThat(plan.preemptions()).extracting(Preemption::victim).containsExactly(JobId.of(4));
        assertThat(plan.reasons().get(JobId.of(30))).isEqualTo(PendingReason.QUOTA_RECLAIM);
        // Even when the job borrowing at the root is too young to be reclaimed, prod takes nothing else.
        List<RunningJob> young = new ArrayList<>(nlpHoldsEverything());
        young.set(3, running(4, "nlp", "n4", 0, 8, NOW - 10));
        List<Node> nodes = nodes(4);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        Plan waits = engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(young)
                .pending(List.of(pending(30, "prod", 8, NOW - 10))).qos(List.of(Qos.named("normal", 0)))
                .quotas(new QuotaTree(twoLevels(-1, -1), 600, Set.of())).build());
        assertThat(waits.preemptions()).isEmpty();
        assertThat(waits.reasons().get(JobId.of(30))).isEqualTo(PendingReason.QUOTA_RECLAIM);
    }

    @Test
    void anAccountUnderItsGuaranteeReclaimsBorrowersInsideAndAboveItsParent() {
        // vision's guarantee is lent inside research (job 3) and research borrows above it (job 4): both
        // cross vision's boundary. The one on vision's guarantee goes first, though job 4 is younger:
        // stopping job 4 would only let vision's job run by borrowing prod's idle GPUs at the root (and
        // be reclaimed by prod in turn) while job 3 kept vision's own. One is enough.
        Plan plan = plan4(twoLevels(-1, -1), nlpHoldsEverything(), List.of(pending(30, "vision", 8, NOW - 10)));
        assertThat(plan.preemptions()).extracting(Preemption::victim).containsExactly(JobId.of(3));
        // With job 3 already stopping, nothing more is taken: its 8 GPUs come back to vision.
        List<Node> nodes = nodes(4);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        Plan next = engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p))
                .running(nlpHoldsEverything()).pending(List.of(pending(30, "vision", 8, NOW - 10)))
                .qos(List.of(Qos.named("normal", 0)))
                .quotas(new QuotaTree(twoLevels(-1, -1), 0, Set.of(JobId.of(3)))).build());
        assertThat(next.preemptions()).isEmpty();
        // A job of research's own beyond its guarantee reclaims nothing.
        Plan beyond = plan4(twoLevels(-1, -1), nlpHoldsEverything(), List.of(pending(31, "research", 8, NOW - 10)));
        assertThat(beyond.preemptions()).isEmpty();
    }

    @Test
    void aRestartedSchedulerThatKnowsWhichJobsBorrowKeepsThemWhereTheyBorrowed() {
        // Job 4 started before job 3 in the same second; the last plan said job 3 borrows at the root.
        List<RunningJob> running = List.of(running(1, "nlp", "n1", 0, 8, NOW - 4000),
                running(2, "nlp", "n2", 0, 8, NOW - 3000), running(3, "nlp", "n3", 0, 8, NOW - 2000),
                running(4, "nlp", "n4", 0, 8, NOW - 2000));
        List<Node> nodes = nodes(4);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        Snapshot.Builder b = Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(running)
                .pending(List.of(pending(30, "prod", 8, NOW - 10))).qos(List.of(Qos.named("normal", 0)));
        Plan derived = engine.plan(b.quotas(new QuotaTree(twoLevels(-1, -1), 0, Set.of())).build());
        assertThat(derived.preemptions()).extracting(Preemption::victim).containsExactly(JobId.of(4));
        Plan known = engine.plan(b.quotas(new QuotaTree(twoLevels(-1, -1), 0, Set.of(),
                Set.of(JobId.of(3), JobId.of(4)), Map.of(JobId.of(3), Map.of("", "root"),
                        JobId.of(4), Map.of("", "research")))).build());
        assertThat(known.preemptions()).extracting(Preemption::victim).containsExactly(JobId.of(3));
    }

    @Test
    void aBorrowerDoesNotMoveDownOntoGuaranteeItsOwnersPendingJobsWant() {
        // vision runs on its own 8 (job 1) and research's pool (job 2); job 3 borrowed prod's idle 8 at the
        // root in the last plan. nlp's 8, freed (by a reclaim), are wanted by its pending job 30: job 3 stays
        // at the root and job 30 starts within nlp's guarantee, not borrowing prod's GPUs in job 3's stead.
        List<RunningJob> running = List.of(running(1, "vision", "n1", 0, 8, NOW - 4000),
                running(2, "vision", "n2", 0, 8, NOW - 3000), running(3, "vision", "n3", 0, 8, NOW - 2000));
        List<Node> nodes = nodes(4);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        Snapshot.Builder b = Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(running)
                .qos(List.of(Qos.named("normal", 0)));
        QuotaTree before = new QuotaTree(twoLevels(-1, -1), 0, Set.of(), Set.of(JobId.of(3)),
                Map.of(JobId.of(3), Map.of("", "root")));
        Plan plan = engine.plan(b.pending(List.of(pending(30, "nlp", 8, NOW - 10))).quotas(before).build());
        assertThat(plan.starts()).extracting(Start::job).containsExactly(JobId.of(30));
        assertThat(plan.borrowing()).containsExactly(JobId.of(3));
        assertThat(plan.borrowedAt().get(JobId.of(3))).isEqualTo(Map.of("", "root"));
        // With nothing pending for nlp, job 3 comes down onto nlp's idle guarantee, as before.
        Plan idle = engine.plan(b.pending(List.of()).quotas(before).build());
        assertThat(idle.borrowedAt().get(JobId.of(3))).isEqualTo(Map.of("", "research"));
    }
}
