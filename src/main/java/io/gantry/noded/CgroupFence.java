package io.gantry.noded;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's fence on a node with cgroups: its own {@link JobCgroup}, and, where the node has GPUs, the
 * device files of those it was not given denied (v1 {@code devices.deny}) and hidden from each of
 * its processes ({@link DeviceConstraint}, v1 and v2).
 */
final class CgroupFence implements JobFence {

    private static final Logger log = LoggerFactory.getLogger(CgroupFence.class);

    private final JobCgroup cgroup;
    private final List<String> launcher;

    private CgroupFence(JobCgroup cgroup, List<String> launcher) {
        this.cgroup = cgroup;
        this.launcher = List.copyOf(launcher);
    }

    /**
     * The fences of a node whose {@code nodeGpus} GPUs have the minors of their indices and no mount
     * namespaces hide them (tests, and GPUs declared where no driver answers).
     */
    static JobProcess.Fences of(Cgroups cgroups, Supplier<String> node, int nodeGpus) {
        return of(cgroups, node, new DeviceConstraint(GpuDevices.byIndex(nodeGpus, Path.of("/dev")), null));
    }

    /**
     * The fences of this node: a cgroup per job where {@code cgroups} are available, else none (the
     * jobs are held by their process groups only). Says once in the log how GPUs are fenced.
     *
     * @param node the node's name (in the cgroup paths, so two agents on one host do not collide)
     * @param devices the node's GPU device files (those a job was not given are fenced off)
     */
    static JobProcess.Fences of(Cgroups cgroups, Supplier<String> node, DeviceConstraint devices) {
        if (!cgroups.available()) {
            return JobProcess.Fences.NONE;
        }
        if (!devices.noGpus()) {
            if (cgroups.deniesDevices() && devices.hides()) {
                log.info("GPU fence: devices.deny (cgroup v1) and a mount namespace per job hiding the device files "
                        + "of the GPUs it was not given");
            } else if (cgroups.deniesDevices()) {
                log.warn("GPU fence: devices.deny (cgroup v1) only; jobs get no mount namespace hiding other GPUs");
            } else if (devices.hides()) {
                log.info("GPU fence: a mount namespace per job hiding the device files of the GPUs it was not given "
                        + "(no cgroup v1 devices controller; v2 fences devices with eBPF, which the agent cannot load)");
            } else {
                log.warn("no GPU fence: no cgroup v1 devices controller and no mount namespaces; a job's GPUs are "
                        + "fenced only by CUDA_VISIBLE_DEVICES");
            }
        }
        return new JobProcess.Fences() {
            @Override
            public JobFence create(String jobId, long memoryBytes, List<Integer> cpus, GpuDevices.Grant gpus)
                    throws IOException {
                List<GpuDevices.DeviceFile> denied = devices.denied(gpus);
                return new CgroupFence(cgroups.create(node.get(), jobId, new Cgroups.Limits(memoryBytes, cpus, denied)),
                        devices.launcher(denied));
            }

            @Override
            public JobFence existing(String jobId, GpuDevices.Grant gpus) {
                return cgroups.find(node.get(), jobId)
                        .map(c -> new CgroupFence(c, devices.launcher(devices.denied(gpus)))).orElse(null);
            }

            @Override
            public JobFence existing(String jobId) {
                return existing(jobId, GpuDevices.Grant.NONE);
            }
        };
    }

    @Override
    public List<String> launcher() {
        return launcher;
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
        // A suspended job killed: never leave its cgroup frozen (v1 would freeze the next job given its path).
        cgroup.thaw();
    }

    @Override
    public boolean freeze(boolean frozen) {
        if (frozen) {
            return cgroup.freeze();
        }
        cgroup.thaw();
        return true;
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
