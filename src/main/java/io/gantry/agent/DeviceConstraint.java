package io.gantry.agent;

import io.gantry.agent.GpuDevices.DeviceFile;
import io.gantry.agent.GpuDevices.Grant;
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
     * Arguments: the blocker file, how many device files follow, then path, major, minor of each. A
     * device file not there yet (created on demand by nvidia-modprobe) is made root-only first, so
     * that a later open cannot find it uncovered. A failure is told both ways the stages read one
     * (a line on stderr for a batch script, {@code failed ...} on stdout for a step task), once the
     * agent has said go.
     */
    static final String FENCE = """
            fail() { read -r go; printf 'failed %s\\n' "$*"; printf '%s\\n' "$*" >&2; exit 1; }
            blocker=$1; n=$2; shift 2
            while [ "$n" -gt 0 ]; do
              file=$1; major=$2; minor=$3; shift 3; n=$((n - 1))
              if [ ! -e "$file" ] && [ ! -L "$file" ]; then
                err=$( { mkdir -p -- "${file%/*}" && mknod -m 600 -- "$file" c "$major" "$minor"; } 2>&1 ) \\
                  || fail "cannot create $file to fence the job off it: $err"
              fi
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
        for (DeviceFile file : denied) {
            command.addAll(List.of(file.path().toString(), Integer.toString(file.major()),
                    Integer.toString(file.minor())));
        }
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
