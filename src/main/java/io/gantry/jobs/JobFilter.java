package io.gantry.jobs;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import io.gantry.api.GantryException;

/** {@code GET /jobs} filters; each one given must match ({@link JobLists} turns them into SQL). */
record JobFilter(Set<JobState> states, String user, String account, String partition, String name, Long arrayJobId) {

    static JobFilter of(String state, String user, String account, String partition, String name, Long arrayJobId) {
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
                blankToNull(name), arrayJobId);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
