package io.gantry.noded;

import java.util.OptionalLong;
import java.util.Set;

/**
 * What holds all of a job's processes, so that none escapes a cancel or a time limit: the job's own
 * cgroup where the node has cgroups (a daemon that double-forks stays inside it), otherwise the
 * process group its script leads (a daemon that calls setsid escapes that one).
 */
interface JobFence {

    /**
     * What each process of the job is started through, as root before it becomes the job's user, so
     * that it sees only the devices the job may use ({@link DeviceConstraint}); empty: nothing.
     */
    default java.util.List<String> launcher() {
        return java.util.List.of();
    }

    /** Puts a process (the job's first, before it runs anything) inside the fence. */
    void add(long pid) throws java.io.IOException;

    /** The job's live processes. */
    Set<Long> pids();

    /** SIGKILL to every process of the job until none is left (or as far as it can tell). */
    void killAll();

    /** Whether the kernel's OOM killer killed a process of the job since it started. */
    boolean oomKilled();

    /** The job's peak memory use, if known. */
    OptionalLong peakMemoryBytes();

    /** The CPU time the job used, if known. */
    OptionalLong cpuTimeMillis();

    /**
     * Freezes the job's processes (a job suspended for its preemptor) or thaws them: through the cgroup
     * freezer where the fence is a cgroup, else SIGSTOP and SIGCONT to the process group. False when it
     * could not.
     */
    boolean freeze(boolean frozen);

    /** Frees what the fence holds once the job is over (its cgroup is removed). */
    void release();
}
