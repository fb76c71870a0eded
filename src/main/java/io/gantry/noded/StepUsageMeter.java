package io.gantry.noded;

import io.gantry.noded.protocol.StepStatProtocol.TaskUsage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads what step tasks use, for {@code sstat}: each task's processes from {@code /proc} (the task's
 * process group, as a task runs in a group of its own; for the batch step, the job's processes that are
 * not srun tasks), summed: resident and virtual memory, CPU time, major page faults, bytes read and
 * written. The tasks share their job's cgroup, so its totals cannot tell one step from another; a task's
 * processes can. The highest readings are kept per task between readings, so a peak that came and went
 * between two {@code sstat}s still shows as MaxRSS (as far as the sampling every few seconds catches it).
 */
final class StepUsageMeter {

    /** A task to read: the batch step has {@code pids} (its processes), an srun task its group leader {@code pid}. */
    record Target(String jobId, int stepId, int procId, long pid, Set<Long> pids) {

        String key() {
            return jobId + "." + stepId + "." + procId;
        }
    }

    /** One process's figures from {@code /proc/<pid>/stat}. */
    record Proc(long pid, long pgid, long rssBytes, long vmBytes, long cpuTicks, long majorFaults) {
    }

    private record Peak(long pid, long rss, long vm, long cpu, long pages, long read, long write) {
    }

    /** Linux's USER_HZ, the unit of {@code /proc}'s CPU times, on every architecture Gantry runs on. */
    private static final long TICKS_PER_SECOND = 100;

    private final Path proc;
    private final long pageSize;
    private final Map<String, Peak> peaks = new HashMap<>();

    StepUsageMeter() {
        this(Path.of("/proc"), pageSize());
    }

    StepUsageMeter(Path proc, long pageSize) {
        this.proc = proc;
        this.pageSize = pageSize;
    }

    /**
     * Reads {@code targets} now; with {@code all} (the periodic reading of every running task) the peaks of
     * tasks not among them, which have ended, are forgotten.
     */
    synchronized List<TaskUsage> read(List<Target> targets, boolean all) {
        if (targets.isEmpty()) {
            if (all) {
                peaks.clear();
            }
            return List.of();
        }
        Map<Long, Proc> procs = snapshot();
        Map<Long, List<Proc>> groups = new HashMap<>();
        for (Proc p : procs.values()) {
            groups.computeIfAbsent(p.pgid(), g -> new ArrayList<>()).add(p);
        }
        List<TaskUsage> usage = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Target target : targets) {
            List<Proc> members;
            if (target.pids() != null) {
                members = target.pids().stream().map(procs::get).filter(p -> p != null).toList();
            } else {
                members = groups.getOrDefault(target.pid(), List.of());
                if (members.isEmpty() && procs.containsKey(target.pid())) {
                    members = List.of(procs.get(target.pid())); // before its setsid
                }
            }
            long rss = 0;
            long vm = 0;
            long ticks = 0;
            long pages = 0;
            long read = 0;
            long write = 0;
            for (Proc p : members) {
                rss += p.rssBytes();
                vm += p.vmBytes();
                ticks += p.cpuTicks();
                pages += p.majorFaults();
                long[] io = io(p.pid());
                read += io[0];
                write += io[1];
            }
            long cpu = ticks * 1000 / TICKS_PER_SECOND;
            String key = target.key();
            seen.add(key);
            Peak old = peaks.get(key);
            // CPU time and bytes moved only grow: a process that ended unwaited takes its share along, so the
            // highest sum read stands
            Peak peak = old == null ? new Peak(target.pid(), rss, vm, cpu, pages, read, write)
                    : new Peak(target.pid(), Math.max(old.rss(), rss), Math.max(old.vm(), vm),
                            Math.max(old.cpu(), cpu), Math.max(old.pages(), pages), Math.max(old.read(), read),
                            Math.max(old.write(), write));
            peaks.put(key, peak);
            usage.add(new TaskUsage(target.procId(), target.pid(), rss, peak.rss(), vm, peak.vm(), peak.cpu(),
                    pages, peak.pages(), peak.read(), peak.write()));
        }
        if (all) {
            peaks.keySet().retainAll(seen);
        }
        return usage;
    }

    /** Every process in {@code /proc} now. */
    private Map<Long, Proc> snapshot() {
        Map<Long, Proc> procs = new HashMap<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, p -> isNumber(p.getFileName().toString()))) {
            for (Path dir : dirs) {
                Proc p = stat(dir);
                if (p != null) {
                    procs.put(p.pid(), p);
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to read
        }
        return procs;
    }

    /** Parses {@code /proc/<pid>/stat}; null for a process gone (or a zombie, which holds nothing). */
    Proc stat(Path dir) {
        try {
            String text = Files.readString(dir.resolve("stat"), StandardCharsets.UTF_8);
            // the command name (field 2) is in parentheses and may itself hold spaces or parentheses
            String[] f = text.substring(text.lastIndexOf(')') + 2).strip().split(" ");
            char state = f[0].charAt(0);
            if (state == 'Z' || state == 'X') {
                return null;
            }
            long pid = Long.parseLong(dir.getFileName().toString());
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            long faults = Long.parseLong(f[9]) + Long.parseLong(f[10]);
            return new Proc(pid, Long.parseLong(f[2]), Long.parseLong(f[21]) * pageSize, Long.parseLong(f[20]), ticks,
                    faults);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code rchar} and {@code wchar} of {@code /proc/<pid>/io}; zeros when it cannot be read. */
    private long[] io(long pid) {
        long[] io = new long[2];
        try {
            for (String line : Files.readAllLines(proc.resolve(Long.toString(pid)).resolve("io"))) {
                if (line.startsWith("rchar:")) {
                    io[0] = Long.parseLong(line.substring(6).strip());
                } else if (line.startsWith("wchar:")) {
                    io[1] = Long.parseLong(line.substring(6).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not the agent's to read
        }
        return io;
    }

    private static long pageSize() {
        try {
            Process p = new ProcessBuilder("getconf", "PAGESIZE").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | RuntimeException e) {
            return 4096;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 4096;
        }
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
