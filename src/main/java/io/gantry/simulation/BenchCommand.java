package io.gantry.simulation;

import io.gantry.engine.Association;
import io.gantry.engine.Engine;
import io.gantry.engine.JobId;
import io.gantry.engine.Node;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Plan;
import io.gantry.engine.Policy;
import io.gantry.engine.Qos;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;
import io.gantry.engine.Snapshot;
import io.gantry.engine.StartEstimate;
import io.gantry.engine.StartEstimates;
import io.gantry.engine.StartEstimator;
import io.gantry.engine.Switch;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@code gantry bench [--nodes 12500] [--gpus-per-node 8] [--pending 100000] [--seed 1]}: a cluster
 * of that many nodes x GPUs x 128 CPUs (leaf switches of 32 nodes, blocks of 18), about 90% busy,
 * and that many pending jobs of mixed shapes; runs full cycles and prints one line with the median,
 * then times the expected-start pass after the plan within {@code --estimate-budget-ms} (the
 * controller's default, 2000; 0 for none) and {@code --estimate-max-jobs} placements (0, the
 * default: no limit; a fixed count compares the cost per job of two builds on a busy machine).
 */
public final class BenchCommand {

    private static final int CPUS = 128;
    private static final long MEMORY_MB = 1_024_000;
    private static final int WARMUP = 3;
    private static final int MEASURED = 5;
    private static final int MAX_CHAINED_PASSES = 30;
    private static final long NOW = 1_700_000_000L;
    private static final long[] LIMITS = {600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400, 172_800};

    private BenchCommand() {
    }

    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        int nodes;
        int gpus;
        int pendingCount;
        long seed;
        long estimateBudgetMs;
        int estimateMaxJobs;
        try {
            o = Options.parse(args, "--nodes", "--gpus-per-node", "--pending", "--seed", "--estimate-budget-ms",
                    "--estimate-max-jobs");
            nodes = o.intValue("--nodes", 12_500);
            gpus = o.intValue("--gpus-per-node", 8);
            pendingCount = o.intValue("--pending", 100_000);
            seed = o.longValue("--seed", 1);
            estimateBudgetMs = o.longValue("--estimate-budget-ms", 2000);
            estimateMaxJobs = o.intValue("--estimate-max-jobs", 0);
            if (nodes <= 0 || gpus < 0 || gpus > Node.MAX_GPUS || pendingCount < 0) {
                throw new IllegalArgumentException("--nodes must be positive, --gpus-per-node in 0..64");
            }
            if (estimateBudgetMs < 0 || estimateBudgetMs > 3_600_000) {
                throw new IllegalArgumentException("--estimate-budget-ms must be in 0..3600000");
            }
            if (estimateMaxJobs < 0) {
                throw new IllegalArgumentException("--estimate-max-jobs must not be negative");
            }
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.println("usage: bench [--nodes 12500] [--gpus-per-node 8] [--pending 100000] [--seed 1]"
                    + " [--estimate-budget-ms 2000] [--estimate-max-jobs 0]");
            return 2;
        }
        Snapshot snapshot = build(nodes, gpus, pendingCount, seed);
        Engine engine = new Engine();
        double[] ms = new double[MEASURED];
        double[] cpuMs = new double[MEASURED];
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Plan plan = null;
        for (int k = 0; k < WARMUP + MEASURED; k++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            plan = engine.plan(snapshot);
            double elapsed = (System.nanoTime() - t0) / 1e6;
            double cpu = (threads.getCurrentThreadCpuTime() - c0) / 1e6;
            if (k >= WARMUP) {
                ms[k - WARMUP] = elapsed;
                cpuMs[k - WARMUP] = cpu;
            }
        }
        Arrays.sort(ms);
        Arrays.sort(cpuMs);
        // The expected-start pass after the plan, within the budget (0: none; slow with 100,000 jobs).
        double[] estimateMs = new double[MEASURED];
        double[] estimateCpuMs = new double[MEASURED];
        StartEstimates estimates = null;
        for (int k = 0; k < WARMUP + MEASURED; k++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            estimates = engine.estimateStarts(snapshot, plan, new StartEstimator.Budget(estimateMaxJobs,
                    estimateBudgetMs * 1_000_000L));
            if (k >= WARMUP) {
                estimateMs[k - WARMUP] = (System.nanoTime() - t0) / 1e6;
                estimateCpuMs[k - WARMUP] = (threads.getCurrentThreadCpuTime() - c0) / 1e6;
            }
        }
        Arrays.sort(estimateMs);
        Arrays.sort(estimateCpuMs);
        // Passes that go on where the last stopped (as the controller's are): how many until every job has a time.
        StringBuilder chain = new StringBuilder();
        if (estimates.cutShort()) {
            StartEstimates last = null;
            for (int pass = 1; pass <= MAX_CHAINED_PASSES; pass++) {
                long c0 = threads.getCurrentThreadCpuTime();
                last = engine.estimateStarts(snapshot, plan, new StartEstimator.Budget(estimateMaxJobs,
                        estimateBudgetMs * 1_000_000L), last);
                long overBudget = last.estimates().stream()
                        .filter(e -> e.missing() == StartEstimate.Missing.OVER_BUDGET).count();
                chain.append(String.format(Locale.ROOT,
                        "%n  pass=%d estimated=%d rough=%d carried=%d over_budget=%d cpu_ms=%.1f", pass,
                        last.estimated(), last.rough(), last.carried(), overBudget,
                        (threads.getCurrentThreadCpuTime() - c0) / 1e6));
                if (overBudget == 0 && last.rough() == 0) {
                    break;
                }
            }
        }
        long heapPeak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                heapPeak += pool.getPeakUsage().getUsed();
            }
        }
        long reserved = plan.waiting().stream().filter(w -> w.reserved()).count();
        out.println(String.format(Locale.ROOT, "nodes=%d gpus=%d pending=%d running=%d started=%d cycle_ms=%.1f heap_mb=%d",
                nodes, (long) nodes * gpus, pendingCount, snapshot.running().size(), plan.starts().size(),
                ms[MEASURED / 2], heapPeak / (1024 * 1024)));
        // CPU time of the planning thread: what the cycle costs when the machine is shared.
        err.println(String.format(Locale.ROOT, "reserved=%d min_cycle_ms=%.1f max_cycle_ms=%.1f cycle_cpu_ms=%.1f",
                reserved, ms[0], ms[MEASURED - 1], cpuMs[MEASURED / 2]));
        err.println(String.format(Locale.ROOT, "estimate_budget_ms=%d estimate_ms=%.1f estimate_cpu_ms=%.1f estimated=%d"
                + " rough=%d without_estimate=%d cut_short=%b", estimateBudgetMs, estimateMs[MEASURED / 2],
                estimateCpuMs[MEASURED / 2], estimates.estimated(), estimates.rough(),
                estimates.estimates().size() - estimates.estimated(), estimates.cutShort()));
        if (!chain.isEmpty()) {
            err.println("passes going on where the last stopped (same snapshot):" + chain);
        }
        if (estimates.rough() > 0) {
            err.println(roughAgainstExact(estimates, engine.estimateStarts(snapshot, plan, StartEstimator.Budget.UNLIMITED)));
        }
        return 0;
    }

    /** How far the first pass's rough times are from the times a pass without a budget gives the same jobs. */
    static String roughAgainstExact(StartEstimates budgeted, StartEstimates exact) {
        Map<JobId, StartEstimate> full = exact.byJob();
        List<Long> diffs = new ArrayList<>();
        List<Long> waits = new ArrayList<>();
        List<Double> relative = new ArrayList<>();
        long earlier = 0;
        long sum = 0;
        for (StartEstimate e : budgeted.estimates()) {
            StartEstimate x = full.get(e.job());
            if (e.rough() && x != null && x.start().isPresent()) {
                long d = e.start().getAsLong() - x.start().getAsLong();
                long wait = x.start().getAsLong() - exact.now();
                diffs.add(Math.abs(d));
                waits.add(wait);
                relative.add(Math.abs(d) / (double) Math.max(60, wait));
                sum += Math.abs(d);
                earlier += d < 0 ? 1 : 0;
            }
        }
        if (diffs.isEmpty()) {
            return "rough_vs_exact: jobs=0";
        }
        Collections.sort(diffs);
        Collections.sort(waits);
        Collections.sort(relative);
        int n = diffs.size();
        return String.format(Locale.ROOT, "rough_vs_exact: jobs=%d exact_wait_median_s=%d mean_abs_s=%.0f"
                + " median_abs_s=%d p90_abs_s=%d median_relative=%.2f p90_relative=%.2f rough_earlier=%.1f%%", n,
                waits.get(n / 2), (double) sum / n, diffs.get(n / 2), diffs.get(n * 9 / 10), relative.get(n / 2),
                relative.get(n * 9 / 10), 100.0 * earlier / n);
    }

    static Snapshot build(int nodeCount, int gpusPerNode, int pendingCount, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int width = String.valueOf(nodeCount).length();
        List<Node> nodes = new ArrayList<>(nodeCount);
        List<String> all = new ArrayList<>(nodeCount);
        List<Switch> switches = new ArrayList<>();
        switches.add(new Switch("core", null));
        for (int i = 0; i < nodeCount; i++) {
            String name = String.format("gpu%0" + width + "d", i);
            if (i % 32 == 0) {
                switches.add(new Switch("leaf" + i / 32, "core"));
            }
            Set<String> features = i % 2 == 0 ? Set.of("ib", "nvme") : Set.of("ib");
            nodes.add(new Node(name, CPUS, MEMORY_MB, gpusPerNode, i % 3 == 2 ? "a100" : "h100", features,
                    i % 500 == 7 ? NodeState.DRAIN : NodeState.UP, "leaf" + i / 32, "block" + i / 18));
            all.add(name);
        }
        int debugNodes = Math.max(1, nodeCount / 25);
        List<Partition> partitions = List.of(
                new Partition("gpu", all, 172_800, 1, true),
                new Partition("debug", all.subList(0, debugNodes), 7_200, 2, true),
                new Partition("long", all.subList(nodeCount - Math.max(1, nodeCount / 3), nodeCount), 7 * 86_400, 0,
                        true));

        // About 90% of GPUs busy: whole-node jobs in runs over neighbouring nodes, and small jobs.
        List<RunningJob> running = new ArrayList<>();
        long id = 1;
        int i = 0;
        int gpuShare = gpusPerNode == 0 ? CPUS : CPUS / gpusPerNode;
        while (i < nodeCount) {
            if (r.nextInt(100) < 80) {
                int span = Math.min(nodeCount - i, r.nextInt(4) == 0 ? 1 + r.nextInt(16) : 1);
                List<NodeAllocation> alloc = new ArrayList<>();
                for (int k = 0; k < span; k++) {
                    alloc.add(new NodeAllocation(all.get(i + k), CPUS, MEMORY_MB / 2, range(0, gpusPerNode)));
                }
                running.add(runningJob(id++, r, alloc));
                i += span;
            } else {
                int busy = gpusPerNode == 0 ? 0 : r.nextInt(gpusPerNode);
                int g = 0;
                while (g < busy) {
                    int size = Math.min(busy - g, 1 << r.nextInt(3));
                    running.add(runningJob(id++, r, List.of(new NodeAllocation(all.get(i), size * gpuShare,
                            size * 64_000L, range(g, g + size)))));
                    g += size;
                }
                i++;
            }
        }

        List<PendingJob> pending = new ArrayList<>(pendingCount);
        for (int k = 0; k < pendingCount; k++) {
            Request.Builder req = Request.builder();
            int kind = r.nextInt(100);
            if (kind < 35 && gpusPerNode > 0) {
                req.gpus(1).cpusPerTask(gpuShare).memoryMb(64_000);
            } else if (kind < 50 && gpusPerNode > 0) {
                int g = Math.min(gpusPerNode, 2 << r.nextInt(2));
                req.gpus(g).tasks(g).cpusPerTask(gpuShare);
            } else if (kind < 65 && gpusPerNode > 0) {
                req.nodes(1).gpusPerNode(gpusPerNode).tasks(gpusPerNode).cpusPerTask(gpuShare);
            } else if (kind < 80 && gpusPerNode > 0) {
                int n = 2 + r.nextInt(15);
                req.nodes(n).gpusPerNode(gpusPerNode).tasks(n * gpusPerNode).oneBlock(n <= 18 && r.nextBoolean());
            } else if (kind < 85 && gpusPerNode > 0) {
                int n = 32 + r.nextInt(97);
                req.nodes(n).gpusPerNode(gpusPerNode).tasks(n);
            } else if (kind < 86 && gpusPerNode > 0) {
                int n = 256 + r.nextInt(257);
                req.nodes(Math.min(n, nodeCount)).gpusPerNode(gpusPerNode).tasks(Math.min(n, nodeCount));
            } else {
                req.tasks(1 + r.nextInt(256)).cpusPerTask(1 + r.nextInt(4));
            }
            if (r.nextInt(25) == 0) {
                req.constraint("nvme");
            } else if (r.nextInt(25) == 0 && gpusPerNode > 0 && kind < 86) {
                req.gpuType("a100");
            }
            long limit = LIMITS[r.nextInt(LIMITS.length)];
            List<String> parts;
            int p = r.nextInt(10);
            if (p == 0 && limit <= 7_200) {
                parts = List.of("debug");
            } else if (p == 1) {
                parts = List.of("long");
            } else if (p == 2) {
                parts = List.of("gpu", "long");
            } else {
                parts = List.of("gpu");
            }
            pending.add(new PendingJob(JobId.of(1_000_000 + k), "user" + r.nextInt(500), "acct" + r.nextInt(50),
                    r.nextInt(10) == 0 ? "high" : "normal", parts, req.build(), limit, NOW - r.nextInt(3 * 86_400),
                    0, 0, null));
        }
        List<Association> assocs = new ArrayList<>();
        for (int a = 0; a < 50; a++) {
            assocs.add(Association.ofAccount("acct" + a, r.nextDouble()));
        }
        List<Qos> qos = List.of(Qos.named("normal", 10), Qos.named("high", 100));
        return new Snapshot(NOW, nodes, partitions, switches, running, pending, qos, assocs, Policy.defaults());
    }

    private static RunningJob runningJob(long id, SplittableRandom r, List<NodeAllocation> alloc) {
        long remaining = 60 + (long) Math.exp(r.nextDouble() * Math.log(172_800));
        return new RunningJob(JobId.of(id), "user" + r.nextInt(500), "acct" + r.nextInt(50), "normal", "gpu", alloc,
                NOW - 3600, NOW + remaining);
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> l = new ArrayList<>(to - from);
        for (int g = from; g < to; g++) {
            l.add(g);
        }
        return l;
    }
}
