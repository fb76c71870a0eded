package io.gantry.jobs;

import io.gantry.engine.SlurmTime;
import io.gantry.engine.SlurmTimeException;

/**
 * sbatch's {@code --switches=<count>[@max-time]}: the most leaf switches the job's nodes may span,
 * and how long it may wait for such an allocation before it takes any. As in Slurm, the wait is at
 * most {@value #MAX_WAIT_SECONDS} s (SchedulerParameters' max_switch_wait default) and is that long
 * when not given; the time is in Slurm's formats (a bare number is minutes).
 *
 * @param count       leaf switches, 1 or more
 * @param waitSeconds how long it waits for them, counted from when it became eligible
 */
public record JobSwitches(int count, long waitSeconds) {

    static final long MAX_WAIT_SECONDS = 300;

    /** More leaf switches than any cluster has: a larger count asks for nothing. */
    private static final int MAX_COUNT = 65_535;

    /**
     * Reads a {@code --switches} value.
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static JobSwitches parse(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("needs a count of leaf switches, as in 1 or 2@10:00");
        }
        int at = value.indexOf('@');
        String countText = (at < 0 ? value : value.substring(0, at)).trim();
        int count;
        try {
            count = Integer.parseInt(countText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + countText + "' is not a count of leaf switches (1 to "
                    + MAX_COUNT + ")");
        }
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("the count of leaf switches must be 1 to " + MAX_COUNT
                    + ", not " + count);
        }
        long wait = MAX_WAIT_SECONDS;
        if (at >= 0) {
            String time = value.substring(at + 1).trim();
            if (!time.isEmpty() && time.chars().allMatch(ch -> ch == '0' || ch == ':' || ch == '-')) {
                // Slurm reads a zero time as "no limit"; here it means: do not wait.
                return new JobSwitches(count, 0);
            }
            try {
                wait = SlurmTime.parseSeconds(time);
            } catch (SlurmTimeException e) {
                throw new IllegalArgumentException("'" + time + "' is not a time to wait: " + e.getMessage());
            }
            if (wait < 0) {
                throw new IllegalArgumentException("the time to wait for switches must be a duration, not UNLIMITED");
            }
        }
        return new JobSwitches(count, Math.min(wait, MAX_WAIT_SECONDS));
    }

    /**
     * Reads the stored form {@link #toString()} wrote, {@code count@seconds}. Not {@link #parse}: there a bare
     * number after the {@code @} is minutes, so a stored {@code 1@30} would come back as five minutes.
     * @throws IllegalArgumentException when the text is not in the stored form
     */
    public static JobSwitches stored(String value) {
        int at = value.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("'" + value + "' is not a stored --switches value (count@seconds)");
        }
        try {
            return new JobSwitches(Integer.parseInt(value.substring(0, at)), Long.parseLong(value.substring(at + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' is not a stored --switches value (count@seconds)", e);
        }
    }

    /** The stored form, {@code count@seconds}. */
    @Override
    public String toString() {
        return count + "@" + waitSeconds;
    }
}
