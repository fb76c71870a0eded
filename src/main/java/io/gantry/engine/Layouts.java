package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Each request laid out on every partition as a {@link Shape}, with why it can never (or not while
 * nodes are down) run there; computed once per distinct request. The queue pass and the resource
 * profile (for {@link StartEstimator}) each keep one.
 */
final class Layouts {

    /** A request laid out on every partition, with why it can never (or not while nodes are down) run there. */
    private record Layout(Shape[] shapes, PendingReason[] no) {
    }

    private final Cluster c;
    private final Map<Request, Layout> layouts = new HashMap<>();

    Layouts(Cluster c) {
        this.c = c;
    }

    /**
     * Adds to {@code out} the job's shape in each of its partitions it could run in; returns why it
     * cannot run in the first one it cannot (null when it can in all).
     */
    PendingReason candidates(PendingJob job, List<Shape> out) {
        Layout layout = layoutOf(job.request());
        PendingReason firstNo = null;
        for (String name : job.partitions()) {
            Cluster.Part part = c.partsByName.get(name);
            PendingReason no;
            if (part == null) {
                no = PendingReason.PARTITION_CONFIG;
            } else if (!part.up()) {
                no = PendingReason.PARTITION_DOWN;
            } else if (part.maxTime() > 0 && job.timeLimitSeconds() > part.maxTime()) {
                no = PendingReason.PARTITION_TIME_LIMIT;
            } else {
                no = layout.no[part.index()];
                if (no == null) {
                    out.add(layout.shapes[part.index()]);
                }
            }
            if (no != null && firstNo == null) {
                firstNo = no;
            }
        }
        return firstNo;
    }

    /** The request laid out on partition {@code partition}. */
    Shape shape(Request r, int partition) {
        return layoutOf(r).shapes[partition];
    }

    private Layout layoutOf(Request r) {
        return layouts.computeIfAbsent(r, req -> {
            Shape[] s = new Shape[c.parts.length];
            PendingReason[] no = new PendingReason[c.parts.length];
            for (int p = 0; p < s.length; p++) {
                s[p] = Shape.of(req, c.parts[p], c);
                Feasibility f = Feasibilities.check(c, s[p]);
                if (f.fits() && req.sharesGpus()) {
                    f = SharedGpus.check(c, s[p], req);
                }
                no[p] = !f.fits() ? f.reason() : upNodesSuffice(s[p]) ? null : PendingReason.REQ_NODE_NOT_AVAIL;
            }
            return new Layout(s, no);
        });
    }

    private boolean upNodesSuffice(Shape s) {
        int n = 0;
        for (int ci = 0; ci < c.classCount; ci++) {
            if (s.capableClass(c, ci)) {
                n += s.match().up()[ci];
            }
        }
        for (int i : s.excluded()) {
            if (c.up.get(i) && s.candidates().get(i) && s.capable(c, i)) {
                n--;
            }
        }
        for (int i : s.required()) {
            if (!c.up.get(i)) {
                return false;
            }
        }
        return n >= s.nodes();
    }
}
