package io.gantry.jobs;

import io.gantry.api.GantryException;

/** Job ids as users write them: {@code 42} for a job or a whole array, {@code 42_7} for one task. */
public final class JobIds {

    public static final int NO_TASK = -1;

    private JobIds() {
    }

    public record Parsed(long jobId, Integer task) {
    }

    public static Parsed parse(String text) {
        if (text == null || !text.matches("\\d{1,18}(_\\d{1,9})?")) {
            throw GantryException.badRequest("id", "'" + text + "' is not a job id (e.g. 42, or 42_7 for an array task)");
        }
        int underscore = text.indexOf('_');
        if (underscore < 0) {
            return new Parsed(Long.parseLong(text), null);
        }
        return new Parsed(Long.parseLong(text.substring(0, underscore)), Integer.valueOf(text.substring(underscore + 1)));
    }

    public static String format(long jobId, int task) {
        return task == NO_TASK ? Long.toString(jobId) : jobId + "_" + task;
    }
}
