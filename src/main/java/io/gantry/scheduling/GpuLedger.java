package io.gantry.scheduling;

import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import io.gantry.jobs.JobAllocation;

/**
 * The table of allocated GPUs, one row per (node, index). Its primary key is the store's own
 * guarantee that no GPU is ever given to two jobs: a second insert fails the whole transaction.
 */
@Component
class GpuLedger {

    private final JdbcClient jdbc;

    GpuLedger(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void hold(long jobRow, List<JobAllocation> allocation) {
        for (JobAllocation a : allocation) {
            for (int index : a.gpuIndices()) {
                jdbc.sql("INSERT INTO gpu_allocations (node, gpu_index, job_row) VALUES (?, ?, ?)")
                        .params(a.node(), index, jobRow).update();
            }
        }
    }

    void release(long jobRow) {
        jdbc.sql("DELETE FROM gpu_allocations WHERE job_row = ?").param(jobRow).update();
    }

    /** Rows whose job no longer runs: left by a crash between writes that were not one transaction. */
    int releaseOrphans() {
        return jdbc.sql("DELETE FROM gpu_allocations WHERE job_row NOT IN "
                + "(SELECT id FROM jobs WHERE state IN ('RUNNING', 'COMPLETING'))").update();
    }
}
