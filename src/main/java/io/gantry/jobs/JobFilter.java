package io.gantry.jobs;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import io.gantry.api.GantryException;

/**
 * {@code GET /jobs} filters; each one given must match ({@link JobLists} turns them into SQL).
 * {@code name} is exact, as squeue's {@code --name}; {@code nameContains} is a part of the name,
 * in any case, for a search box.
 */
record JobFilter(Set<JobState> states, String user, String account, String partition, String name, String nameContains,
        Long arrayJobId, Integer exitCode, String node) {

    static JobFilter of(String state, String user, String account, String partition, String name, Long arrayJobId) {
        return of(state, user, account, partition, name, null, arrayJobId);
    }

    static JobFilter of(String state, String user, String account, String partition, String name, String nameContains,
            Long arrayJobId) {
        return new JobFilter(states(state), blankToNull(user), blankToNull(account), blankToNull(partition),
                blankToNull(name), blankToNull(nameContains), arrayJobId, null, null);
    }

    /** This filter, and only jobs that ended with {@code exitCode} and that ran on {@code node}, where not null. */
    JobFilter endedWith(Integer exitCode, String node) {
        return new JobFilter(states, user, account, partition, name, nameContains, arrayJobId, exitCode, blankToNull(node));
    }

    /** The states of a comma list such as {@code PENDING,RUNNING} (any case); none for null or blank. */
    static Set<JobState> states(String state) {
        Set<JobState> states = EnumSet.noneOf(JobState.class);
        if (state != null && !state.isBlank()) {
            for (String part : state.split(",")) {
                try {
                    states.add(JobState.valueOf(part.strip().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw GantryException.badRequest("state", "'" + part.strip() + "' is not a job state; use "
                            + Arrays.toString(JobState.values()));
                }
            }
        }
        return states;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
