package io.gantry.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a test sees of a job's processes while the agent freezes and thaws them (preemption with
 * SUSPEND, scontrol suspend): a counter the job's script writes, the state letter of a process, and
 * whether its cgroup is frozen, on cgroup v1 and v2.
 */
public final class FrozenProcesses {

    private FrozenProcesses() {
    }

    /** The number a job's loop last wrote to {@code counter}; 0 before it wrote one. */
    public static long count(Path counter) {
        try {
            String text = Files.exists(counter) ? Files.readString(counter).strip() : "";
            return text.isEmpty() ? 0 : Long.parseLong(text);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    /** The state letter of /proc/PID/stat (after the command's closing parenthesis). */
    public static String processState(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }

    /** Whether the process's cgroup is frozen: v1 freezer.state FROZEN, or v2 cgroup.events "frozen 1". */
    public static boolean frozen(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
            String[] parts = line.split(":", 3);
            if (parts[1].equals("freezer")) {
                return Files.readString(Path.of("/sys/fs/cgroup/freezer" + parts[2], "freezer.state")).strip()
                        .equals("FROZEN");
            }
        }
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
            String[] parts = line.split(":", 3);
            if (parts[0].equals("0")) {
                Path root = Files.exists(Path.of("/sys/fs/cgroup/unified")) ? Path.of("/sys/fs/cgroup/unified")
                        : Path.of("/sys/fs/cgroup");
                return Files.readAllLines(root.resolve(parts[2].substring(1)).resolve("cgroup.events")).contains("frozen 1");
            }
        }
        return false;
    }
}
