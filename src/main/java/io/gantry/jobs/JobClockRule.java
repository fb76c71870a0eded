package io.gantry.jobs;

import java.time.Instant;
import java.util.List;

/**
 * A rule by which time alone ends jobs, as {@code --deadline} does: the scheduler asks every rule (each a
 * bean) once a second, in one transaction before it plans ({@link SchedulerJobs#endByTheClock}), so the
 * jobs a rule ended are out of that plan. A rule ends pending jobs with {@link JobEntity#endPending} and
 * stops running ones with {@link JobEntity#stopToEnd}, and says so in each job's history.
 */
public interface JobClockRule {

    /** Ends or stops the jobs that are due at {@code now}. Runs in the caller's transaction. */
    Ended apply(Instant now);

    /**
     * What a rule did: the job ids it ended or stopped (published as a {@link JobsChanged} of kind
     * {@code change}) and the rows now stopping on their nodes (a {@link JobCancelRequested}).
     */
    record Ended(String change, List<Long> jobIds, List<Long> stopping) {

        public Ended {
            jobIds = List.copyOf(jobIds);
            stopping = List.copyOf(stopping);
        }

        public boolean isEmpty() {
            return jobIds.isEmpty() && stopping.isEmpty();
        }
    }
}
