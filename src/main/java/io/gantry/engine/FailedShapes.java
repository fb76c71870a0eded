package io.gantry.engine;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shapes that did not fit during one {@link QueuePass}, per partition match. Resources only shrink during a
 * pass, so a shape that did not fit still does not, and neither does any shape that needs at least as much of
 * everything for at least as long: the pass answers such jobs without searching the profile again.
 */
final class FailedShapes {

    /** Distinct failed shapes remembered per partition; beyond it jobs are simply tried. */
    private static final int MAX_FAILED_SHAPES = 512;

    private record Failure(Shape shape, long duration, PendingReason reason) {
    }

    private final Map<Cluster.PartMatch, List<Failure>> failed = new IdentityHashMap<>();

    /** Why a shape at least as large as {@code shape}, for at least {@code duration}, failed (null: none did). */
    PendingReason known(Shape shape, long duration) {
        List<Failure> list = failed.get(shape.match());
        if (list != null) {
            for (Failure f : list) {
                if (duration >= f.duration && shape.dominates(f.shape)) {
                    return f.reason;
                }
            }
        }
        return null;
    }

    void remember(Shape shape, long duration, PendingReason why) {
        List<Failure> list = failed.computeIfAbsent(shape.match(), k -> new ArrayList<>());
        // Entries the new one is smaller than are now redundant: keep the list minimal.
        list.removeIf(f -> f.duration >= duration && f.shape.dominates(shape));
        if (list.size() < MAX_FAILED_SHAPES) {
            list.add(new Failure(shape, duration, why));
        }
    }
}
