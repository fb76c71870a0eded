package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import io.gantry.control.LeaderLock;
import io.gantry.jobs.JobService;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobSubmission;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.security.CurrentUser;
import io.gantry.security.Role;
import io.gantry.support.GantryIntegrationTest;

/** The worker's guarantees, driven cycle by cycle on real PostgreSQL. */
@GantryIntegrationTest
class SchedulingIntegrationTests {

    private static final CurrentUser ADMIN = new CurrentUser("admin", Set.of(Role.ADMIN));

    @Autowired
    SchedulerWorker worker;
    @Autowired
    SchedulingCycle cycle;
    @Autowired
    JobService jobs;
    @Autowired
    DataSource dataSource;
    @Autowired
    SchedulerProperties properties;

    @Test
    void aJobCancelledWhileACycleIsPlanningIsNeverStarted() {
        long id;
        SchedulingCycle.Planned planned;
        synchronized (worker) { // the worker thread cannot run a cycle while we hold this
            id = jobs.submit(job(), ADMIN).jobId();
            planned = cycle.plan();
            assertThat(planned.plan().starts()).as("the plan would start it")
                    .anyMatch(s -> s.job().id() == id);

            jobs.cancel(Long.toString(id), ADMIN);
            cycle.apply(planned);
        }
        JobView job = jobs.get(Long.toString(id), ADMIN);
        assertThat(job.state()).isEqualTo(JobState.CANCELLED);
        assertThat(job.startTime()).isNull();
        assertThat(job.allocation()).isEmpty();
        long held = JdbcClient.create(dataSource)
                .sql("SELECT count(*) FROM gpu_allocations g JOIN jobs j ON j.id = g.job_row WHERE j.job_id = ?")
                .param(id).query(Long.class).single();
        assertThat(held).isZero();
    }

    @Test
    void aPlanIsNotAppliedTwice() {
        long id;
        synchronized (worker) {
            id = jobs.submit(job(), ADMIN).jobId();
            SchedulingCycle.Planned planned = cycle.plan();
            SchedulingCycle.Outcome first = cycle.apply(planned);
            SchedulingCycle.Outcome again = cycle.apply(planned);
            assertThat(first.started()).isGreaterThanOrEqualTo(1);
            assertThat(again.started()).as("every start of a stale plan is refused").isZero();
        }
        assertThat(jobs.get(Long.toString(id), ADMIN).state()).isIn(JobState.RUNNING, JobState.COMPLETED);
        jobs.cancel(Long.toString(id), ADMIN);
    }

    @Test
    void onlyOneOfTwoControllersOnOneDatabaseSchedules() {
        LeaderLock first = new LeaderLock(dataSource, properties.advisoryLockKey());
        LeaderLock second = new LeaderLock(dataSource, properties.advisoryLockKey());
        try {
            // This context's own worker already holds the lock: neither newcomer may take it.
            assertThat(first.isLeader()).isFalse();
            assertThat(second.isLeader()).isFalse();
        } finally {
            first.close();
            second.close();
        }
        long otherKey = properties.advisoryLockKey() + 1;
        LeaderLock a = new LeaderLock(dataSource, otherKey);
        LeaderLock b = new LeaderLock(dataSource, otherKey);
        try {
            assertThat(a.isLeader()).isTrue();
            assertThat(b.isLeader()).as("a second controller waits while the first leads").isFalse();
            a.close();
            assertThat(b.isLeader()).as("and takes over when the first goes away").isTrue();
            assertThat(a.isLeader()).isFalse();
        } finally {
            a.close();
            b.close();
        }
    }

    private static JobSubmission job() {
        return new JobSubmission("race", null, "cpu", null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, 600L, null);
    }
}
