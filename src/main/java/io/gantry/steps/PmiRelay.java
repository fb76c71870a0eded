package io.gantry.steps;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.PmiProtocol;

/**
 * What the leader does for an {@code srun --mpi=pmi2} step ({@link PmiProtocol}): the variables its tasks
 * get, a node's part of a fence (merged with the others' in the step's {@link PmiExchange} and sent back
 * to every node once all are in), and a failed task (the step is killed on every node, as mpiexec does,
 * so that no rank waits for it forever). Each answers the commands to deliver, by node.
 */
final class PmiRelay {

    private static final Logger log = LoggerFactory.getLogger(PmiRelay.class);
    /** A PMI server's variables in the srun caller's environment (srun inside a task): never a new step's. */
    private static final List<String> CALLER_PMI = List.of("PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE",
            "PMI_JOBID", "PMI_SPAWNED");

    private PmiRelay() {
    }

    /** Slurm's SLURM_MPI_TYPE (set unless the type is none); the caller's PMI variables are left out. */
    static void environment(Map<String, String> env, String mpi) {
        CALLER_PMI.forEach(env::remove);
        env.remove("SLURM_MPI_TYPE");
        if (!PmiProtocol.NONE.equals(mpi)) {
            env.put("SLURM_MPI_TYPE", mpi);
        }
    }

    /** A PMI_FENCE or PMI_ABORT report of {@code node}. */
    static Map<String, List<Command>> report(StepRun run, String node, StepReport r) {
        if (r.type() == StepReportType.PMI_ABORT) {
            log.info("Step {}.{}: {} (on {})", run.step.jobId(), run.step.stepId(),
                    r.data() == null ? "task " + r.procId() + " aborted" : r.data(), node);
            return failed(run, r.procId(), r.exitCode());
        }
        Map<String, String> merged;
        try {
            merged = run.pmi().contribute(node, (int) r.seq(), r.data());
        } catch (PmiExchange.Overflow e) {
            log.warn("Step {}.{}: {}: ending it", run.step.jobId(), run.step.stepId(), e.getMessage());
            return failed(run, r.procId(), 1);
        }
        if (merged == null) {
            return Map.of();
        }
        Map<String, List<Command>> byNode = new LinkedHashMap<>();
        for (String n : run.step.nodes()) {
            byNode.put(n, List.of(Command.pmiFence(run.step.jobId(), run.step.stepId(), (int) r.seq(), merged)));
        }
        return byNode;
    }

    /**
     * A task of the step failed ({@code exitCode} what its abort asked for, or null): the first time, the
     * step's tasks are killed on every node.
     */
    static Map<String, List<Command>> failed(StepRun run, int procId, Integer exitCode) {
        if (!run.failFast(procId, exitCode)) {
            return Map.of();
        }
        return StepService.signals(run, "KILL");
    }
}
