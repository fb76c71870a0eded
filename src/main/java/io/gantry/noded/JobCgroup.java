package io.gantry.noded;

import io.gantry.noded.Cgroups.Controller;
import io.gantry.noded.Cgroups.Hierarchy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's cgroup: a leaf directory in each hierarchy {@link Cgroups} uses (one for all v2
 * controllers, one per v1 hierarchy). Every process the job starts, however it detaches
 * ({@code setsid}, double fork), stays in it, so this is what finds, signals and kills the job's
 * processes and reads what they used.
 */
final class JobCgroup {

    private static final Logger log = LoggerFactory.getLogger(JobCgroup.class);

    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 20;

    private final String jobId;
    private final Map<Controller, Hierarchy> hierarchies;
    private final Map<Controller, Path> dirs;

    JobCgroup(String jobId, Map<Controller, Hierarchy> hierarchies, Map<Controller, Path> dirs) {
        this.jobId = jobId;
        this.hierarchies = Map.copyOf(hierarchies);
        this.dirs = Collections.unmodifiableMap(new EnumMap<>(dirs));
    }

    String jobId() {
        return jobId;
    }

    /** The job's directory in {@code controller}'s hierarchy, when that controller is used. */
    Optional<Path> dir(Controller controller) {
        return Optional.ofNullable(dirs.get(controller));
    }

    boolean unified(Controller controller) {
        Hierarchy h = hierarchies.get(controller);
        return h != null && h.unified();
    }

    /** The job's directories, one per hierarchy. */
    Set<Path> paths() {
        return new LinkedHashSet<>(dirs.values());
    }

    /**
     * Moves process {@code pid} into the job, in every hierarchy; its children started from then on
     * are the job's too. Throws when any hierarchy refuses it.
     */
    void add(long pid) throws IOException {
        for (Path dir : paths()) {
            Cgroups.write(dir.resolve("cgroup.procs"), Long.toString(pid));
        }
    }

    /** Every process in the job, over all its hierarchies. */
    Set<Long> pids() {
        Set<Long> pids = new TreeSet<>();
        for (Path dir : paths()) {
            for (String line : Cgroups.read(dir.resolve("cgroup.procs")).split("\n")) {
                if (!line.isBlank()) {
                    try {
                        pids.add(Long.parseLong(line.strip()));
                    } catch (NumberFormatException e) {
                        // not a pid: a fake or a foreign file
                    }
                }
            }
        }
        return pids;
    }

    /** Whether any process is left in the job. */
    boolean populated() {
        for (Path dir : paths()) {
            if (isV2(dir) && Files.exists(dir.resolve("cgroup.events"))
                    && field(dir.resolve("cgroup.events"), "populated").orElse(0) > 0) {
                return true;
            }
        }
        return !pids().isEmpty();
    }

    /**
     * Sends {@code signal} (a name such as TERM, USR1) to every process of the job; false when
     * there was none or {@code kill} failed for all.
     */
    boolean signalAll(String signal) {
        List<String> command = new ArrayList<>(List.of("kill", "-s", signal, "--"));
        long self = ProcessHandle.current().pid();
        pids().stream().filter(p -> p != self).forEach(p -> command.add(Long.toString(p)));
        if (command.size() == 4) {
            return false;
        }
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                return false;
            }
            // kill exits 1 when any pid had gone meanwhile, though the others were signalled
            return true;
        } catch (IOException e) {
            log.warn("job {}: cannot run kill -s {}: {}", jobId, signal, e.getMessage());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * SIGKILLs every process of the job, again and again until none is left, so one forked between
     * the listing and the kill dies too: v2's {@code cgroup.kill} where the kernel has it, otherwise
     * the job is frozen first (when a freezer exists), killed, and thawed so the kills land. True when
     * the job is empty within 10 s.
     */
    boolean killAll() {
        return killAll(KILL_TIMEOUT);
    }

    boolean killAll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Optional<Path> v2Kill = paths().stream().filter(this::isV2).map(d -> d.resolve("cgroup.kill"))
                .filter(Files::exists).findFirst();
        long self = ProcessHandle.current().pid();
        while (true) {
            Set<Long> pids = pids();
            if (pids.isEmpty() && !populated()) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                log.warn("job {}: processes {} survived SIGKILL for {}", jobId, pids, timeout);
                return false;
            }
            if (pids.contains(self)) {
                throw new IllegalStateException("the agent itself is in job " + jobId + "'s cgroup");
            }
            if (v2Kill.isPresent()) {
                try {
                    Cgroups.write(v2Kill.get(), "1");
                } catch (IOException e) {
                    log.warn("job {}: {}", jobId, e.getMessage());
                    v2Kill = Optional.empty();
                }
            } else {
                freeze(true);
                for (long pid : pids) {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                // thawed whether or not the freeze completed in time (a busy machine can leave it FREEZING):
                // a cgroup left frozen would freeze the next job given its path
                freeze(false);
            }
            sleep(POLL_MILLIS);
        }
    }

    /**
     * Whether the kernel's OOM killer killed a process of the job. v1 kernels before 4.13 do not
     * count kills; there a hit of the limit ({@code failcnt}) stands in for one.
     */
    boolean oomKilled() {
        Optional<Path> memory = dir(Controller.MEMORY);
        if (memory.isEmpty()) {
            return false;
        }
        if (unified(Controller.MEMORY)) {
            return field(memory.get().resolve("memory.events"), "oom_kill").orElse(0) > 0;
        }
        OptionalLong kills = field(memory.get().resolve("memory.oom_control"), "oom_kill");
        if (kills.isPresent()) {
            return kills.getAsLong() > 0;
        }
        return number(memory.get().resolve("memory.memsw.failcnt")).orElse(0) > 0
                || number(memory.get().resolve("memory.failcnt")).orElse(0) > 0;
    }

    /** The most memory the job used at once, when the kernel tracks it (v2 from Linux 5.19). */
    OptionalLong peakMemoryBytes() {
        return dir(Controller.MEMORY)
                .map(d -> number(d.resolve(unified(Controller.MEMORY) ? "memory.peak" : "memory.max_usage_in_bytes")))
                .orElse(OptionalLong.empty());
    }

    /** CPU time the job's processes used, user and system. */
    OptionalLong cpuTimeMillis() {
        Optional<Path> cpuacct = dir(Controller.CPUACCT).filter(d -> !unified(Controller.CPUACCT));
        if (cpuacct.isPresent()) {
            OptionalLong nanos = number(cpuacct.get().resolve("cpuacct.usage"));
            return nanos.isPresent() ? OptionalLong.of(nanos.getAsLong() / 1_000_000) : nanos;
        }
        for (Path dir : paths()) {
            if (isV2(dir)) {
                OptionalLong micros = field(dir.resolve("cpu.stat"), "usage_usec");
                return micros.isPresent() ? OptionalLong.of(micros.getAsLong() / 1000) : micros;
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Removes the job's directories (the kernel refuses while a process is left); one already gone
     * counts as removed. False when any is left.
     */
    boolean remove() {
        boolean removed = true;
        for (Path dir : paths()) {
            try {
                Files.deleteIfExists(dir);
            } catch (IOException e) {
                log.warn("job {}: cannot remove cgroup {}: {}", jobId, dir, e.toString());
                removed = false;
            }
        }
        return removed;
    }

    @Override
    public String toString() {
        return "JobCgroup[" + jobId + " " + paths() + "]";
    }

    private boolean isV2(Path dir) {
        return hierarchies.entrySet().stream()
                .anyMatch(e -> e.getValue().unified() && dir.equals(dirs.get(e.getKey())));
    }

    /** Thaws the job's cgroup, if it has a freezer and is frozen (or freezing). */
    void thaw() {
        boolean frozen = paths().stream().anyMatch(d -> {
            Path v1 = d.resolve("freezer.state");
            Path v2 = d.resolve("cgroup.freeze");
            return Files.isRegularFile(v1) && !Cgroups.read(v1).equals("THAWED")
                    || isV2(d) && Files.isRegularFile(v2) && Cgroups.read(v2).equals("1");
        });
        if (frozen) {
            freeze(false);
        }
    }

    /** Freezes the job (a job suspended for its preemptor); false when it has no freezer or did not freeze in time. */
    boolean freeze() {
        return freeze(true);
    }

    /** Freezes (or thaws) the job; false when it has no freezer or could not be frozen. */
    private boolean freeze(boolean frozen) {
        Optional<Path> v2 = paths().stream().filter(this::isV2).map(d -> d.resolve("cgroup.freeze"))
                .filter(Files::exists).findFirst();
        Optional<Path> v1 = dir(Controller.FREEZER).filter(d -> !unified(Controller.FREEZER))
                .map(d -> d.resolve("freezer.state"));
        try {
            if (v1.isPresent()) {
                Cgroups.write(v1.get(), frozen ? "FROZEN" : "THAWED");
                return !frozen || awaitState(v1.get(), "FROZEN");
            }
            if (v2.isPresent()) {
                Cgroups.write(v2.get(), frozen ? "1" : "0");
                return !frozen || awaitField(v2.get().resolveSibling("cgroup.events"), "frozen");
            }
        } catch (IOException e) {
            log.warn("job {}: {}", jobId, e.getMessage());
        }
        return false;
    }

    /** Freezing takes a moment (FREEZING) while each task reaches the refrigerator. */
    private static boolean awaitState(Path file, String state) {
        for (int i = 0; i < 50; i++) {
            if (Cgroups.read(file).equals(state)) {
                return true;
            }
            sleep(POLL_MILLIS);
        }
        return false;
    }

    private static boolean awaitField(Path file, String name) {
        for (int i = 0; i < 50; i++) {
            if (field(file, name).orElse(0) > 0) {
                return true;
            }
            sleep(POLL_MILLIS);
        }
        return false;
    }

    /** The number after {@code name} on its line of a flat-keyed file ({@code memory.events}, {@code cpu.stat}). */
    static OptionalLong field(Path file, String name) {
        for (String line : Cgroups.read(file).split("\n")) {
            String[] kv = line.strip().split("\\s+");
            if (kv.length == 2 && kv[0].equals(name)) {
                try {
                    return OptionalLong.of(Long.parseLong(kv[1]));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /** A file holding one number; empty when absent, unreadable or not a number. */
    static OptionalLong number(Path file) {
        try {
            return OptionalLong.of(Long.parseLong(Cgroups.read(file)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
