package io.gantry.noded;

import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The fence of a node without usable cgroups: the job's process group. It cannot hold a process
 * that starts a session of its own, nor limit memory; the OOM killer's kills are told from other
 * SIGKILLs where the agent's own cgroup v2 counts them.
 */
final class ProcessGroupFence implements JobFence {

    private final long pgid;
    private final OomWatch oomWatch;
    private final OptionalLong oomKillsAtStart;

    ProcessGroupFence(long pgid, OomWatch oomWatch) {
        this.pgid = pgid;
        this.oomWatch = oomWatch;
        this.oomKillsAtStart = oomWatch.oomKills();
    }

    /** The process group holds the script from its start: nothing to add. */
    @Override
    public void add(long pid) {
    }

    @Override
    public Set<Long> pids() {
        return ProcessGroups.members(pgid).stream().map(ProcessGroups.Stat::pid).collect(Collectors.toSet());
    }

    @Override
    public void killAll() {
        ProcessGroups.signal(pgid, "KILL");
    }

    /** Without a freezer: SIGSTOP and SIGCONT to the process group (a process that left it runs on). */
    @Override
    public boolean freeze(boolean frozen) {
        return ProcessGroups.signal(pgid, frozen ? "STOP" : "CONT");
    }

    @Override
    public boolean oomKilled() {
        return oomWatch.killedSince(oomKillsAtStart);
    }

    @Override
    public OptionalLong peakMemoryBytes() {
        return OptionalLong.empty();
    }

    @Override
    public OptionalLong cpuTimeMillis() {
        return OptionalLong.empty();
    }

    @Override
    public void release() {
    }
}
