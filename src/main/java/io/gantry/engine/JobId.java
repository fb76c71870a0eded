package io.gantry.engine;

/** A job, or one task of an array job ({@code "{id}_{task}"}); {@link #NO_TASK} when not an array task. */
public record JobId(long id, int arrayTask) implements Comparable<JobId> {

    public static final int NO_TASK = -1;

    public JobId {
        if (id < 0) {
            throw new IllegalArgumentException("job id must not be negative: " + id);
        }
        if (arrayTask < NO_TASK) {
            throw new IllegalArgumentException("array task must not be negative: " + arrayTask);
        }
    }

    public static JobId of(long id) {
        return new JobId(id, NO_TASK);
    }

    public static JobId of(long id, int arrayTask) {
        return new JobId(id, arrayTask);
    }

    public boolean isArrayTask() {
        return arrayTask != NO_TASK;
    }

    @Override
    public int compareTo(JobId o) {
        int c = Long.compare(id, o.id);
        return c != 0 ? c : Integer.compare(arrayTask, o.arrayTask);
    }

    @Override
    public String toString() {
        return isArrayTask() ? id + "_" + arrayTask : Long.toString(id);
    }
}
