package io.gantry.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.assertj.core.api.SoftAssertions;

/**
 * The environment a live Slurm 22.05 gave a job (src/test/resources/slurm-env, recorded as its README
 * says), and the check that Gantry's environment for the same job has every one of its variables,
 * with the same value where the value does not depend on the host, user, ids or time.
 */
public final class SlurmEnvironmentFixture {

    /**
     * Slurm's variables that mean nothing in Gantry; each says why. Everything else of the fixture must
     * be there.
     */
    public static final Map<String, String> NOT_IN_GANTRY = Map.ofEntries(
            Map.entry("SLURM_CONF", "the path of slurm.conf: Gantry's nodes have no configuration file, the "
                    + "controller sends what they need"),
            Map.entry("SLURM_WORKING_CLUSTER", "cluster:host:port:RPC-version for Slurm's own clients; Gantry's "
                    + "commands find the controller through GANTRY_CONTROLLER"),
            Map.entry("SLURM_NODE_ALIASES", "\"(null)\" here: slurmd's name-to-address map for cloud nodes; "
                    + "Gantry's agents reach each other only through the controller"),
            Map.entry("SLURM_TOPOLOGY_ADDR", "a node's place in topology/tree's switches as a dotted path; "
                    + "Gantry's switches and blocks are not described per job"),
            Map.entry("SLURM_TOPOLOGY_ADDR_PATTERN", "the pattern of SLURM_TOPOLOGY_ADDR (see there)"),
            Map.entry("SLURM_PRIO_PROCESS", "the nice value of the submitting shell, which a Gantry "
                    + "submission does not carry (its --nice is the job's priority, as in Slurm)"),
            Map.entry("SLURM_SRUN_COMM_HOST", "srun's own socket for slurmstepd: Gantry's srun listens on "
                    + "nothing, task I/O goes through the controller"),
            Map.entry("SLURM_SRUN_COMM_PORT", "as SLURM_SRUN_COMM_HOST"),
            Map.entry("SLURM_STEP_LAUNCHER_PORT", "as SLURM_SRUN_COMM_HOST"),
            Map.entry("SLURM_LAUNCH_NODE_IPADDR", "as SLURM_SRUN_COMM_HOST"),
            Map.entry("SLURM_MEM_PER_CPU", "Gantry keeps a job's memory per node (--mem-per-cpu becomes it at "
                    + "submission), so its jobs get SLURM_MEM_PER_NODE instead"));

    /** Values that name this run's hosts, user, ids, paths or process: compared by presence only. */
    public static final Set<String> HOST_SPECIFIC = Set.of("SLURMD_NODENAME", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
            "SLURM_STEP_NODELIST", "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_ARRAY_JOB_ID", "SLURM_JOB_UID",
            "SLURM_JOB_GID", "SLURM_JOB_USER", "SLURM_JOB_NAME", "SLURM_JOB_PARTITION", "SLURM_SUBMIT_DIR",
            "SLURM_SUBMIT_HOST", "SLURM_CLUSTER_NAME", "SLURM_TASK_PID", "SLURM_UMASK");

    private SlurmEnvironmentFixture() {
    }

    /** The SLURM_* (and GPU) variables of one recorded environment, e.g. {@code batch.env}. */
    public static Map<String, String> load(String name) {
        try (InputStream in = SlurmEnvironmentFixture.class.getResourceAsStream("/slurm-env/" + name)) {
            assertThat(in).as("fixture slurm-env/" + name).isNotNull();
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code env | sort} output as a map (lines without '=' are continuations and ignored). */
    public static Map<String, String> parse(String text) {
        Map<String, String> env = new TreeMap<>();
        text.lines().forEach(line -> {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        });
        return env;
    }

    /**
     * Fails unless {@code gantry} has every variable of the fixture but those {@link #NOT_IN_GANTRY},
     * with the fixture's value unless it is {@link #HOST_SPECIFIC}; lists all differences at once.
     */
    public static void assertMatches(String what, Map<String, String> fixture, Map<String, String> gantry) {
        SoftAssertions soft = new SoftAssertions();
        List<String> missing = new ArrayList<>();
        fixture.forEach((name, value) -> {
            if (NOT_IN_GANTRY.containsKey(name)) {
                return;
            }
            if (!gantry.containsKey(name)) {
                missing.add(name);
            } else if (!HOST_SPECIFIC.contains(name)) {
                soft.assertThat(gantry.get(name)).as(what + ": " + name).isEqualTo(value);
            }
        });
        soft.assertThat(missing).as(what + ": Slurm's variables missing from Gantry's environment").isEmpty();
        soft.assertAll();
    }
}
