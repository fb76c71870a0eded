package io.gantry.accounting;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Service;

import io.gantry.api.PageRequest;
import io.gantry.engine.Tres;
import io.gantry.jobs.JobHistory;
import io.gantry.jobs.JobIds;
import io.gantry.jobs.JobState;
import io.gantry.security.CurrentUser;

/**
 * sacct: one record per job or array task, read through the jobs feature's {@link JobHistory} (which
 * filters and sorts by job id in the database), figures computed per row. Running jobs accrue up to the
 * Clock's now. The jobs feature owns the table, as slurmdbd owns its job table: only records cross.
 */
@Service
class JobAccountingService {

    /** Jobs whose step lines are looked up together while a CSV export streams. */
    private static final int STEP_BATCH = 500;

    private final JobHistory history;
    private final JobStepSource stepSource;
    private final QuotaMarks marks;
    private final io.gantry.gpus.GpuSamples gpuSamples;
    private final Clock clock;
    private final io.gantry.cluster.ClusterLayout layout;

    JobAccountingService(JobHistory history, JobStepSource stepSource, QuotaMarks marks,
            io.gantry.gpus.GpuSamples gpuSamples, Clock clock, io.gantry.cluster.ClusterLayout layout) {
        this.layout = layout;
        this.history = history;
        this.stepSource = stepSource;
        this.marks = marks;
        this.gpuSamples = gpuSamples;
        this.clock = clock;
    }

    /** The filter as the caller may see it, with the default window taken from the Clock. */
    JobAccountingFilter filter(String start, String end, String user, String account, String state,
            String partition, String jobId) {
        return JobAccountingFilter.of(start, end, user, account, state, partition, jobId, clock.instant());
    }

    JobAccountingRecord.Page page(JobAccountingFilter filter, PageRequest page, CurrentUser caller) {
        return page(filter, page, caller, false);
    }

    /**
     * A page of jobs; with {@code includeSteps}, each job is followed by its steps' lines as sacct shows
     * them ({@code 42.batch}, {@code 42.0}, ...). Paging counts jobs, not lines.
     */
    JobAccountingRecord.Page page(JobAccountingFilter filter, PageRequest page, CurrentUser caller,
            boolean includeSteps) {
        Instant now = clock.instant();
        JobHistory.Page found = history.page(filter.history(), caller, page.size(), page.offset());
        List<JobAccountingRecord> items = withMarks(found.entries(), found.entries().stream().map(e -> record(e, now))
                .toList());
        if (includeSteps) {
            items = withSteps(items, now);
        }
        return new JobAccountingRecord.Page(items, page.page(), page.size(), found.total());
    }

    private List<JobAccountingRecord> withSteps(List<JobAccountingRecord> jobs, Instant now) {
        if (jobs.isEmpty()) {
            return jobs;
        }
        JobStepSource.Steps steps = stepSource.steps(jobs.stream().map(JobAccountingRecord::jobId).toList());
        List<JobAccountingRecord> lines = new ArrayList<>();
        for (JobAccountingRecord job : jobs) {
            lines.add(job);
            String host = steps.batchHosts().get(job.jobId());
            if (host != null && job.startTime() != null) {
                lines.add(batchLine(job, host));
            }
            for (JobStepSource.StepLine step : steps.steps().getOrDefault(job.jobId(), List.of())) {
                lines.add(stepLine(job, step, now));
            }
        }
        return lines;
    }

    /** The batch step: the job's own times and outcome, on its batch host. */
    private static JobAccountingRecord batchLine(JobAccountingRecord job, String host) {
        JobState state = job.state() == JobState.COMPLETING ? JobState.RUNNING : job.state();
        return new JobAccountingRecord(job.jobId() + ".batch", "batch", job.user(), job.account(), job.partition(),
                job.qos(), state, job.exitCode(), job.submitTime(), job.startTime(), job.endTime(),
                job.elapsedSeconds(), job.timeLimitSeconds(), null, 0, 0, host, null, null, null, null, null, null, null,
                job.containerImage(), job.containerImageDigest(), job.tresUsageInAve(), job.tresUsageInMax());
    }

    private static JobAccountingRecord stepLine(JobAccountingRecord job, JobStepSource.StepLine step, Instant now) {
        long elapsed = elapsedSeconds(step.startTime(), step.endTime(), now);
        return new JobAccountingRecord(job.jobId() + "." + step.stepId(), step.name(), job.user(), job.account(),
                job.partition(), job.qos(), step.state(), step.exitCode(), job.submitTime(), step.startTime(),
                step.endTime(), elapsed, job.timeLimitSeconds(), "cpu=" + step.cpus() + ",node=" + step.nodes(),
                Math.multiplyExact((long) step.cpus(), elapsed), 0, step.nodeList(), null, null, null, null, null, null,
                null, step.containerImage(), step.containerImageDigest());
    }

    /** Every matching row, as CSV, streamed so a year's export never sits in memory. */
    void csv(JobAccountingFilter filter, CurrentUser caller, Writer out) {
        csv(filter, caller, out, false);
    }

    /** As {@link #csv(JobAccountingFilter, CurrentUser, Writer)}, with step lines after each job when asked. */
    void csv(JobAccountingFilter filter, CurrentUser caller, Writer out, boolean includeSteps) {
        Instant now = clock.instant();
        // In batches: each job's borrowed marker (and its steps, when asked) is one query per batch, not per job.
        List<JobHistory.Entry> pending = new ArrayList<>();
        try {
            SacctCsv.writeHeader(out);
            history.each(filter.history(), caller, entry -> {
                pending.add(entry);
                if (pending.size() >= STEP_BATCH) {
                    writeBatch(out, pending, now, includeSteps);
                    pending.clear();
                }
            });
            writeBatch(out, pending, now, includeSteps);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeBatch(Writer out, List<JobHistory.Entry> entries, Instant now, boolean includeSteps) {
        List<JobAccountingRecord> lines = withMarks(entries, entries.stream().map(e -> record(e, now)).toList());
        write(out, includeSteps ? withSteps(lines, now) : lines);
    }

    private static void write(Writer out, List<JobAccountingRecord> records) {
        try {
            for (JobAccountingRecord r : records) {
                SacctCsv.writeRow(out, r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Each job's line with its borrowed marker from {@link QuotaMarks}. */
    private List<JobAccountingRecord> withMarks(List<JobHistory.Entry> entries, List<JobAccountingRecord> lines) {
        lines = withGpuUsage(lines);
        if (entries.isEmpty()) {
            return lines;
        }
        java.util.Map<QuotaMarks.Key, QuotaMarks.Mark> found = marks.of(entries.stream()
                .map(e -> new QuotaMarks.Key(e.jobId(), e.arrayTaskId())).toList());
        if (found.isEmpty()) {
            return lines;
        }
        List<JobAccountingRecord> out = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            JobHistory.Entry e = entries.get(i);
            QuotaMarks.Mark m = found.get(new QuotaMarks.Key(e.jobId(), e.arrayTaskId()));
            out.add(m == null ? lines.get(i) : lines.get(i).withQuota(true, m.reclaimedAt(), m.reclaimedFor()));
        }
        return out;
    }

    /** Each started job's line with its GPU use (TRESUsageInAve/Max) from {@link io.gantry.gpus.GpuSamples}. */
    private List<JobAccountingRecord> withGpuUsage(List<JobAccountingRecord> lines) {
        if (lines.isEmpty()) {
            return lines;
        }
        java.util.Map<String, io.gantry.gpus.GpuUsage> usage = gpuSamples.usage(lines.stream()
                .filter(l -> l.startTime() != null).map(JobAccountingRecord::jobId).toList());
        return usage.isEmpty() ? lines : lines.stream().map(l -> l.withGpuUsage(usage.get(l.jobId()))).toList();
    }

    private JobAccountingRecord record(JobHistory.Entry e, Instant now) {
        long elapsed = elapsedSeconds(e.startTime(), e.endTime(), now);
        Tres held = e.allocated();
        return new JobAccountingRecord(
                JobIds.format(e.jobId(), e.arrayTaskId()),
                e.name(), e.user(), e.account(),
                e.partition() != null ? e.partition() : e.partitions(),
                e.qos(), e.state(),
                e.exitCode(),
                e.submitTime(), e.startTime(), e.endTime(), elapsed, e.timeLimitSeconds(),
                allocTres(held, billing(e.partition(), held)),
                Math.multiplyExact(held.cpu(), elapsed),
                Math.multiplyExact(held.gpus(), elapsed),
                e.allocatedNodes(),
                e.usage().maxRssBytes(), SacctUsage.maxRss(e.usage().maxRssBytes()),
                e.usage().totalCpuMillis(), SacctUsage.totalCpu(e.usage().totalCpuMillis()), false, null, null,
                e.containerImage(), e.containerImageDigest());
    }

    /** The billing TRES of what a job held in its partition (its TRESBillingWeights). */
    private long billing(String partition, Tres held) {
        io.gantry.cluster.ClusterLayout.PartitionSpec p = partition == null ? null : layout.partitions().get(partition);
        return (p == null ? io.gantry.cluster.ClusterLayout.DEFAULT_BILLING : p.billingWeights()).units(held);
    }

    /** Slurm's AllocTRES with its billing first, e.g. {@code billing=192,cpu=64,mem=256G,gres/gpu=8,node=1}. */
    static String allocTres(Tres held, long billing) {
        return held.isZero() ? null : "billing=" + billing + "," + held;
    }

    /** Slurm's AllocTRES, e.g. {@code cpu=64,mem=256G,gres/gpu=8,node=1}; null when nothing was allocated. */
    static String allocTres(Tres held) {
        return held.isZero() ? null : held.toString();
    }

    /** End (or now, while it runs) minus start, in whole seconds; 0 if it never started. */
    static long elapsedSeconds(Instant start, Instant end, Instant now) {
        if (start == null) {
            return 0;
        }
        // Whole seconds of the clock, as Slurm stores times: the same count fair share and the
        // utilization rollups add up, however a job's run is split between their periods.
        return Math.max(0, (end != null ? end : now).getEpochSecond() - start.getEpochSecond());
    }
}
