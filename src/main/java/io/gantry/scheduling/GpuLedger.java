package io.gantry.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobUsage;

/**
 * The table of allocated GPUs, one row per (node, index). Its primary key is the store's own
 * guarantee that no GPU is ever given to two jobs: a second insert fails the whole transaction.
 */
@Component
class GpuLedger {

    private final JdbcClient jdbc;
    private final JdbcTemplate batch;
    private final JobUsage jobs;

    GpuLedger(JdbcClient jdbc, JdbcTemplate batch, JobUsage jobs) {
        this.jdbc = jdbc;
        this.batch = batch;
        this.jobs = jobs;
    }

    /** Holds every GPU of the jobs started in this transaction, in one batch; a GPU held twice fails it. */
    void hold(Map<Long, List<JobAllocation>> allocations) {
        List<Object[]> rows = new ArrayList<>();
        allocations.forEach((jobRow, allocation) -> {
            for (JobAllocation a : allocation) {
                for (int index : a.gpuIndices()) {
                    rows.add(new Object[] {a.node(), index, jobRow});
                }
            }
        });
        if (!rows.isEmpty()) {
            batch.batchUpdate("INSERT INTO gpu_allocations (node, gpu_index, job_row) VALUES (?, ?, ?)", rows);
        }
    }

    /** Whether none of these GPUs is held by a job now. */
    boolean free(List<JobAllocation> allocation) {
        for (JobAllocation a : allocation) {
            for (int index : a.gpuIndices()) {
                Integer held = jdbc.sql("SELECT COUNT(*) FROM gpu_allocations WHERE node = :node AND gpu_index = :index")
                        .param("node", a.node()).param("index", index).query(Integer.class).single();
                if (held != null && held > 0) {
                    return false;
                }
            }
        }
        return true;
    }

    void release(List<Long> jobRows) {
        for (int from = 0; from < jobRows.size(); from += 500) {
            List<Long> chunk = jobRows.subList(from, Math.min(from + 500, jobRows.size()));
            jdbc.sql("DELETE FROM gpu_allocations WHERE job_row IN (:rows)").param("rows", chunk).update();
        }
    }

    /**
     * Rows whose job no longer runs: left by a crash between writes that were not one transaction.
     * The ledger is read before the jobs, so a job that starts in between keeps its GPUs; the jobs'
     * states come through the jobs feature, which owns their table. Returns how many GPUs were released.
     */
    int releaseOrphans() {
        List<Long> ledgered = jdbc.sql("SELECT DISTINCT job_row FROM gpu_allocations").query(Long.class).list();
        if (ledgered.isEmpty()) {
            return 0;
        }
        Set<Long> holding = jobs.holdingRows();
        List<Long> orphans = ledgered.stream().filter(row -> !holding.contains(row)).toList();
        int released = 0;
        for (int from = 0; from < orphans.size(); from += 500) {
            List<Long> chunk = orphans.subList(from, Math.min(from + 500, orphans.size()));
            released += jdbc.sql("DELETE FROM gpu_allocations WHERE job_row IN (:rows)").param("rows", chunk).update();
        }
        return released;
    }
}
