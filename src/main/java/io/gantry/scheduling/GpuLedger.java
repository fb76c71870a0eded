package io.gantry.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;
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
    private final JdbcTemplate batch;

    GpuLedger(JdbcClient jdbc, JdbcTemplate batch) {
        this.jdbc = jdbc;
        this.batch = batch;
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

    void release(List<Long> jobRows) {
        for (int from = 0; from < jobRows.size(); from += 500) {
            List<Long> chunk = jobRows.subList(from, Math.min(from + 500, jobRows.size()));
            jdbc.sql("DELETE FROM gpu_allocations WHERE job_row IN (:rows)").param("rows", chunk).update();
        }
    }

    /** Rows whose job no longer runs: left by a crash between writes that were not one transaction. */
    int releaseOrphans() {
        return jdbc.sql("DELETE FROM gpu_allocations WHERE job_row NOT IN "
                + "(SELECT id FROM jobs WHERE state IN ('RUNNING', 'COMPLETING'))").update();
    }
}
