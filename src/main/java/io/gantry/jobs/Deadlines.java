package io.gantry.jobs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * {@code --deadline} (Slurm's): a pending job that can no longer end by its deadline (now plus its
 * {@code --time-min}, else its time limit, is later: slurmctld's "start > deadline - time[-min]") ends
 * DEADLINE without starting, and a running one whose deadline has come is stopped, to end DEADLINE when
 * its nodes confirm. Only the few jobs with a deadline are read, through the column's index.
 */
@Component
class Deadlines implements JobClockRule {

    private final JobRepository jobs;
    private final JobEventRepository events;
    private final JdbcTemplate jdbc;

    Deadlines(JobRepository jobs, JobEventRepository events, JdbcTemplate jdbc) {
        this.jobs = jobs;
        this.events = events;
        this.jdbc = jdbc;
    }

    @Override
    public Ended apply(Instant now) {
        List<Long> rows = jdbc.queryForList("SELECT id FROM jobs WHERE deadline IS NOT NULL"
                + " AND state || '' IN ('PENDING', 'RUNNING')", Long.class);
        List<Long> jobIds = new ArrayList<>();
        List<Long> stopping = new ArrayList<>();
        for (JobEntity job : rows.isEmpty() ? List.<JobEntity>of() : jobs.findAllById(rows)) {
            Instant deadline = job.options().deadline();
            if (job.state() == JobState.PENDING) {
                long shortest = job.timeMinSeconds() != null ? job.timeMinSeconds() : job.timeLimitSeconds();
                Instant earliestEnd = now.plusSeconds(Math.max(shortest, 0));
                if (!deadline.isBefore(earliestEnd) && deadline.isAfter(now)) {
                    continue;
                }
                job.endPending(JobState.DEADLINE, now);
                events.save(new JobEventEntity(job.id(), now, "DEADLINE", "cannot end by its deadline " + deadline
                        + ": started now it would end at " + earliestEnd + " at the earliest ("
                        + (job.timeMinSeconds() != null ? "time-min " : "time limit ") + shortest + " s); never started"));
            } else if (job.state() == JobState.RUNNING && !deadline.isAfter(now)) {
                job.stopToEnd(JobState.DEADLINE);
                events.save(new JobEventEntity(job.id(), now, "DEADLINE", "its deadline " + deadline
                        + " came while it ran; stopping on its nodes"));
                stopping.add(job.id());
            } else {
                continue;
            }
            jobIds.add(job.jobId());
        }
        return new Ended("DEADLINE", jobIds.stream().distinct().toList(), stopping);
    }
}
