package io.gantry.noded;

import io.gantry.noded.JobProcess.StartFailure;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The node's prolog and epilog ({@code gantry.agents.prolog}/{@code epilog}), run as root around each batch job. */
final class PrologEpilog {

    private PrologEpilog() {
    }

    /**
     * Runs the prolog or epilog as root, with the job's ids in its environment; a prolog that fails
     * fails the job.
     */
    static void run(String program, String what, Launch launch, UnixAccount owner, String node, boolean mustSucceed)
            throws StartFailure {
        if (program == null || program.isBlank()) {
            return;
        }
        ProcessBuilder builder = new ProcessBuilder(program).redirectErrorStream(true).directory(Path.of("/").toFile());
        Map<String, String> env = builder.environment();
        env.clear();
        env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        env.put("SLURM_JOB_ID", Long.toString(OutputPattern.numericJobId(launch)));
        env.put("GANTRY_JOB_ID", launch.jobId());
        env.put("SLURM_JOB_USER", owner.name());
        env.put("SLURM_JOB_UID", Long.toString(owner.uid()));
        env.put("SLURM_JOB_GID", Long.toString(owner.gid()));
        env.put("SLURMD_NODENAME", node);
        try {
            Process p = builder.start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readNBytes(BatchStage.MAX_FAILURE_BYTES);
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new StartFailure(what + " " + program + " did not finish within 5 minutes on " + node);
            }
            if (p.exitValue() != 0 && mustSucceed) {
                throw new StartFailure(what + " " + program + " failed on " + node + " (exit code " + p.exitValue()
                        + "): " + new String(out, StandardCharsets.UTF_8).strip());
            }
        } catch (IOException e) {
            if (mustSucceed) {
                throw new StartFailure("cannot run the " + what + " " + program + " on " + node + ": " + e.getMessage());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartFailure(what + " interrupted on " + node);
        }
    }
}
