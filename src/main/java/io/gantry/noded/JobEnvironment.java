package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.StepProtocol;
import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The environment a batch script sees, never inherited from the agent: the owner's basics (PATH,
 * HOME, USER, LOGNAME, SHELL), then what the job was submitted with, then the variables that
 * describe the job, under Gantry's names and Slurm's so existing scripts run unchanged.
 * {@code CUDA_VISIBLE_DEVICES} is exactly the job's GPUs on this node, and absent when it has none.
 */
final class JobEnvironment {

    private JobEnvironment() {
    }

    /** The owner's basics, what a login would give: PATH, HOME, USER, LOGNAME, SHELL. */
    static Map<String, String> basics(UnixAccount owner) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", owner.home());
        env.put("USER", owner.name());
        env.put("LOGNAME", owner.name());
        env.put("SHELL", owner.shell());
        return env;
    }

    /** Who the job runs as on this node, as Slurm names it. */
    static void owner(Map<String, String> env, UnixAccount owner) {
        env.put("SLURM_JOB_USER", owner.name());
        env.put("SLURM_JOB_UID", Long.toString(owner.uid()));
        env.put("SLURM_JOB_GID", Long.toString(owner.gid()));
    }

    /**
     * Puts the agent's commands for jobs ({@code srun}, {@code gantry srun}) first on the PATH, once,
     * and tells them where the controller is.
     */
    static void tools(Map<String, String> env, Path bin, List<URI> controllers) {
        String dir = bin.toString();
        String path = env.getOrDefault("PATH", "");
        if (!Arrays.asList(path.split(":")).contains(dir)) {
            env.put("PATH", path.isEmpty() ? dir : dir + ":" + path);
        }
        if (controllers != null && !controllers.isEmpty()) {
            env.put(StepProtocol.CONTROLLER_ENV, String.join(",",
                    controllers.stream().map(u -> u.toString().replaceAll("/+$", "")).toList()));
        }
    }

    /**
     * Fills {@code env} (the owner's basics; any Slurm or Gantry variables in it are replaced).
     *
     * @param submitDir the job's working directory
     */
    static void apply(Map<String, String> env, Launch launch, String node, String submitDir) {
        apply(env, launch, node, submitDir, List.of());
    }

    /**
     * As {@link #apply(Map, Launch, String, String)}, on a node whose MIG instances have the UUIDs
     * {@code migUuids} (nvidia-smi -L order): a job on MIG instances sees exactly those
     * ({@code CUDA_VISIBLE_DEVICES=MIG-...}), a job on shards the one GPU they are on.
     */
    static void apply(Map<String, String> env, Launch launch, String node, String submitDir, List<String> migUuids) {
        env.keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("SLURMD_") || k.startsWith("GANTRY_"));
        env.remove("CUDA_VISIBLE_DEVICES");
        env.remove("GPU_DEVICE_ORDINAL");
        if (launch.environment() != null) {
            launch.environment().forEach((k, v) -> {
                if (k != null && v != null && !k.isEmpty() && k.indexOf('=') < 0 && k.indexOf('\0') < 0
                        && v.indexOf('\0') < 0) {
                    env.put(k, v);
                }
            });
        }
        String jobId = Long.toString(OutputPattern.numericJobId(launch));
        List<String> nodes = launch.nodes() == null || launch.nodes().isEmpty() ? List.of(node) : launch.nodes();
        String nodelist = launch.nodelist() == null ? String.join(",", nodes) : launch.nodelist();
        String numNodes = Integer.toString(nodes.size());
        String tasks = Integer.toString(Math.max(1, launch.tasks()));

        put(env, "GANTRY_JOB_ID", launch.jobId());
        put(env, "GANTRY_NODELIST", nodelist);
        put(env, "GANTRY_NTASKS", tasks);
        put(env, "GANTRY_JOB_NAME", launch.name());
        put(env, "GANTRY_PARTITION", launch.partition());
        put(env, "GANTRY_ACCOUNT", launch.account());
        put(env, "SLURM_JOB_ID", jobId);
        put(env, "SLURM_JOBID", jobId);
        put(env, "SLURM_JOB_NAME", launch.name());
        put(env, "SLURM_JOB_NODELIST", nodelist);
        put(env, "SLURM_NODELIST", nodelist);
        put(env, "SLURM_JOB_NUM_NODES", numNodes);
        put(env, "SLURM_NNODES", numNodes);
        put(env, "SLURM_NTASKS", tasks);
        put(env, "SLURM_NPROCS", tasks);
        put(env, "SLURM_CPUS_PER_TASK", Integer.toString(Math.max(1, launch.cpusPerTask())));
        put(env, "SLURM_CPUS_ON_NODE", Integer.toString(launch.cpusOnNode()));
        put(env, "SLURM_MEM_PER_NODE", Long.toString(launch.memoryMbOnNode()));
        put(env, "SLURM_JOB_PARTITION", launch.partition());
        put(env, "SLURM_JOB_ACCOUNT", launch.account());
        put(env, "SLURM_JOB_QOS", launch.qos());
        put(env, "SLURM_JOB_USER", launch.user());
        put(env, "SLURM_SUBMIT_DIR", submitDir);
        put(env, "SLURMD_NODENAME", node);
        put(env, "SLURM_NODEID", "0");
        put(env, "SLURM_PROCID", "0");
        if (launch.arrayTaskId() != null) {
            put(env, "SLURM_ARRAY_JOB_ID", Long.toString(launch.arrayJobId()));
            put(env, "SLURM_ARRAY_TASK_ID", Integer.toString(launch.arrayTaskId()));
        }
        context(env, launch);
        if (launch.gpuIndices() != null && !launch.gpuIndices().isEmpty()) {
            String gpus = launch.gpuIndices().stream().map(String::valueOf).collect(Collectors.joining(","));
            put(env, "CUDA_VISIBLE_DEVICES", gpus);
            put(env, "GPU_DEVICE_ORDINAL", gpus);
            put(env, "SLURM_JOB_GPUS", gpus);
        } else if (launch.migIndices() != null && !launch.migIndices().isEmpty()) {
            // A MIG instance is addressed by its UUID; one this agent does not know is left out, not guessed.
            String devices = launch.migIndices().stream()
                    .filter(i -> i >= 0 && i < migUuids.size()).map(migUuids::get).collect(Collectors.joining(","));
            put(env, "CUDA_VISIBLE_DEVICES", devices);
            put(env, "GPU_DEVICE_ORDINAL", devices);
        } else if (launch.shardGpu() != null) {
            String gpu = launch.shardGpu().toString();
            put(env, "CUDA_VISIBLE_DEVICES", gpu);
            put(env, "GPU_DEVICE_ORDINAL", gpu);
            put(env, "SLURM_JOB_GPUS", gpu);
        }
    }

    /**
     * The rest of what Slurm 22.05 gives a batch step, which launchers read (OpenMPI's {@code mpirun}
     * stops without {@code SLURM_TASKS_PER_NODE}): the batch step is task 0 of the job on its first node,
     * the allocation's CPUs and tasks per node in Slurm's compressed form ({@code 2(x2)}), and what the
     * controller's {@link Launch#context()} adds (none from an older controller).
     */
    private static void context(Map<String, String> env, Launch launch) {
        put(env, "SLURM_LOCALID", "0");
        put(env, "SLURM_GTIDS", "0");
        int gpusOnNode = (launch.gpuIndices() == null ? 0 : launch.gpuIndices().size())
                + (launch.migIndices() == null ? 0 : launch.migIndices().size());
        if (gpusOnNode > 0) {
            put(env, "SLURM_GPUS_ON_NODE", Integer.toString(gpusOnNode));
        }
        AgentProtocol.JobContext context = launch.context();
        if (context == null) {
            return;
        }
        put(env, "SLURM_CLUSTER_NAME", context.clusterName());
        put(env, "SLURM_JOB_CPUS_PER_NODE", context.cpusPerNode());
        put(env, "SLURM_TASKS_PER_NODE", context.tasksPerNode());
        if (context.ntasksPerNode() != null) {
            put(env, "SLURM_NTASKS_PER_NODE", Integer.toString(context.ntasksPerNode()));
        }
        if (context.gpusPerNode() != null) {
            put(env, "SLURM_GPUS_PER_NODE", Integer.toString(context.gpusPerNode()));
        }
        // Slurm sets it only once the job has been requeued; scripts test ${SLURM_RESTART_COUNT:-0}
        if (context.restartCount() > 0) {
            put(env, "SLURM_RESTART_COUNT", Integer.toString(context.restartCount()));
        }
        if (launch.arrayTaskId() != null && context.arrayTaskCount() != null) {
            put(env, "SLURM_ARRAY_TASK_COUNT", Integer.toString(context.arrayTaskCount()));
            put(env, "SLURM_ARRAY_TASK_MIN", Integer.toString(context.arrayTaskMin()));
            put(env, "SLURM_ARRAY_TASK_MAX", Integer.toString(context.arrayTaskMax()));
            put(env, "SLURM_ARRAY_TASK_STEP", Integer.toString(context.arrayTaskStep()));
        }
    }

    private static void put(Map<String, String> env, String name, String value) {
        if (value != null) {
            env.put(name, value);
        }
    }
}
