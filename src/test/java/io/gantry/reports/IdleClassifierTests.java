package io.gantry.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.gantry.engine.PendingReason;
import io.gantry.reports.IdleClassifier.Condition;
import io.gantry.reports.IdleClassifier.Demand;
import io.gantry.reports.IdleClassifier.NodeSample;

/**
 * Each idle cause on a scenario that it alone explains, the precedence between them, and on random
 * clusters and queues that the causes always add up to the free GPUs.
 */
class IdleClassifierTests {

    private static final Set<String> ALL = Set.of("n1", "n2", "n3", "n4");

    /** Four 8-GPU nodes, with these free GPUs each, all up and unreserved; n1-n2 in block a, n3-n4 in block b. */
    private static List<NodeSample> nodes(int... free) {
        List<NodeSample> nodes = new ArrayList<>();
        for (int i = 0; i < free.length; i++) {
            nodes.add(new NodeSample("n" + (i + 1), 8, free[i], Condition.UP, false, 0, i < 2 ? "a" : "b"));
        }
        return nodes;
    }

    private static Demand job(PendingReason reason, int nodes, int gpusPerNode) {
        return new Demand(reason, nodes, 0, gpusPerNode, false, false, ALL);
    }

    @Test
    void freeGpusNothingPendingAsksForAreNoDemand() {
        IdleCauses c = IdleClassifier.classify(nodes(8, 3, 0, 5), List.of(
                new Demand(PendingReason.RESOURCES, 1, 0, 0, false, false, ALL), // wants no GPUs
                job(PendingReason.JOB_HELD_USER, 1, 8), job(PendingReason.DEPENDENCY, 1, 8),
                job(PendingReason.BEGIN_TIME, 1, 8)));
        assertThat(c).isEqualTo(new IdleCauses(16, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void downNodesFreeGpusAreDownEvenWhenReservedOrWanted() {
        List<NodeSample> nodes = List.of(new NodeSample("n1", 8, 6, Condition.DOWN, true, 4, "a"),
                new NodeSample("n2", 8, 8, Condition.DOWN, false, 0, "a"));
        IdleCauses c = IdleClassifier.classify(nodes, List.of(job(PendingReason.RESOURCES, 2, 8)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 0, 0, 0, 0, 14));
    }

    @Test
    void drainingNodesFreeGpusAreDraining() {
        List<NodeSample> nodes = List.of(new NodeSample("n1", 8, 5, Condition.DRAINING, true, 0, "a"),
                new NodeSample("n2", 8, 0, Condition.UP, false, 0, "a"));
        IdleCauses c = IdleClassifier.classify(nodes, List.of(job(PendingReason.RESOURCES, 1, 8)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 0, 0, 0, 5, 0));
    }

    @Test
    void poweredDownNodesFreeGpusArePoweredDownNotDownNorWanted() {
        List<NodeSample> nodes = List.of(new NodeSample("n1", 8, 8, Condition.POWERED_DOWN, false, 0, "a"),
                new NodeSample("n2", 8, 2, Condition.UP, false, 0, "a"),
                new NodeSample("n3", 8, 8, Condition.DOWN, false, 0, "b"));
        IdleCauses c = IdleClassifier.classify(nodes, List.of());
        assertThat(c).isEqualTo(new IdleCauses(2, 0, 0, 0, 0, 0, 8, 8));
        assertThat(c.total()).isEqualTo(18);
    }

    @Test
    void advanceReservationsAndBackfillReservationsAreReserved() {
        List<NodeSample> nodes = List.of(new NodeSample("n1", 8, 8, Condition.UP, true, 0, "a"),
                new NodeSample("n2", 8, 3, Condition.UP, false, 4, "a"));
        IdleCauses c = IdleClassifier.classify(nodes, List.of(job(PendingReason.RESOURCES, 1, 8)));
        assertThat(c).as("all of the advance reservation's node, and what the backfill profile holds (at most what is free)")
                .isEqualTo(new IdleCauses(0, 11, 0, 0, 0, 0, 0));
    }

    @Test
    void aJobNeedingMoreGpusPerNodeThanFreeMakesThemFragmented() {
        IdleCauses c = IdleClassifier.classify(nodes(3, 3, 3, 3), List.of(job(PendingReason.RESOURCES, 2, 8)));
        assertThat(c).as("8 per node wanted, 3 free on each: it claims up to the 16 it asks for")
                .isEqualTo(new IdleCauses(0, 0, 12, 0, 0, 0, 0));
    }

    @Test
    void aJobNeedingMoreNodesTogetherThanFreeMakesThemFragmented() {
        IdleCauses c = IdleClassifier.classify(nodes(8, 8, 0, 0), List.of(job(PendingReason.RESOURCES, 3, 8)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 16, 0, 0, 0, 0));
        IdleCauses moreThanUp = IdleClassifier.classify(nodes(8, 8, 0, 0),
                List.of(job(PendingReason.REQ_NODE_NOT_AVAIL, 5, 8)));
        assertThat(moreThanUp).as("more nodes than are up").isEqualTo(new IdleCauses(0, 0, 16, 0, 0, 0, 0));
    }

    @Test
    void aJobBlockedOnlyByALimitThatWouldFitExplainsWhatItWouldUse() {
        IdleCauses c = IdleClassifier.classify(nodes(8, 8, 0, 0),
                List.of(job(PendingReason.QOS_MAX_GRES_PER_USER, 2, 8)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 0, 0, 16, 0, 0));
        IdleCauses small = IdleClassifier.classify(nodes(8, 8, 0, 0),
                List.of(new Demand(PendingReason.ASSOC_GRP_GRES, 0, 2, 0, false, false, ALL)));
        assertThat(small).as("a 2-GPU job explains 2 GPUs, not the whole idle cluster")
                .isEqualTo(new IdleCauses(14, 0, 0, 0, 2, 0, 0));
    }

    @Test
    void aLimitedJobThatWouldNotFitAnywayIsFragmentationNotLimits() {
        IdleCauses c = IdleClassifier.classify(nodes(3, 3, 0, 0),
                List.of(job(PendingReason.ASSOC_GRP_GRES, 2, 4)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 6, 0, 0, 0, 0));
    }

    @Test
    void aJobWaitingForItsSwitchesMakesTheGpusItWouldUseTopology() {
        IdleCauses c = IdleClassifier.classify(nodes(8, 0, 8, 0), List.of(job(PendingReason.TOPOLOGY_WAIT, 2, 8)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 0, 16, 0, 0, 0));
    }

    @Test
    void aOneBlockJobThatFitsOnlyAcrossBlocksMakesThemTopology() {
        IdleCauses c = IdleClassifier.classify(nodes(8, 0, 8, 0),
                List.of(new Demand(PendingReason.RESOURCES, 2, 0, 8, false, true, ALL)));
        assertThat(c).isEqualTo(new IdleCauses(0, 0, 0, 16, 0, 0, 0));
    }

    @Test
    void causesTakeTurnsInPrecedenceAndEachJobClaimsOnlyWhatItAsksFor() {
        List<NodeSample> nodes = List.of(new NodeSample("n1", 8, 8, Condition.DOWN, false, 0, "a"),
                new NodeSample("n2", 8, 8, Condition.DRAINING, false, 0, "a"),
                new NodeSample("n3", 8, 8, Condition.UP, true, 0, "b"),
                new NodeSample("n4", 8, 8, Condition.UP, false, 2, "b"),
                new NodeSample("n5", 8, 3, Condition.UP, false, 0, "b"));
        Set<String> all = Set.of("n1", "n2", "n3", "n4", "n5");
        IdleCauses c = IdleClassifier.classify(nodes, List.of(
                new Demand(PendingReason.QOS_GRP_GRES, 1, 0, 2, false, false, all),
                new Demand(PendingReason.TOPOLOGY_WAIT, 1, 0, 3, false, false, all),
                new Demand(PendingReason.RESOURCES, 1, 0, 8, false, false, all)));
        // n4: 2 held, 6 available; n5: 3 available. Limits take 2 of n4, topology 3 more of n4, and
        // the 8-per-node job claims what is left (1 on n4, 3 on n5): nothing is left for no demand.
        assertThat(c).isEqualTo(new IdleCauses(0, 8 + 2, 4, 3, 2, 8, 8));
    }

    @Test
    void jobsClaimOnlyOnTheNodesTheirPartitionsAllow() {
        IdleCauses c = IdleClassifier.classify(nodes(8, 8, 8, 8),
                List.of(new Demand(PendingReason.RESOURCES, 4, 0, 8, false, false, Set.of("n1", "n2"))));
        assertThat(c).isEqualTo(new IdleCauses(16, 0, 16, 0, 0, 0, 0));
    }

    @Test
    void causesAlwaysAddUpToTheFreeGpus() {
        Random random = new Random(15);
        PendingReason[] reasons = PendingReason.values();
        for (int round = 0; round < 2_000; round++) {
            int count = 1 + random.nextInt(12);
            List<NodeSample> nodes = new ArrayList<>();
            long free = 0;
            for (int i = 0; i < count; i++) {
                int gpus = random.nextInt(9);
                int f = random.nextInt(gpus + 3) - 1; // sometimes out of range: clamped
                free += Math.max(0, Math.min(f, gpus));
                nodes.add(new NodeSample("n" + i, gpus, f, Condition.values()[random.nextInt(3)], random.nextInt(5) == 0,
                        random.nextInt(6) - 1, random.nextBoolean() ? "b" + random.nextInt(3) : null));
            }
            List<Demand> demand = new ArrayList<>();
            for (int j = random.nextInt(8); j > 0; j--) {
                Set<String> candidates = new HashSet<>();
                for (int i = 0; i < count; i++) {
                    if (random.nextInt(3) > 0) {
                        candidates.add("n" + i);
                    }
                }
                if (random.nextInt(10) == 0) {
                    candidates.add("elsewhere");
                }
                boolean perNode = random.nextBoolean();
                demand.add(new Demand(reasons[random.nextInt(reasons.length)], random.nextInt(4),
                        perNode ? 0 : random.nextInt(20), perNode ? random.nextInt(9) : 0, random.nextInt(4) == 0,
                        random.nextInt(4) == 0, candidates));
            }
            IdleCauses c = IdleClassifier.classify(nodes, demand);
            assertThat(c.total()).as("round %d: %s %s", round, nodes, demand).isEqualTo(free);
            assertThat(List.of(c.noDemand(), c.reserved(), c.fragmented(), c.topology(), c.limits(), c.draining(),
                    c.down())).allMatch(v -> v >= 0);
        }
    }
}
