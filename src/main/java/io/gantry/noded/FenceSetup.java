package io.gantry.noded;

import io.gantry.noded.JobProcess.Settings;
import io.gantry.noded.JobProcess.StartFailure;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a batch job into its fence: the cgroup made before its second stage starts (memory, CPUs,
 * GPU devices), or, on a node with none to offer, the process group {@code setsid} gives the stage.
 * The stage waits on its standard input until it is inside; {@link #enter} then lets it go.
 */
final class FenceSetup {

    private static final Logger log = LoggerFactory.getLogger(FenceSetup.class);

    private FenceSetup() {
    }

    /** The job's cgroup, or null when the node has none to offer. */
    static JobFence cgroup(Launch launch, Settings settings, List<Integer> cpus) throws StartFailure {
        try {
            return settings.fences().create(launch.jobId(), launch.memoryMbOnNode() * 1024 * 1024, cpus,
                    GpuDevices.Grant.of(launch));
        } catch (IOException | RuntimeException e) {
            throw new StartFailure("cannot create the job's cgroup on " + settings.node() + ": " + e.getMessage());
        }
    }

    /**
     * Puts the started stage into {@code cgroup} (or, when null, fences it by its process group) and
     * tells it to go on; on failure the stage and whatever the cgroup holds are killed.
     */
    static JobFence enter(Process process, JobFence cgroup, Settings settings) throws StartFailure {
        JobFence fence = cgroup;
        try {
            if (cgroup != null) {
                cgroup.add(process.pid());
            } else {
                fence = new ProcessGroupFence(groupOf(process), settings.oomWatch());
            }
            try (OutputStream go = process.getOutputStream()) {
                go.write("go\n".getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            if (cgroup != null) {
                cgroup.killAll();
                release(cgroup);
            }
            throw new StartFailure("cannot put the job into its cgroup on " + settings.node() + ": " + e.getMessage());
        }
        return fence;
    }

    static void release(JobFence fence) {
        if (fence != null) {
            try {
                fence.release();
            } catch (RuntimeException e) {
                log.warn("cannot release a job's cgroup: {}", e.toString());
            }
        }
    }

    /**
     * The script's process group: its own pid, as {@code setsid} makes it a group leader without
     * forking (the JDK's child never leads a group). Checked in {@code /proc}, where the child may
     * still be {@code setsid} for an instant before it calls setsid(2).
     */
    private static long groupOf(Process process) {
        long pid = process.pid();
        long ownGroup = ProcessGroups.ownGroup();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() < deadline) {
            OptionalLong pgid = ProcessGroups.pgidOf(pid);
            if (pgid.isEmpty() || pgid.getAsLong() == pid) {
                return pid;
            }
            if (pgid.getAsLong() != ownGroup) {
                break;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return pid;
    }
}
