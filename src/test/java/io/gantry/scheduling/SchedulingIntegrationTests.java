package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
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

    @Test
    void heldDependentAndBeginTimeJobsHaveTheirReasonAtOnceAndStayOutOfTheEnginesSnapshot() {
        synchronized (worker) {
            long held = jobs.submit(scripted("#SBATCH -H"), ADMIN).jobId();
            long dependent = jobs.submit(scripted("#SBATCH -d afterok:" + held), ADMIN).jobId();
            long later = jobs.submit(scripted("#SBATCH --begin=now+1hour"), ADMIN).jobId();
            long ready = jobs.submit(scripted(""), ADMIN).jobId();
            try {
                // What squeue shows right after the submission, before any cycle ran.
                assertThat(jobs.get(Long.toString(held), ADMIN).reason()).isEqualTo("JobHeldUser");
                assertThat(jobs.get(Long.toString(dependent), ADMIN).reason()).isEqualTo("Dependency");
                assertThat(jobs.get(Long.toString(later), ADMIN).reason()).isEqualTo("BeginTime");

                for (boolean full : new boolean[] {true, false}) {
                    SchedulingCycle.Planned planned = cycle.plan(full);
                    Set<Long> seen = new java.util.HashSet<>();
                    planned.byEngineId().values().forEach(j -> seen.add(j.jobId()));
                    assertThat(seen).as("full pass: %s", full).doesNotContain(held, dependent, later);
                    if (full) {
                        assertThat(seen).as("the job that may start is planned").contains(ready);
                    }
                    cycle.apply(planned);
                }
                assertThat(jobs.get(Long.toString(dependent), ADMIN).reason()).isEqualTo("Dependency");
                assertThat(jobs.get(Long.toString(later), ADMIN).reason()).isEqualTo("BeginTime");
                assertThat(jobs.get(Long.toString(held), ADMIN).state()).isEqualTo(JobState.PENDING);

                // Released, the held job enters the next snapshot; its dependent waits on until it completes.
                jobs.release(Long.toString(held), ADMIN);
                SchedulingCycle.Planned planned = cycle.plan(false);
                Set<Long> seen = new java.util.HashSet<>();
                planned.byEngineId().values().forEach(j -> seen.add(j.jobId()));
                assertThat(seen).contains(held).doesNotContain(dependent, later);
                cycle.apply(planned);
            } finally {
                for (long id : new long[] {held, dependent, later, ready}) {
                    try {
                        jobs.cancel(Long.toString(id), ADMIN);
                    } catch (RuntimeException alreadyEnded) {
                        // a cancelled job's cancel is a 409
                    }
                }
            }
        }
    }

    @Autowired
    LiveJobs live;

    @Test
    void theStateKeptUpToDateChangeByChangeIsWhatAFreshLoadFromTheStoreGives() {
        synchronized (worker) {
            List<Long> ids = new java.util.ArrayList<>();
            long held = jobs.submit(scripted("#SBATCH -H"), ADMIN).jobId();
            ids.add(held);
            ids.add(jobs.submit(scripted("#SBATCH -d afterok:" + held), ADMIN).jobId());
            ids.add(jobs.submit(scripted("#SBATCH --begin=now+1hour"), ADMIN).jobId());
            ids.add(jobs.submit(scripted("#SBATCH -a 0-5%2"), ADMIN).jobId());
            long released = jobs.submit(scripted("#SBATCH -H"), ADMIN).jobId();
            ids.add(released);
            long cancelled = jobs.submit(scripted(""), ADMIN).jobId();
            ids.add(cancelled);
            try {
                worker.runOnce();
                jobs.release(Long.toString(released), ADMIN);
                jobs.cancel(Long.toString(cancelled), ADMIN);
                worker.runOnce();
                cycle.run(false);
                // Jobs of other tests may end on their simulated nodes in between: compare again then.
                java.util.Map<Long, String> kept = null;
                java.util.Map<Long, String> loaded = null;
                for (int attempt = 0; attempt < 5 && (kept == null || !kept.equals(loaded)); attempt++) {
                    java.time.Instant now = java.time.Instant.now();
                    live.refresh(now);
                    kept = live.describe();
                    live.load(now);
                    loaded = live.describe();
                }
                assertThat(kept).isNotEmpty();
                assertThat(loaded).as("what a new leader would load").isEqualTo(kept);
            } finally {
                for (long id : ids) {
                    try {
                        jobs.cancel(Long.toString(id), ADMIN);
                    } catch (RuntimeException alreadyEnded) {
                        // a cancelled job's cancel is a 409
                    }
                }
            }
        }
    }

    private static JobSubmission scripted(String directives) {
        return tools.jackson.databind.json.JsonMapper.builder().build().convertValue(Map.of("name", "snap",
                "script", "#!/bin/bash\n" + directives + "\nhostname\n", "partition", "cpu", "simulatedRunSeconds", 600),
                JobSubmission.class);
    }

    private static JobSubmission job() {
        return tools.jackson.databind.json.JsonMapper.builder().build().convertValue(Map.of("name", "race",
                "partition", "cpu", "simulatedRunSeconds", 600), JobSubmission.class);
    }
}
