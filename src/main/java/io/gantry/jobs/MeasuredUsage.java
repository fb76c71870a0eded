package io.gantry.jobs;

/**
 * What a job's run used, as its node measured it (the job's cgroup): the peak resident memory in bytes
 * and the CPU time of all its processes in milliseconds. A null field is not known: a simulated node, a
 * node without cgroups, a job that never started.
 */
public record MeasuredUsage(Long maxRssBytes, Long totalCpuMillis) {

    /** Nothing measured. */
    public static final MeasuredUsage UNKNOWN = new MeasuredUsage(null, null);

    /**
     * The usage a node reported, with a negative figure (which no cgroup counter gives) taken as not
     * known rather than stored: a wrong number in accounting is worse than an empty field.
     */
    public static MeasuredUsage of(Long maxRssBytes, Long totalCpuMillis) {
        return new MeasuredUsage(known(maxRssBytes), known(totalCpuMillis));
    }

    private static Long known(Long value) {
        return value == null || value < 0 ? null : value;
    }
}
