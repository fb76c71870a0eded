package io.gantry.engine;

import java.util.Objects;
import java.util.Set;

/**
 * An advance reservation (Slurm's {@code scontrol create reservation}): {@code nodes} are kept for
 * the jobs that name it from {@code start} to {@code end} (epoch seconds). A job that does not name
 * it is kept off those nodes whenever its time limit would overlap the window; one that names it
 * runs only there, and only once the window has begun. {@code maintenance} (flag MAINT) makes the
 * reason of jobs it keeps waiting "ReqNodeNotAvail, Reserved for maintenance".
 */
public record AdvanceReservation(String name, Set<String> nodes, long start, long end, boolean maintenance) {

    public AdvanceReservation {
        Objects.requireNonNull(name, "name");
        nodes = Set.copyOf(nodes);
        if (end <= start) {
            throw new IllegalArgumentException("reservation " + name + " must end after it starts");
        }
    }

    /** Whether the window overlaps {@code [from, to)}. */
    public boolean overlaps(long from, long to) {
        return start < to && end > from;
    }
}
