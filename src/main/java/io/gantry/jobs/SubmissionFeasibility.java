package io.gantry.jobs;

import java.util.List;

import io.gantry.api.GantryException.FieldError;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.Engine;
import io.gantry.engine.Feasibility;
import io.gantry.engine.Node;
import io.gantry.engine.Partition;
import io.gantry.engine.PendingJob;
import io.gantry.engine.PendingReason;
import io.gantry.engine.Request;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Switch;

/**
 * "Could this job ever run?", asked of the engine at submission with the request the scheduler will
 * plan ({@link EngineRequests}), so that a job no node could ever take is refused with a field error
 * naming what is too big rather than left pending forever.
 */
final class SubmissionFeasibility {

    private final ClusterService cluster;
    private final Engine engine = new Engine();
    private volatile Shapes shapes;

    SubmissionFeasibility(ClusterService cluster) {
        this.cluster = cluster;
    }

    /**
     * Why the draft could never run, as the error for the field it is about; null when it could, or when
     * another mistake already shapes the request (an unknown partition, a bad GPU count): whether it could
     * ever run is asked even when other fields are wrong, as long as none of them shapes the request (an
     * unknown account, a bad dependency), so that one answer names every mistake.
     */
    FieldError neverRuns(SubmissionDraft d, long now) {
        if (!d.errors.stream().allMatch(SubmissionFeasibility::leavesRequestWhole)) {
            return null;
        }
        PendingJob job = EngineRequests.trial(d, d.caller.username(), now);
        Request request = job.request();
        Feasibility feasibility = feasibility(job, now);
        if (feasibility.fits()) {
            return null;
        }
        String field = switch (feasibility.cause()) {
            case NODELIST -> d.nodelistField;
            case EXCLUDE -> d.excludeField;
            case REQUEST -> request.sharesGpus() && feasibility.reason() == PendingReason.BAD_CONSTRAINTS
                    ? (request.shards() > 0 ? "shards" : "gpuType")
                    : fieldOf(feasibility, d.gpusPerNode > 0 && d.gpus == 0);
        };
        String message = feasibility.message();
        if (feasibility.reason() == PendingReason.BAD_CONSTRAINTS && d.gpuType != null) {
            java.util.SortedSet<String> types = gpuTypes(d.partitions, d.layout);
            if (!types.contains(d.gpuType)) {
                field = "gpuType";
                message = "no node in " + String.join(",", d.partitions) + " has GPUs of type '" + d.gpuType + "'"
                        + (types.isEmpty() ? "; its nodes have no typed GPUs" : "; it has " + String.join(", ", types));
            }
        }
        return new FieldError(field, message);
    }

    private Feasibility feasibility(PendingJob job, long now) {
        Shapes shapes = shapes();
        Snapshot snapshot = Snapshot.builder().now(now).nodes(shapes.nodes()).partitions(shapes.partitions())
                .switches(shapes.switches()).build();
        // The engine keeps the cluster it built from these very lists (it compares them by identity), and
        // memoises lookups in it without locks: one submission at a time asks it, for microseconds.
        synchronized (engine) {
            return engine.feasibility(snapshot, job);
        }
    }

    /**
     * The configured cluster as "could this ever run" sees it. Feasibility ignores node and partition
     * states (every node is taken as up), so it is built once per cluster layout: building it per
     * submission (sorting every node by name, reading the partitions' states from the store) was
     * nearly all of a submission's CPU on a 1,000-node cluster. A node that joins through its agent
     * makes a new layout, and the next submission sees it.
     */
    private Shapes shapes() {
        Shapes built = shapes;
        ClusterLayout layout = cluster.layout();
        if (built == null || built.layout() != layout) {
            // Through a snapshot, so the lists kept are the snapshot's own immutable copies, which later
            // snapshots reuse as they are (List.copyOf of such a list is that list).
            ClusterService.EngineLayout shaped = cluster.engineShapes(layout);
            Snapshot first = Snapshot.builder().nodes(shaped.nodes()).partitions(shaped.partitions())
                    .switches(cluster.engineSwitches()).build();
            built = new Shapes(layout, first.nodes(), first.partitions(), first.switches());
            shapes = built;
        }
        return built;
    }

    private record Shapes(ClusterLayout layout, List<Node> nodes, List<Partition> partitions, List<Switch> switches) {
    }

    /** Fields whose mistakes leave the resource request as asked (the job's shape, partitions and time). */
    private static final java.util.Set<String> BESIDE_THE_REQUEST = java.util.Set.of("account", "qos", "name",
            "dependency", "array", "workdir", "stdout", "stderr", "comment", "reservation", "beginTime", "signal",
            "umask", "environment", "simulatedRunSeconds", "simulatedExitCode", "nice", "hold", "requeue",
            "killOnInvalidDep");

    /** Whether {@code field} names part of the container, which leaves the resource request as asked. */
    private static boolean container(String field) {
        return field.equals("container") || field.startsWith("container.");
    }

    /** Directives, as scripts spell them, whose mistakes leave the resource request as asked. */
    private static final java.util.Set<String> DIRECTIVES_BESIDE_THE_REQUEST = java.util.Set.of("-A", "--account",
            "-q", "--qos", "-J", "--job-name", "-d", "--dependency", "-a", "--array", "-o", "--output", "-e", "--error",
            "-D", "--chdir", "--comment", "-b", "--begin", "--nice", "--export", "--reservation", "--requeue",
            "--no-requeue", "--signal", "--mail-type", "--mail-user", "--open-mode", "--kill-on-invalid-dep");

    /** Whether the request can still be checked for "could it ever run" despite {@code error}. */
    private static boolean leavesRequestWhole(FieldError error) {
        if (error.field().startsWith("script:")) {
            int colon = error.message().indexOf(':');
            return colon > 0 && (DIRECTIVES_BESIDE_THE_REQUEST.contains(error.message().substring(0, colon))
                    || error.message().startsWith("--container"));
        }
        return BESIDE_THE_REQUEST.contains(error.field()) || container(error.field());
    }

    /** The GPU types of the partitions' nodes. */
    private static java.util.SortedSet<String> gpuTypes(List<String> partitions, ClusterLayout layout) {
        java.util.SortedSet<String> types = new java.util.TreeSet<>();
        for (String p : partitions) {
            ClusterLayout.PartitionSpec partition = layout.partitions().get(p);
            if (partition == null) {
                continue;
            }
            for (String n : partition.nodes()) {
                ClusterLayout.NodeSpec node = layout.nodes().get(n);
                if (node != null && node.gpus() > 0 && node.gpuType() != null) {
                    types.add(node.gpuType());
                }
            }
        }
        return types;
    }

    /**
     * The field a never-feasible request is about. For "no node in gpu has 16 GPUs; ..." the first
     * resource no node has enough of: GPUs (gpus, or gpusPerNode when asked per node), CPUs
     * (cpusPerTask) or memory (memoryMb); a request too big only as a whole stays "request".
     */
    private static String fieldOf(Feasibility feasibility, boolean gpusPerNode) {
        String message = feasibility.message();
        return switch (feasibility.reason()) {
            case PARTITION_TIME_LIMIT -> "timeLimitSeconds";
            case PARTITION_NODE_LIMIT -> "nodes";
            case BAD_CONSTRAINTS -> "constraints";
            case PARTITION_CONFIG -> message.startsWith("invalid partition") ? "partition"
                    : LACKING_GPUS.matcher(message).lookingAt() ? (gpusPerNode ? "gpusPerNode" : "gpus")
                    : LACKING_CPUS.matcher(message).lookingAt() ? "cpusPerTask"
                    : LACKING_MEMORY.matcher(message).lookingAt() ? "memoryMb"
                    : "request";
            default -> "request";
        };
    }

    private static final java.util.regex.Pattern LACKING_GPUS = java.util.regex.Pattern.compile("no node in .* has \\d+ GPUs?;");
    private static final java.util.regex.Pattern LACKING_CPUS = java.util.regex.Pattern.compile("no node in .* has \\d+ CPUs?;");
    private static final java.util.regex.Pattern LACKING_MEMORY = java.util.regex.Pattern.compile("no node in .* has \\d+ MB of memory;");
}
