package io.gantry.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * Turns the scheduler's latest {@link ClusterFigures} into Prometheus gauges at scrape time. It is
 * registered on the same Prometheus registry as Micrometer's meters, so {@code /metrics} (and
 * {@code /actuator/prometheus}) show these beside every meter other features register (the GPU
 * gauges of GPU sampling, the scheduler's timer). A scrape only reads the figures the scheduler
 * last handed over: no query, no lock. Names follow Slurm 25.11's metrics where Slurm has the
 * figure ({@code slurm_*}), and are {@code gantry_*} where it has none; each labelled family is
 * capped at {@code maxLabelValues} values ({@link LabelCap}).
 */
public final class ClusterCollector implements MultiCollector {

    /** How long a scrape waits for the scheduler's next figures when the last are stale. */
    private static final long MAX_WAIT_NANOS = 2_000_000_000L;

    private final int maxLabelValues;
    /** Figures older than this are worked out again for a scrape, which waits for them. */
    private final long staleNanos;
    private volatile ClusterFigures figures = ClusterFigures.notLeader();
    private volatile long publishedAt = System.nanoTime();
    private volatile long lastScrape;
    private volatile boolean scraped;

    /** A collector that serves whatever it was last given, however old. */
    public ClusterCollector(int maxLabelValues) {
        this(maxLabelValues, Long.MAX_VALUE);
    }

    /**
     * {@code staleNanos}: a scrape that finds figures older than this waits (at most two seconds) for the
     * scheduler to work out new ones, which it does when asked ({@link #scrapedSince}) rather than every
     * second for nobody.
     */
    public ClusterCollector(int maxLabelValues, long staleNanos) {
        this.maxLabelValues = maxLabelValues;
        this.staleNanos = staleNanos;
    }

    /** The scheduler's newest figures; the next scrape shows them, and a waiting scrape goes on. */
    public void publish(ClusterFigures latest) {
        synchronized (this) {
            this.figures = latest;
            this.publishedAt = System.nanoTime();
            notifyAll();
        }
    }

    /** Whether anything scraped (or is waiting) since {@code nanos} ({@link System#nanoTime()}). */
    public boolean scrapedSince(long nanos) {
        return scraped && lastScrape - nanos > 0;
    }

    /** The figures to show now: the last ones, or, when they are stale on the leader, the next ones. */
    private ClusterFigures current() {
        long asked = System.nanoTime();
        lastScrape = asked;
        scraped = true;
        ClusterFigures f = figures;
        if (!f.leader() || asked - publishedAt <= staleNanos) {
            return f;
        }
        synchronized (this) {
            long left = MAX_WAIT_NANOS;
            while (publishedAt - asked < 0 && left > 0) {
                try {
                    java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                left = MAX_WAIT_NANOS - (System.nanoTime() - asked);
            }
            return figures;
        }
    }

    public ClusterFigures figures() {
        return figures;
    }

    @Override
    public MetricSnapshots collect() {
        ClusterFigures f = current();
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(gauge("gantry_scheduler_leader", "1 when this controller schedules (and so has the cluster's "
                + "figures below), 0 on a follower", f.leader() ? 1 : 0));
        if (!f.leader()) {
            return new MetricSnapshots(out);
        }
        Map<String, Integer> folded = new TreeMap<>();
        scheduler(f, out, folded);
        jobs(f, out);
        nodes(f, out);
        partitions(f, out, folded);
        holders(f, out, folded);
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name("gantry_metrics_label_values_folded")
                .help("Values of the label beyond gantry.metrics.max-label-values, shown summed as \"other\"");
        folded.forEach((label, n) -> b.dataPoint(GaugeDataPointSnapshot.builder().labels(Labels.of("label", label))
                .value(n).build()));
        out.add(b.build());
        return new MetricSnapshots(out);
    }

    private void scheduler(ClusterFigures f, List<MetricSnapshot> out, Map<String, Integer> folded) {
        ClusterFigures.Scheduler s = f.scheduler();
        out.add(gauge("slurm_schedule_cycle_cnt", "Scheduling cycles since this controller started",
                s.cycles()));
        out.add(gauge("slurm_schedule_cycle_last", "Last scheduling cycle time (microseconds)", s.lastCycleMicros()));
        out.add(gauge("slurm_schedule_cycle_max", "Max scheduling cycle time (microseconds)", s.maxCycleMicros()));
        out.add(gauge("slurm_sched_mean_cycle", "Mean scheduling cycle time (microseconds)", s.meanCycleMicros()));
        out.add(gauge("slurm_schedule_queue_len", "Pending jobs that may start now (not held, no dependency or "
                + "begin time to wait for)", s.queueLength()));
        out.add(gauge("slurm_bf_last_depth", "Pending jobs the last full pass (with backfill) planned",
                s.backfillDepth()));
        out.add(gauge("slurm_backfilled_jobs", "Jobs started by backfill since this controller started",
                s.backfilledJobs()));
        labelled(out, "gantry_jobs_pending_reason", "Pending jobs by the reason they wait (squeue's REASON)",
                "reason", f.pendingByReason(), n -> n, Integer::sum, n -> n, folded);
    }

    private static void jobs(ClusterFigures f, List<MetricSnapshot> out) {
        ClusterFigures.Jobs j = f.jobs();
        out.add(gauge("slurm_jobs_running", "Jobs in Running state", j.running()));
        out.add(gauge("slurm_jobs_pending", "Jobs in Pending state", j.pending()));
        out.add(gauge("slurm_jobs_suspended", "Jobs in Suspended state", j.suspended()));
        out.add(gauge("slurm_jobs_completing", "Jobs in Completing state", j.completing()));
        out.add(gauge("slurm_jobs_hold", "Pending jobs that are held", j.held()));
        out.add(gauge("slurm_jobs_gpus_alloc", "GPUs held by running and completing jobs", j.gpusAllocated()));
    }

    private static void nodes(ClusterFigures f, List<MetricSnapshot> out) {
        int total = 0;
        for (int n : f.nodesByState().values()) {
            total += n;
        }
        out.add(gauge("slurm_nodes", "Nodes", total));
        for (String state : ClusterFigures.NODE_STATES) {
            out.add(gauge("slurm_nodes_" + state, "Nodes in state " + state, f.nodesByState().getOrDefault(state, 0)));
        }
        out.add(gauge("slurm_nodes_drain", "Nodes with the Drain flag (draining and drained)",
                f.nodesByState().getOrDefault("draining", 0) + f.nodesByState().getOrDefault("drained", 0)));
    }

    private void partitions(ClusterFigures f, List<MetricSnapshot> out, Map<String, Integer> folded) {
        LabelCap.Folded<ClusterFigures.Partition> p = LabelCap.fold(f.partitions(), maxLabelValues,
                ClusterFigures.Partition::weight, ClusterFigures.Partition::plus);
        out.add(gauge("slurm_partitions", "Partitions", f.partitions().size()));
        Map<String, ClusterFigures.Partition> parts = p.values();
        part(out, "slurm_partition_nodes", "Nodes in the partition", parts, ClusterFigures.Partition::nodes);
        for (String state : ClusterFigures.NODE_STATES) {
            part(out, "slurm_partition_nodes_" + state, "The partition's nodes in state " + state, parts,
                    x -> x.nodesByState().getOrDefault(state, 0));
        }
        part(out, "slurm_partition_nodes_drain", "The partition's nodes with the Drain flag", parts,
                x -> x.nodesByState().getOrDefault("draining", 0) + x.nodesByState().getOrDefault("drained", 0));
        part(out, "slurm_partition_gpus", "GPUs on the partition's nodes", parts, ClusterFigures.Partition::gpus);
        part(out, "gantry_partition_gpus_alloc", "GPUs on the partition's nodes held by jobs (of any partition)",
                parts, ClusterFigures.Partition::gpusAllocated);
        part(out, "gantry_partition_gpus_idle", "GPUs on the partition's usable nodes that no job holds", parts,
                ClusterFigures.Partition::gpusIdle);
        part(out, "gantry_partition_gpus_down", "GPUs on the partition's down, drained or draining nodes that no "
                + "job holds", parts, ClusterFigures.Partition::gpusDown);
        part(out, "slurm_partition_jobs_gpus_alloc", "GPUs held by the jobs running in the partition", parts,
                ClusterFigures.Partition::jobsGpusAllocated);
        part(out, "slurm_partition_jobs_running", "Jobs running in the partition", parts,
                ClusterFigures.Partition::jobsRunning);
        part(out, "slurm_partition_jobs_pending", "Jobs pending for the partition (a job that names several "
                + "counts in each)", parts, ClusterFigures.Partition::jobsPending);
        folded.put("partition", p.folded());
    }

    private void holders(ClusterFigures f, List<MetricSnapshot> out, Map<String, Integer> folded) {
        LabelCap.Folded<ClusterFigures.Holder> a = LabelCap.fold(f.accounts(), maxLabelValues,
                ClusterFigures.Holder::weight, ClusterFigures.Holder::plus);
        holder(out, "slurm_account_jobs_running", "The account's running jobs", "account", a,
                ClusterFigures.Holder::running);
        holder(out, "slurm_account_jobs_pending", "The account's pending jobs", "account", a,
                ClusterFigures.Holder::pending);
        holder(out, "slurm_account_jobs_gpus_alloc", "GPUs the account's running jobs hold", "account", a,
                ClusterFigures.Holder::gpus);
        folded.put("account", a.folded());
        LabelCap.Folded<ClusterFigures.Holder> u = LabelCap.fold(f.users(), maxLabelValues,
                ClusterFigures.Holder::weight, ClusterFigures.Holder::plus);
        holder(out, "slurm_user_jobs_running", "The user's running jobs", "username", u,
                ClusterFigures.Holder::running);
        holder(out, "slurm_user_jobs_pending", "The user's pending jobs", "username", u,
                ClusterFigures.Holder::pending);
        holder(out, "slurm_user_jobs_gpus_alloc", "GPUs the user's running jobs hold", "username", u,
                ClusterFigures.Holder::gpus);
        folded.put("username", u.folded());
    }

    private static void part(List<MetricSnapshot> out, String name, String help,
            Map<String, ClusterFigures.Partition> parts, ToDoubleFunction<ClusterFigures.Partition> value) {
        series(out, name, help, "partition", parts, value);
    }

    private static void holder(List<MetricSnapshot> out, String name, String help, String label,
            LabelCap.Folded<ClusterFigures.Holder> folded, ToDoubleFunction<ClusterFigures.Holder> value) {
        series(out, name, help, label, folded.values(), value);
    }

    private <T> void labelled(List<MetricSnapshot> out, String name, String help, String label, Map<String, T> values,
            java.util.function.ToLongFunction<T> weight, java.util.function.BinaryOperator<T> merge,
            ToDoubleFunction<T> value, Map<String, Integer> folded) {
        LabelCap.Folded<T> f = LabelCap.fold(values, maxLabelValues, weight, merge);
        series(out, name, help, label, f.values(), value);
        folded.put(label, f.folded());
    }

    private static <T> void series(List<MetricSnapshot> out, String name, String help, String label,
            Map<String, T> values, ToDoubleFunction<T> value) {
        if (values.isEmpty()) {
            return;
        }
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        values.forEach((k, v) -> b.dataPoint(GaugeDataPointSnapshot.builder().labels(Labels.of(label, k))
                .value(value.applyAsDouble(v)).build()));
        out.add(b.build());
    }

    private static MetricSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder().name(name).help(help)
                .dataPoint(GaugeDataPointSnapshot.builder().value(value).build()).build();
    }
}
