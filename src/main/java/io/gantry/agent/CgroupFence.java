package io.gantry.agent;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A job's fence on a node with cgroups: its own {@link JobCgroup}. */
final class CgroupFence implements JobFence {

    private static final Logger log = LoggerFactory.getLogger(CgroupFence.class);

    private final JobCgroup cgroup;

    private CgroupFence(JobCgroup cgroup) {
        this.cgroup = cgroup;
    }

    /**
     * The fences of this node: a cgroup per job where {@code cgroups} are available, else none (the
     * jobs are held by their process groups only).
     *
     * @param node the node's name (in the cgroup paths, so two agents on one host do not collide)
     * @param nodeGpus how many GPUs the node has (those a job was not given are fenced off)
     */
    static JobProcess.Fences of(Cgroups cgroups, Supplier<String> node, int nodeGpus) {
        if (!cgroups.available()) {
            return JobProcess.Fences.NONE;
        }
        return new JobProcess.Fences() {
            @Override
            public JobFence create(String jobId, long memoryBytes, java.util.List<Integer> cpus,
                    java.util.List<Integer> gpus) throws IOException {
                return new CgroupFence(cgroups.create(node.get(), jobId,
                        new Cgroups.Limits(memoryBytes, cpus, gpus, nodeGpus)));
            }

            @Override
            public JobFence existing(String jobId) {
                return cgroups.find(node.get(), jobId).map(CgroupFence::new).orElse(null);
            }
        };
    }

    @Override
    public void add(long pid) throws IOException {
        cgroup.add(pid);
    }

    @Override
    public Set<Long> pids() {
        return cgroup.pids();
    }

    @Override
    public void killAll() {
        if (!cgroup.killAll()) {
            log.warn("job {}: processes still in its cgroup after SIGKILL: {}", cgroup.jobId(), cgroup.pids());
        }
    }

    @Override
    public boolean oomKilled() {
        return cgroup.oomKilled();
    }

    @Override
    public OptionalLong peakMemoryBytes() {
        return cgroup.peakMemoryBytes();
    }

    @Override
    public OptionalLong cpuTimeMillis() {
        return cgroup.cpuTimeMillis();
    }

    @Override
    public void release() {
        cgroup.remove();
    }
}
