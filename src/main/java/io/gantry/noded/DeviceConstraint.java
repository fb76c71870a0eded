package io.gantry.noded;

import io.gantry.noded.GpuDevices.DeviceFile;
import io.gantry.noded.GpuDevices.Grant;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a job off the GPUs it was not given, on cgroup v1 and v2 alike: each process the agent
 * starts for a job (its batch script, each step task) gets a mount namespace of its own in which
 * the device file of every GPU and MIG capability the job may not use is covered by a bind mount
 * of an empty, root-owned file of mode 000. Opening it then fails with EACCES whatever the
 * cgroup version; v2 has no {@code devices.deny} (its devices fence is an eBPF program, which the
 * agent, plain Java, cannot load), v1 adds one (see {@link Cgroups}).
 *
 * <p>The namespace is made by {@code unshare --mount --propagation slave} as root before
 * {@code setpriv} drops to the job's user: slave, so that what the host mounts later (an
 * automounted home) still reaches the job while nothing of the job's mounts leaks out. The job's
 * user cannot undo a bind mount (that needs CAP_SYS_ADMIN, and mounts inherited into a user
 * namespace are locked); a job running as root could, so root jobs are not fenced by it.
 *
 * <p>Where {@code unshare} or bind mounts do not work (not root, a container without
 * CAP_SYS_ADMIN), {@link #of} says so in the agent's log and jobs get no mount namespace.
 */
final class DeviceConstraint {

    private static final Logger log = LoggerFactory.getLogger(DeviceConstraint.class);

    /**
     * Run as root inside the job's new mount namespace, then exec'd into the rest of the command line.
     * Arguments: the blocker file, how many device files follow, then each one's path. A device file
     * that is not there has nothing to open (the agent made those of a node with a driver at its
     * start, see {@link #of}). A failure is told both ways the stages read one (a line on stderr for
     * a batch script, {@code failed ...} on stdout for a step task), once the agent has said go.
     */
    static final String FENCE = """
            fail() { read -r go; printf 'failed %s\\n' "$*"; printf '%s\\n' "$*" >&2; exit 1; }
            blocker=$1; n=$2; shift 2
            while [ "$n" -gt 0 ]; do
              file=$1; shift; n=$((n - 1))
              [ -e "$file" ] || continue
              err=$(mount --bind -- "$blocker" "$file" 2>&1) || fail "cannot fence the job off $file: $err"
            done
            exec "$@"
            """;

    private final GpuDevices devices;
    /** The empty root-owned 000 file bound over denied device files; null: no mount namespaces. */
    private final Path blocker;

    DeviceConstraint(GpuDevices devices, Path blocker) {
        this.devices = devices;
        this.blocker = blocker;
    }

    /** A node without GPUs: nothing to fence. */
    static DeviceConstraint none() {
        return new DeviceConstraint(GpuDevices.none(), null);
    }

    /**
     * The constraint for {@code devices}: with mount namespaces when this agent can make them (tried
     * once here, with {@code stateDir}, a directory only root may enter, holding the blocker file),
     * otherwise without, and the reason logged.
     */
    static DeviceConstraint of(GpuDevices devices, Path stateDir) {
        devices.problems().forEach(p -> log.warn("GPU device files: {}", p));
        if (devices.isEmpty()) {
            return new DeviceConstraint(devices, null);
        }
        if (devices.fromDriver()) {
            createMissing(devices.all());
        }
        try {
            Path blocker = blocker(stateDir);
            String failure = probe(blocker);
            if (failure == null) {
                return new DeviceConstraint(devices, blocker);
            }
            log.warn("jobs cannot be given a mount namespace that hides the GPUs they were not given: {}", failure);
        } catch (IOException e) {
            log.warn("jobs cannot be given a mount namespace that hides the GPUs they were not given: {}",
                    e.getMessage());
        }
        return new DeviceConstraint(devices, null);
    }

    /** Whether jobs get a mount namespace hiding the device files they may not use. */
    boolean hides() {
        return blocker != null;
    }

    boolean noGpus() {
        return devices.isEmpty();
    }

    /** The device files a job with {@code grant} may not use. */
    List<DeviceFile> denied(Grant grant) {
        return devices.denied(grant);
    }

    /**
     * What a job's process is started through so that {@code denied} are covered in its view: empty
     * when nothing is denied or mount namespaces are not available.
     */
    List<String> launcher(List<DeviceFile> denied) {
        if (blocker == null || denied.isEmpty()) {
            return List.of();
        }
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "slave", "--",
                "/bin/bash", "-c", FENCE, "gantry-device-fence", blocker.toString(), Integer.toString(denied.size())));
        denied.forEach(file -> command.add(file.path().toString()));
        return List.copyOf(command);
    }

    /**
     * {@code <stateDir>/device-fence}: an empty regular file, root's, mode 000, so that no user but
     * root may open what it covers. One that is there but is not that is replaced.
     */
    static Path blocker(Path stateDir) throws IOException {
        Path file = stateDir.resolve("device-fence");
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || a.size() != 0 || !a.owner().getName().equals("root")
                    || !a.permissions().isEmpty()) {
                Files.delete(file);
            }
        }
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("---------")));
        }
        return file;
    }

    /**
     * Makes the device files of the driver's GPUs and MIG capabilities that are not there yet, as
     * {@code nvidia-modprobe} would when CUDA first needs them (GPUs 0666, capabilities 0444): one
     * it made after a job had started would be uncovered in that job's mount namespace.
     */
    private static void createMissing(List<DeviceFile> files) {
        for (DeviceFile file : files) {
            if (Files.exists(file.path(), LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            String mode = file.major() == GpuDevices.NVIDIA_MAJOR ? "666" : "444";
            try {
                Files.createDirectories(file.path().getParent());
                Process p = new ProcessBuilder("mknod", "-m", mode, "--", file.path().toString(), "c",
                        Integer.toString(file.major()), Integer.toString(file.minor())).redirectErrorStream(true).start();
                p.getOutputStream().close();
                String out = new String(p.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    log.warn("cannot create {} ({}): a job started before it exists is not fenced off it on cgroup v2",
                            file.path(), out);
                } else {
                    log.info("created the missing device file {} (c {}:{})", file.path(), file.major(), file.minor());
                }
            } catch (IOException e) {
                log.warn("cannot create {}: {}", file.path(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Binds the blocker over itself in a new mount namespace: null when that works, else why not. */
    private static String probe(Path blocker) {
        try {
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "slave", "--", "mount", "--bind",
                    "--", blocker.toString(), blocker.toString()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readNBytes(4096);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unshare --mount did not finish within 10 s";
            }
            return p.exitValue() == 0 ? null : "unshare --mount failed (exit code " + p.exitValue() + "): "
                    + new String(out, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "cannot run unshare: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
