package io.gantry.cli.srun;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;

import io.gantry.noded.protocol.ContainerSpec;

/**
 * srun's command line, read as Slurm's getopt does: long options as {@code --opt=value} or
 * {@code --opt value} (or an unambiguous prefix), short ones as {@code -n4}, {@code -n 4} or
 * bundled ({@code -ln4}); options end at {@code --} or at the first word that is not one, which
 * starts the command. {@link #parse} throws {@link IllegalArgumentException} with Slurm's wording.
 */
record SrunOptions(Integer ntasks, Integer nodes, Integer ntasksPerNode, Integer cpusPerTask, Integer gpusPerTask,
        Integer gpusPerNode, boolean label, boolean killOnBadExit, String output, String error, String export,
        String jobName, String nodelist, String mpi, boolean overlap, boolean exact, String chdir, boolean quiet,
        boolean unbuffered, boolean help, boolean version, List<String> command, String jobid,
        List<String> allocation, List<String> stepOptions, Integer awaitStep, boolean pty, String input,
        ContainerSpec container) {

    static final String USAGE = """
            Usage: srun [OPTIONS...] executable [args...]
              -n, --ntasks=N            number of tasks to run
              -N, --nodes=N             number of nodes of the allocation to use
                  --ntasks-per-node=N   tasks per node
              -c, --cpus-per-task=N     CPUs per task
                  --gpus-per-task=N     GPUs per task (each task sees its own in CUDA_VISIBLE_DEVICES)
                  --gpus-per-node=N     GPUs per node
              -w, --nodelist=HOSTS      run on these nodes of the allocation
              -l, --label               prefix each output line with its task number
              -K, --kill-on-bad-exit[=0|1]  end the step when a task exits non-zero
              -o, --output=FILE         task output to FILE (%j job, %s step, %t task, %n node id, %N node)
              -e, --error=FILE          task errors to FILE
                  --export=ALL|NONE|ALL,NAME=value,...  the environment tasks get
              -J, --job-name=NAME       the step's name
              -D, --chdir=DIR           the tasks' working directory
                  --overlap             share resources with running steps
                  --exact               only the resources asked for
                  --mpi=TYPE            none, or pmi2 to start MPICH programs directly (--mpi=list)
                  --cpu-bind=...        accepted and ignored
              -u, --unbuffered          pass output on as it comes, not line by line
              -Q, --quiet               no informational messages
                  --jobid=N             run the step in one's own running job N (from outside it)
                  --pty                 run task 0 on a pseudo-terminal, relayed to this terminal (a shell:
                                        srun --pty bash; inside one's running job: --jobid=N --overlap --pty)
              -i, --input=none|0        task 0 reads srun's standard input (0), or every task /dev/null (none)
                  --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH  run the tasks in this image (pyxis)
                  --container-mounts=SRC:DST[:ro|rw][,...]  bind mounts inside the container
                  --container-workdir=PATH  the tasks' working directory inside
                  --container-name=NAME     keep the container for the job's later steps, or reuse it
                  --container-env=NAME[,...]  variables whose host values win over the image's
                  --[no-]container-mount-home, --[no-]container-remap-root, --[no-]container-entrypoint,
                  --container-writable, --container-readonly  as pyxis
                  --container=PATH          run the tasks in this OCI bundle (Slurm)
            Outside a job srun first asks for a job from its options (-N -n -c --mem --gres --gpus -p -A -q
            -t -J -w --exclusive ...), runs the step as that job's only work and ends the job with it.
            """;

    private enum Arg {
        NONE, REQUIRED, OPTIONAL
    }

    private record Option(String name, char letter, Arg arg, BiConsumer<Builder, String> apply) {
    }

    /** Slurm's options srun accepts, with what each sets; the ones that do not apply here are accepted and ignored. */
    private static final List<Option> OPTIONS = java.util.stream.Stream.concat(java.util.stream.Stream.of(
            new Option("ntasks", 'n', Arg.REQUIRED, (b, v) -> b.ntasks = positive("--ntasks", v)),
            new Option("nodes", 'N', Arg.REQUIRED, (b, v) -> b.nodes = nodes(v)),
            new Option("ntasks-per-node", '\0', Arg.REQUIRED,
                    (b, v) -> b.ntasksPerNode = positive("--ntasks-per-node", v)),
            new Option("cpus-per-task", 'c', Arg.REQUIRED, (b, v) -> b.cpusPerTask = positive("--cpus-per-task", v)),
            new Option("gpus-per-task", '\0', Arg.REQUIRED, (b, v) -> b.gpusPerTask = gpus("--gpus-per-task", v)),
            new Option("gpus-per-node", '\0', Arg.REQUIRED, (b, v) -> b.gpusPerNode = gpus("--gpus-per-node", v)),
            new Option("label", 'l', Arg.NONE, (b, v) -> b.label = true),
            new Option("kill-on-bad-exit", 'K', Arg.OPTIONAL, (b, v) -> b.killOnBadExit = killOnBadExit(v)),
            new Option("output", 'o', Arg.REQUIRED, (b, v) -> b.output = v),
            new Option("error", 'e', Arg.REQUIRED, (b, v) -> b.error = v),
            new Option("export", '\0', Arg.REQUIRED, (b, v) -> b.export = v),
            new Option("job-name", 'J', Arg.REQUIRED, (b, v) -> b.jobName = v),
            new Option("nodelist", 'w', Arg.REQUIRED, (b, v) -> b.nodelist = v),
            new Option("mpi", '\0', Arg.REQUIRED, (b, v) -> b.mpi = mpi(v)),
            new Option("overlap", '\0', Arg.NONE, (b, v) -> b.overlap = true),
            new Option("exact", '\0', Arg.NONE, (b, v) -> b.exact = true),
            // in Slurm 22.05 a step's --exclusive means --exact
            new Option("exclusive", '\0', Arg.OPTIONAL, (b, v) -> b.exact = true),
            new Option("chdir", 'D', Arg.REQUIRED, (b, v) -> b.chdir = v),
            new Option("quiet", 'Q', Arg.NONE, (b, v) -> b.quiet = true),
            new Option("unbuffered", 'u', Arg.NONE, (b, v) -> b.unbuffered = true),
            new Option("help", 'h', Arg.NONE, (b, v) -> b.help = true),
            new Option("usage", '\0', Arg.NONE, (b, v) -> b.help = true),
            new Option("version", 'V', Arg.NONE, (b, v) -> b.version = true),
            new Option("verbose", 'v', Arg.NONE, (b, v) -> { }),
            new Option("cpu-bind", '\0', Arg.REQUIRED, (b, v) -> { }),
            // the old spelling Slurm 22.05 still takes, because OpenMPI up to 4.0 starts its orteds with --cpu_bind=none
            new Option("cpu_bind", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("gpu-bind", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("mem-bind", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("distribution", 'm', Arg.REQUIRED, (b, v) -> { }),
            new Option("hint", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("mem", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("mem-per-cpu", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("mem-per-gpu", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("time", 't', Arg.REQUIRED, (b, v) -> { }),
            new Option("partition", 'p', Arg.REQUIRED, (b, v) -> { }),
            new Option("account", 'A', Arg.REQUIRED, (b, v) -> { }),
            new Option("qos", 'q', Arg.REQUIRED, (b, v) -> { }),
            new Option("gpus", 'G', Arg.REQUIRED, (b, v) -> { }),
            new Option("constraint", 'C', Arg.REQUIRED, (b, v) -> { }),
            new Option("reservation", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("jobid", '\0', Arg.REQUIRED, (b, v) -> b.jobid = jobid(v)),
            // Gantry's own: the batch work of a job an srun outside any job asked for (see Srun#outside)
            new Option("gantry-await-step", '\0', Arg.REQUIRED,
                    (b, v) -> b.awaitStep = Integer.parseInt(jobid(v))),
            new Option("gres", '\0', Arg.REQUIRED, (b, v) -> { }),
            new Option("pty", '\0', Arg.NONE, (b, v) -> b.pty = true),
            // MPICH's mpiexec starts its proxies with --input none
            new Option("input", 'i', Arg.REQUIRED, (b, v) -> b.input = input(v))),
            containerOptions()).toList();

    /**
     * pyxis's {@code --container-*} and Slurm's {@code --container}, read as sbatch reads them (the step
     * runs in that container on every node); pyxis's save, entrypoint-log and unshare are accepted and ignored.
     */
    private static java.util.stream.Stream<Option> containerOptions() {
        List<Option> options = new ArrayList<>();
        io.gantry.noded.protocol.ContainerOptions.OPTIONS.forEach((name, takesValue) -> options.add(new Option(name, '\0',
                takesValue ? Arg.REQUIRED : Arg.NONE, (b, v) -> {
                    try {
                        b.container.apply(name, v);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("--" + name + ": " + e.getMessage());
                    }
                })));
        for (String name : io.gantry.noded.protocol.ContainerOptions.IGNORED) {
            options.add(new Option(name, '\0', io.gantry.noded.protocol.ContainerOptions.IGNORED_FLAGS.contains(name) ? Arg.NONE : Arg.REQUIRED,
                    (b, v) -> { }));
        }
        return options.stream();
    }

    /**
     * Options that shape the job srun asks for when it runs outside one: passed to the controller as
     * sbatch directives, which it checks with sbatch's own rules.
     */
    private static final java.util.Set<String> ALLOCATION = java.util.Set.of("ntasks", "nodes", "ntasks-per-node",
            "cpus-per-task", "gpus-per-task", "gpus-per-node", "job-name", "nodelist", "exclusive", "mem",
            "mem-per-cpu", "mem-per-gpu", "time", "partition", "account", "qos", "gpus", "constraint", "reservation",
            "gres");

    /** Options that only the srun the user typed acts on: where output goes, and which job. */
    private static final java.util.Set<String> CLIENT_ONLY = java.util.Set.of("label", "output", "error",
            "unbuffered", "jobid", "help", "usage", "version", "verbose", "gantry-await-step", "pty", "input");

    private static final class Builder {
        Integer ntasks;
        Integer nodes;
        Integer ntasksPerNode;
        Integer cpusPerTask;
        Integer gpusPerTask;
        Integer gpusPerNode;
        boolean label;
        boolean killOnBadExit;
        String output;
        String error;
        String export;
        String jobName;
        String nodelist;
        String mpi;
        boolean overlap;
        boolean exact;
        String chdir;
        boolean quiet;
        boolean unbuffered;
        boolean help;
        boolean version;
        String jobid;
        Integer awaitStep;
        boolean pty;
        String input;
        final io.gantry.noded.protocol.ContainerOptions.Builder container = new io.gantry.noded.protocol.ContainerOptions.Builder();
        final List<String> allocation = new ArrayList<>();
        final List<String> stepOptions = new ArrayList<>();

        void record(Option option, String value) {
            String word = "--" + option.name() + (value == null ? "" : "=" + value);
            if (ALLOCATION.contains(option.name())) {
                allocation.add(word.substring(2));
            }
            if (!CLIENT_ONLY.contains(option.name())) {
                stepOptions.add(word);
            }
        }
    }

    static SrunOptions parse(List<String> args) {
        Builder b = new Builder();
        int i = 0;
        while (i < args.size()) {
            String a = args.get(i);
            if (a.equals("--")) {
                i++;
                break;
            }
            if (a.startsWith("--")) {
                String name = a.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                Option option = byName(name, a);
                switch (option.arg()) {
                    case NONE -> {
                        if (value != null) {
                            throw new IllegalArgumentException("option '--" + option.name()
                                    + "' doesn't allow an argument");
                        }
                    }
                    case REQUIRED -> {
                        if (value == null) {
                            if (i + 1 >= args.size()) {
                                throw new IllegalArgumentException("option '--" + option.name()
                                        + "' requires an argument");
                            }
                            value = args.get(++i);
                        }
                    }
                    case OPTIONAL -> {
                        // only the attached form carries a value
                    }
                }
                option.apply().accept(b, value);
                b.record(option, value);
                i++;
            } else if (a.startsWith("-") && a.length() > 1) {
                for (int j = 1; j < a.length(); j++) {
                    char c = a.charAt(j);
                    Option option = OPTIONS.stream().filter(o -> o.letter() == c).findFirst()
                            .orElseThrow(() -> new IllegalArgumentException("invalid option -- '" + c + "'"));
                    if (option.arg() == Arg.NONE) {
                        option.apply().accept(b, null);
                        b.record(option, null);
                        continue;
                    }
                    String rest = a.substring(j + 1);
                    String value = rest.isEmpty() ? null : rest;
                    if (option.arg() == Arg.REQUIRED && value == null) {
                        if (i + 1 >= args.size()) {
                            throw new IllegalArgumentException("option requires an argument -- '" + c + "'");
                        }
                        value = args.get(++i);
                    }
                    option.apply().accept(b, value);
                    b.record(option, value);
                    break;
                }
                i++;
            } else {
                break;
            }
        }
        List<String> command = List.copyOf(args.subList(i, args.size()));
        return new SrunOptions(b.ntasks, b.nodes, b.ntasksPerNode, b.cpusPerTask, b.gpusPerTask, b.gpusPerNode,
                b.label, b.killOnBadExit, b.output, b.error, b.export, b.jobName, b.nodelist, b.mpi, b.overlap,
                b.exact, b.chdir, b.quiet, b.unbuffered, b.help, b.version, command, b.jobid,
                List.copyOf(b.allocation), List.copyOf(b.stepOptions), b.awaitStep, b.pty, b.input,
                b.container.build());
    }

    /** An exact long name, else the one option it is an unambiguous prefix of. */
    private static Option byName(String name, String word) {
        for (Option o : OPTIONS) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        List<Option> candidates = new ArrayList<>();
        for (Option o : OPTIONS) {
            if (!name.isEmpty() && o.name().startsWith(name)) {
                candidates.add(o);
            }
        }
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        if (candidates.size() > 1) {
            throw new IllegalArgumentException("option '" + word + "' is ambiguous");
        }
        throw new IllegalArgumentException("unrecognized option '" + word + "'");
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("Invalid numeric value \"" + value + "\" for " + option + ".");
    }

    /** {@code N} or Slurm's {@code min-max}: the step takes the minimum, which the allocation can give. */
    private static int nodes(String value) {
        int dash = value.indexOf('-');
        return positive("--nodes", dash > 0 ? value.substring(0, dash) : value);
    }

    /** {@code N} or {@code type:N}. */
    private static int gpus(String option, String value) {
        int colon = value.lastIndexOf(':');
        return positive(option, colon >= 0 ? value.substring(colon + 1) : value);
    }

    private static String jobid(String value) {
        String id = value.strip();
        if (!id.matches("[0-9]+(_[0-9]+)?")) {
            throw new IllegalArgumentException("Invalid job id: " + value);
        }
        return id;
    }

    /**
     * {@code none} (every task reads /dev/null) or {@code 0} (task 0 reads srun's standard input); Slurm's
     * other modes (all tasks, a file pattern) are refused by name.
     */
    private static String input(String value) {
        String mode = value.strip();
        if (mode.equals("none") || mode.equals("0")) {
            return mode;
        }
        throw new IllegalArgumentException("--input=" + value + " is not supported: --input=0 gives task 0 srun's "
                + "standard input, --input=none gives every task /dev/null (the default)");
    }

    /** The same options with this container for the step. */
    SrunOptions withContainer(ContainerSpec spec) {
        return spec == container ? this : new SrunOptions(ntasks, nodes, ntasksPerNode, cpusPerTask, gpusPerTask,
                gpusPerNode, label, killOnBadExit, output, error, export, jobName, nodelist, mpi, overlap, exact, chdir,
                quiet, unbuffered, help, version, command, jobid, allocation, stepOptions, awaitStep, pty, input, spec);
    }

    /** Whether task 0 reads srun's standard input: with --pty, or --input=0. */
    boolean relaysInput() {
        return pty || "0".equals(input);
    }

    private static boolean killOnBadExit(String value) {
        if (value == null || value.equals("1")) {
            return true;
        }
        if (value.equals("0")) {
            return false;
        }
        throw new IllegalArgumentException("Invalid --kill-on-bad-exit value \"" + value + "\": 0 or 1");
    }

    /** What {@code srun --mpi=list} prints, in Slurm 22.05's words (to stdout). */
    static final String MPI_LIST = "MPI plugin types are...\n\tnone\n\tpmi2\n";

    /**
     * The MPI type: none (also OpenMPI's old openmpi, as in Slurm), pmi2 (the agents serve PMI to MPICH's
     * tasks), or list (srun prints {@link #MPI_LIST}). PMIx is refused with what works instead.
     */
    private static String mpi(String value) {
        String type = value.strip().toLowerCase(Locale.ROOT);
        if (type.equals("none") || type.equals("openmpi")) {
            return "none";
        }
        if (type.equals("pmi2") || type.equals("list")) {
            return type;
        }
        if (type.startsWith("pmix") || type.equals("cray_shasta")) {
            throw new IllegalArgumentException("--mpi=" + value + " is not supported: Gantry serves PMI to MPICH "
                    + "programs with --mpi=pmi2; start OpenMPI programs with mpirun inside the allocation");
        }
        throw new IllegalArgumentException("Invalid MPI type '" + value + "', --mpi=list for acceptable types");
    }
}
