package io.gantry.noded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Tells a job killed by the kernel's OOM killer from one killed by someone's SIGKILL: the
 * {@code oom_kill} count in the cgroup v2 {@code memory.events} of the agent's cgroup (where its
 * jobs run too) rises. Best effort: without cgroup v2 it cannot tell, and says so with an empty count.
 */
final class OomWatch {

    private final Path memoryEvents;

    OomWatch(Path memoryEvents) {
        this.memoryEvents = memoryEvents;
    }

    /** The watch on the agent's own cgroup, found through {@code /proc/self/cgroup}. */
    static OomWatch ofOwnCgroup() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"), StandardCharsets.UTF_8)) {
                if (line.startsWith("0::")) {
                    String relative = line.substring(3).strip();
                    Path cgroup = Path.of("/sys/fs/cgroup").resolve(relative.startsWith("/") ? relative.substring(1) : relative);
                    return new OomWatch(cgroup.resolve("memory.events"));
                }
            }
        } catch (IOException | RuntimeException e) {
            // no cgroup v2
        }
        return new OomWatch(null);
    }

    /** How many times the OOM killer has killed in the cgroup so far, if known. */
    OptionalLong oomKills() {
        if (memoryEvents == null) {
            return OptionalLong.empty();
        }
        try {
            for (String line : Files.readAllLines(memoryEvents, StandardCharsets.UTF_8)) {
                if (line.startsWith("oom_kill ")) {
                    return OptionalLong.of(Long.parseLong(line.substring(9).strip()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not readable
        }
        return OptionalLong.empty();
    }

    /** Whether the count rose between {@code before} and now. */
    boolean killedSince(OptionalLong before) {
        OptionalLong now = oomKills();
        return before.isPresent() && now.isPresent() && now.getAsLong() > before.getAsLong();
    }
}
