package io.gantry.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.gantry.engine.Association;
import io.gantry.engine.Engine;
import io.gantry.engine.FairTree;
import io.gantry.engine.JobId;
import io.gantry.engine.Node;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Plan;
import io.gantry.engine.Policy;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Start;
import io.gantry.engine.Tres;

/**
 * A simulated day on a saturated GPU cluster, through the production engine and the default
 * policy on a virtual clock: two accounts with shares 3:1, each with more 1-GPU jobs queued than
 * the cluster can run, must receive GPU-hours within 10% of 3:1. Usage accrues from running jobs
 * every minute and decays with a 7-day half-life; Fair Tree turns it into the fair-share factor.
 */
class FairShareSimulationTests {

    private static final long DAY = 86_400;
    private static final long STEP = 60;
    private static final long HALF_LIFE = 7 * DAY;

    @Test
    void twoAccountsWithSharesThreeToOneGetGpuHoursThreeToOneOverADay() {
        Map<String, Long> gpuSeconds = simulateDay(Policy.defaults(), 42);
        double ratio = (double) gpuSeconds.get("a") / gpuSeconds.get("b");
        System.out.printf("fair share 3:1 over a simulated day: a=%.1f GPU-h, b=%.1f GPU-h, ratio %.3f%n",
                gpuSeconds.get("a") / 3600.0, gpuSeconds.get("b") / 3600.0, ratio);
        assertThat(ratio).as("GPU-seconds a=%d b=%d", gpuSeconds.get("a"), gpuSeconds.get("b")).isBetween(2.7, 3.3);
        // Saturated: nearly every GPU-second of the day went to one of them.
        assertThat(gpuSeconds.get("a") + gpuSeconds.get("b")).isGreaterThan((long) (0.95 * 32 * DAY));
    }

    @Test
    void withoutFairShareTheSameQueueIsNotSharedThreeToOne() {
        // The control: the same workload with the fair-share weight at zero is not shared 3:1,
        // so the test above measures the fair share and not the workload.
        Map<String, Long> gpuSeconds = simulateDay(Policy.named("default:fairshare=0"), 42);
        double ratio = (double) gpuSeconds.get("a") / gpuSeconds.get("b");
        System.out.printf("without fair share: ratio %.3f%n", ratio);
        assertThat(ratio < 2.7 || ratio > 3.3).as("ratio %.2f", ratio).isTrue();
    }

    private static Map<String, Long> simulateDay(Policy policy, long seed) {
        Random random = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            nodes.add(new Node("n" + i, 64, 512_000, 8, "h100", Set.of(), NodeState.UP, null, null));
        }
        Partition gpu = new Partition("gpu", nodes.stream().map(Node::name).toList(), 0, 1, true);
        List<FairTree.Account> accounts = List.of(new FairTree.Account("root", null, 1),
                new FairTree.Account("a", "root", 3), new FairTree.Account("b", "root", 1));
        List<FairTree.User> users = List.of(new FairTree.User("a", "ua", 1), new FairTree.User("b", "ub", 1));
        Map<String, Map<String, Double>> usage = new HashMap<>(Map.of("a", new HashMap<>(Map.of("ua", 0.0)),
                "b", new HashMap<>(Map.of("ub", 0.0))));
        Map<String, Long> delivered = new HashMap<>(Map.of("a", 0L, "b", 0L));

        Engine engine = new Engine();
        List<PendingJob> pending = new ArrayList<>();
        Map<JobId, long[]> runningEnds = new HashMap<>();
        List<RunningJob> running = new ArrayList<>();
        Map<JobId, Long> runSeconds = new HashMap<>();
        long[] nextId = {1};
        Request oneGpu = Request.builder().gpus(1).cpusPerTask(4).memoryMb(16_000).build();

        for (long now = 0; now < DAY; now += STEP) {
            // Keep both queues deeper than the cluster: 40 pending jobs each, 20-60 minutes long.
            for (String account : List.of("a", "b")) {
                long queued = pending.stream().filter(p -> p.account().equals(account)).count();
                for (long k = queued; k < 40; k++) {
                    JobId id = JobId.of(nextId[0]++);
                    runSeconds.put(id, 1200L + random.nextInt(2400));
                    pending.add(new PendingJob(id, "u" + account, account, "normal", List.of("gpu"), oneGpu, 3600,
                            now, now, 0, null));
                }
            }
            // End what is due, and accrue the minute's usage (decayed) for what ran.
            final long t = now;
            running.removeIf(r -> runningEnds.get(r.id())[0] <= t);
            for (Map<String, Double> byUser : usage.values()) {
                byUser.replaceAll((u, v) -> FairTree.decay(v, STEP, HALF_LIFE));
            }
            FairTree.Result tree = FairTree.compute(accounts, users, usage);
            List<Association> associations = List.of(Association.ofUser("a", "ua", tree.factor("a", "ua")),
                    Association.ofUser("b", "ub", tree.factor("b", "ub")));
            Snapshot snapshot = Snapshot.builder().now(now).nodes(nodes).partitions(List.of(gpu)).switches(List.of())
                    .running(running).pending(pending).qos(List.of()).associations(associations).policy(policy).build();
            Plan plan = engine.plan(snapshot);
            for (Start s : plan.starts()) {
                PendingJob job = pending.stream().filter(p -> p.id().equals(s.job())).findFirst().orElseThrow();
                pending.remove(job);
                running.add(new RunningJob(s.job(), job.user(), job.account(), job.qos(), s.partition(), s.allocation(),
                        now, now + job.timeLimitSeconds()));
                runningEnds.put(s.job(), new long[] {now + runSeconds.get(s.job())});
            }
            // GPU-seconds delivered during this minute (jobs end on minute boundaries here or later).
            for (RunningJob r : running) {
                long end = Math.min(runningEnds.get(r.id())[0], now + STEP);
                long seconds = Math.max(0, Math.min(end, DAY) - now);
                Tres tres = r.tres();
                long gpuSecondsNow = tres.gpus() * seconds;
                delivered.merge(r.account(), gpuSecondsNow, Long::sum);
                usage.get(r.account()).merge(r.user(), (double) gpuSecondsNow, Double::sum);
            }
        }
        return delivered;
    }
}
