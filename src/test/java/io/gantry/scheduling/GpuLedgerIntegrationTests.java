package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import io.gantry.jobs.JobService;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobSubmission;
import io.gantry.security.CurrentUser;
import io.gantry.security.Role;
import io.gantry.support.GantryIntegrationTest;

/** The GPU ledger after a crash: GPUs of jobs that no longer run are given back, a running job keeps its own. */
@GantryIntegrationTest
class GpuLedgerIntegrationTests {

    private static final CurrentUser ADMIN = new CurrentUser("admin", Set.of(Role.ADMIN));

    @Autowired
    GpuLedger ledger;
    @Autowired
    JobService jobs;
    @Autowired
    DataSource dataSource;

    @Test
    void gpusLeftToAJobThatDoesNotRunAreReleasedAndARunningJobKeepsItsOwn() {
        JdbcClient sql = JdbcClient.create(dataSource);
        long running = jobs.submit(job("ledger-running", false), ADMIN).jobId();
        long held = jobs.submit(job("ledger-held", true), ADMIN).jobId();
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> jobs.get(Long.toString(running), ADMIN).state() == JobState.RUNNING);
            long heldRow = sql.sql("SELECT id FROM jobs WHERE job_id = ?").param(held).query(Long.class).single();
            // What a crash between two writes could leave: GPUs booked to a job that never started.
            sql.sql("INSERT INTO gpu_allocations (node, gpu_index, job_row) VALUES ('ledger-test', 0, ?), "
                    + "('ledger-test', 1, ?)").params(heldRow, heldRow).update();

            int released = ledger.releaseOrphans();

            assertThat(released).as("both GPUs booked to the held job").isGreaterThanOrEqualTo(2);
            assertThat(gpusOf(sql, held)).isZero();
            assertThat(gpusOf(sql, running)).as("the running job's GPU stays booked").isEqualTo(1);
        } finally {
            jobs.cancel(Long.toString(running), ADMIN);
            jobs.cancel(Long.toString(held), ADMIN);
        }
    }

    private static long gpusOf(JdbcClient sql, long jobId) {
        return sql.sql("SELECT count(*) FROM gpu_allocations g JOIN jobs j ON j.id = g.job_row WHERE j.job_id = ?")
                .param(jobId).query(Long.class).single();
    }

    private static JobSubmission job(String name, boolean hold) {
        return tools.jackson.databind.json.JsonMapper.builder().build().convertValue(Map.of("name", name,
                "partition", "gpu", "gpus", 1, "timeLimitSeconds", 600, "hold", hold, "simulatedRunSeconds", 3600),
                JobSubmission.class);
    }
}
