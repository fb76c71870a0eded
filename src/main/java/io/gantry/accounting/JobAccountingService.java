package io.gantry.accounting;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

import org.springframework.stereotype.Service;

import io.gantry.api.PageRequest;
import io.gantry.engine.Tres;
import io.gantry.jobs.JobHistory;
import io.gantry.jobs.JobIds;
import io.gantry.security.CurrentUser;

/**
 * sacct: one record per job or array task, read through the jobs feature's {@link JobHistory} (which
 * filters and sorts by job id in the database), figures computed per row. Running jobs accrue up to the
 * Clock's now. The jobs feature owns the table, as slurmdbd owns its job table: only records cross.
 */
@Service
class JobAccountingService {

    private final JobHistory history;
    private final Clock clock;

    JobAccountingService(JobHistory history, Clock clock) {
        this.history = history;
        this.clock = clock;
    }

    /** The filter as the caller may see it, with the default window taken from the Clock. */
    JobAccountingFilter filter(String start, String end, String user, String account, String state,
            String partition, String jobId) {
        return JobAccountingFilter.of(start, end, user, account, state, partition, jobId, clock.instant());
    }

    JobAccountingRecord.Page page(JobAccountingFilter filter, PageRequest page, CurrentUser caller) {
        Instant now = clock.instant();
        JobHistory.Page found = history.page(filter.history(), caller, page.size(), page.offset());
        List<JobAccountingRecord> items = found.entries().stream().map(e -> record(e, now)).toList();
        return new JobAccountingRecord.Page(items, page.page(), page.size(), found.total());
    }

    /** Every matching row, as CSV, streamed so a year's export never sits in memory. */
    void csv(JobAccountingFilter filter, CurrentUser caller, Writer out) {
        Instant now = clock.instant();
        try {
            SacctCsv.writeHeader(out);
            history.each(filter.history(), caller, entry -> {
                try {
                    SacctCsv.writeRow(out, record(entry, now));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JobAccountingRecord record(JobHistory.Entry e, Instant now) {
        long elapsed = elapsedSeconds(e.startTime(), e.endTime(), now);
        Tres held = e.allocated();
        return new JobAccountingRecord(
                JobIds.format(e.jobId(), e.arrayTaskId()),
                e.name(), e.user(), e.account(),
                e.partition() != null ? e.partition() : e.partitions(),
                e.qos(), e.state(),
                e.exitCode(),
                e.submitTime(), e.startTime(), e.endTime(), elapsed, e.timeLimitSeconds(),
                allocTres(held),
                Math.multiplyExact(held.cpu(), elapsed),
                Math.multiplyExact(held.gpus(), elapsed),
                e.allocatedNodes(),
                e.usage().maxRssBytes(), SacctUsage.maxRss(e.usage().maxRssBytes()),
                e.usage().totalCpuMillis(), SacctUsage.totalCpu(e.usage().totalCpuMillis()));
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
