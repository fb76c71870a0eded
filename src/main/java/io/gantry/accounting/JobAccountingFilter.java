package io.gantry.accounting;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.gantry.api.GantryException;
import io.gantry.api.InputBounds;
import io.gantry.jobs.JobHistory;
import io.gantry.jobs.JobIds;
import io.gantry.jobs.JobState;

/**
 * The filters of {@code GET /accounting/jobs}, checked. The window [start, end) holds a job that was
 * eligible or running in it: started (or, never started, eligible) before {@code end} and not ended
 * before {@code start}. Like sacct, the window defaults to the last day, and to all time when jobs are
 * named by id. Empty sets mean "any".
 */
record JobAccountingFilter(Instant start, Instant end, Set<String> users, Set<String> accounts,
        Set<JobState> states, Set<String> partitions, List<JobIds.Parsed> jobIds) {

    static final Duration DEFAULT_WINDOW = Duration.ofDays(1);

    static JobAccountingFilter of(String start, String end, String user, String account, String state,
            String partition, String jobId, Instant now) {
        List<JobIds.Parsed> ids = jobIds(jobId);
        Instant from = instant("start", start);
        Instant to = instant("end", end);
        if (ids.isEmpty() || from != null || to != null) {
            if (to == null) {
                to = now;
            }
            if (from == null) {
                from = to.minus(DEFAULT_WINDOW);
            }
            if (from.isAfter(to)) {
                throw GantryException.badRequest("start", "must not be after end (" + to + (end == null ? ", now" : "")
                        + "), was " + from);
            }
        }
        return new JobAccountingFilter(from, to, names(user), names(account), states(state), names(partition), ids);
    }

    /** Whether only [start, end) matters: false when jobs are named by id and no window was asked for. */
    boolean hasWindow() {
        return start != null;
    }

    /** The same question, as the jobs feature's history answers it. */
    JobHistory.Filter history() {
        return new JobHistory.Filter(start, end, users, accounts, states, partitions, jobIds);
    }

    private static Instant instant(String parameter, String text) {
        return text == null || text.isBlank() ? null : InputBounds.parseInstant(parameter, text);
    }

    private static Set<String> names(String list) {
        Set<String> names = new LinkedHashSet<>();
        if (list != null) {
            for (String part : list.split(",")) {
                if (!part.isBlank()) {
                    names.add(part.strip());
                }
            }
        }
        return names;
    }

    private static Set<JobState> states(String list) {
        Set<JobState> states = java.util.EnumSet.noneOf(JobState.class);
        for (String part : names(list)) {
            try {
                states.add(JobState.valueOf(part.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw GantryException.badRequest("state", "'" + part + "' is not a job state; use "
                        + Arrays.toString(JobState.values()));
            }
        }
        return states;
    }

    private static List<JobIds.Parsed> jobIds(String list) {
        List<JobIds.Parsed> ids = new ArrayList<>();
        for (String part : names(list)) {
            try {
                ids.add(JobIds.parse(part));
            } catch (GantryException e) {
                throw GantryException.badRequest("jobId", "'" + part + "' is not a job id (e.g. 42, or 42_7 for an array task)");
            }
        }
        return ids;
    }
}
