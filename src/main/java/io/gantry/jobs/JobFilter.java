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
        Long arrayJobId) {

    static JobFilter of(String state, String user, String account, String partition, String name, Long arrayJobId) {
        return of(state, user, account, partition, name, null, arrayJobId);
    }

    static JobFilter of(String state, String user, String account, String partition, String name, String nameContains,
            Long arrayJobId) {
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
        return new JobFilter(states, blankToNull(user), blankToNull(account), blankToNull(partition),
                blankToNull(name), blankToNull(nameContains), arrayJobId);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
