package io.gantry.scheduling;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.DependencySpec;
import io.gantry.jobs.JobOutcome;
import io.gantry.jobs.JobState;

/**
 * Judges Slurm dependencies ({@code after}, {@code afterany}, {@code afterok}, {@code afternotok},
 * {@code aftercorr}, {@code singleton}; {@code ,} all of, {@code ?} any of) against the jobs they name.
 */
final class Dependencies {

    enum Status { SATISFIED, WAITING, NEVER }

    private final Map<Long, List<JobOutcome>> byJob = new HashMap<>();
    private final Map<String, List<JobOutcome>> activeByUserAndName = new HashMap<>();
    private final Instant now;

    Dependencies(Collection<JobOutcome> referenced, Collection<ActiveJob> active, Instant now) {
        this.now = now;
        for (JobOutcome o : referenced) {
            byJob.computeIfAbsent(o.jobId(), k -> new ArrayList<>()).add(o);
        }
        for (ActiveJob j : active) {
            activeByUserAndName.computeIfAbsent(j.user() + "\n" + j.name(), k -> new ArrayList<>())
                    .add(new JobOutcome(j.jobId(), j.arrayTaskId(), j.name(), j.user(), j.state(), j.startTime(),
                            j.submitTime()));
        }
    }

    /** The job ids that the given pending jobs' dependencies name. */
    static Set<Long> referencedIds(Collection<ActiveJob> jobs) {
        Set<Long> ids = new HashSet<>();
        for (ActiveJob job : jobs) {
            if (job.dependency() != null) {
                for (DependencySpec.Condition c : DependencySpec.parse(job.dependency()).conditions()) {
                    ids.add(c.jobId());
                }
            }
        }
        return ids;
    }

    Status of(ActiveJob job) {
        if (job.dependency() == null) {
            return Status.SATISFIED;
        }
        DependencySpec spec = DependencySpec.parse(job.dependency());
        List<Status> each = new ArrayList<>(spec.conditions().stream().map(c -> of(job, c)).toList());
        if (spec.singleton()) {
            each.add(singleton(job));
        }
        if (spec.anyOf()) {
            if (each.contains(Status.SATISFIED)) {
                return Status.SATISFIED;
            }
            return each.stream().allMatch(s -> s == Status.NEVER) ? Status.NEVER : Status.WAITING;
        }
        if (each.contains(Status.NEVER)) {
            return Status.NEVER;
        }
        return each.stream().allMatch(s -> s == Status.SATISFIED) ? Status.SATISFIED : Status.WAITING;
    }

    /** Slurm's singleton: no earlier job of the same user and name is still pending or running. */
    private Status singleton(ActiveJob job) {
        boolean earlierActive = activeByUserAndName.getOrDefault(job.user() + "\n" + job.name(), List.of())
                .stream()
                .anyMatch(o -> o.jobId() < job.jobId() && !o.state().isFinished());
        return earlierActive ? Status.WAITING : Status.SATISFIED;
    }

    /**
     * What becomes of a job whose dependency can never be satisfied: cancelled when it asked so
     * ({@code --kill-on-invalid-dep=yes}), or when it said nothing and the cluster kills such jobs (Slurm's
     * {@code DependencyParameters=kill_invalid_depend}); else it pends with reason DependencyNeverSatisfied.
     */
    static boolean cancelledWhenNever(ActiveJob job, boolean clusterKills) {
        return job.killOnInvalidDep() != null ? job.killOnInvalidDep() : clusterKills;
    }

    private Status of(ActiveJob job, DependencySpec.Condition c) {
        List<JobOutcome> targets = byJob.getOrDefault(c.jobId(), List.of()).stream()
                .filter(o -> c.arrayTaskId() == null || o.arrayTaskId() == c.arrayTaskId())
                .toList();
        if (targets.isEmpty()) {
            return Status.NEVER;
        }
        if (c.type() == DependencySpec.Type.AFTERCORR && c.arrayTaskId() == null && job.arrayTaskId() >= 0) {
            // The corresponding task, where the other array has one; else the whole other job, as in Slurm.
            List<JobOutcome> corresponding = targets.stream().filter(o -> o.arrayTaskId() == job.arrayTaskId()).toList();
            targets = corresponding.isEmpty() ? targets : corresponding;
        }
        return switch (c.type()) {
            case AFTER -> targets.stream().allMatch(o -> o.startTime() != null
                    && !o.startTime().plusSeconds(60L * c.delayMinutes()).isAfter(now))
                    ? Status.SATISFIED
                    : targets.stream().anyMatch(o -> o.state() == JobState.CANCELLED && o.startTime() == null)
                            ? Status.NEVER : Status.WAITING;
            case AFTERANY -> targets.stream().allMatch(o -> o.state().isFinished()) ? Status.SATISFIED : Status.WAITING;
            case AFTEROK, AFTERCORR -> {
                if (targets.stream().anyMatch(o -> o.state().isFinished() && o.state() != JobState.COMPLETED)) {
                    yield Status.NEVER;
                }
                yield targets.stream().allMatch(o -> o.state() == JobState.COMPLETED) ? Status.SATISFIED : Status.WAITING;
            }
            case AFTERNOTOK -> {
                if (targets.stream().anyMatch(o -> o.state() == JobState.COMPLETED)) {
                    yield Status.NEVER;
                }
                yield targets.stream().allMatch(o -> o.state().isFinished()) ? Status.SATISFIED : Status.WAITING;
            }
        };
    }
}
