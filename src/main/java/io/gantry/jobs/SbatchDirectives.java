package io.gantry.jobs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import io.gantry.engine.Hostlist;
import io.gantry.engine.SlurmTime;

/**
 * Reads the {@code #SBATCH} directives of a batch script the way Slurm 22.05's sbatch does.
 *
 * <p>Directives are lines that start with exactly {@code #SBATCH} (or the old {@code #SLURM}),
 * read from the top through comment and blank lines; the first line whose first non-blank
 * character is not {@code #} ends them, so a directive after a command is plain text. As in
 * sbatch, {@code # SBATCH} and an indented {@code #SBATCH} are comments, whereas
 * {@code #SBATCH-N2} is a directive (sbatch only checks the prefix). Each directive line is split
 * into words as sbatch splits it: whitespace separates, single and double quotes group and are
 * removed, a backslash escapes the next quote or {@code #} (but, as in sbatch, an escaped space
 * still ends the word), and an unquoted {@code #} starts a comment.
 * The words are then read like sbatch's command line: {@code --opt=v}, {@code --opt v},
 * {@code -o v}, {@code -ov}, grouped flags ({@code -Hk}), and unambiguous abbreviations of long
 * options ({@code --job-n}).
 *
 * <p>Deliberate differences from sbatch, each so a mistake is reported instead of silently
 * changing the job: a value must be on the same line as its option (sbatch would take the first
 * word of the next directive line); an empty value ({@code --job-name=}) is an error; a
 * non-numeric {@code --nice} is an error (sbatch reads it as 0); {@code -N 0} is an error;
 * conflicting GPU types across {@code --gres}, {@code -G}, {@code --gpus-per-node} and
 * {@code --gpus-per-task} are an error, since a Gantry job has one GPU type; a node list read
 * from a file ({@code -w} with a {@code /}) is not supported. A script need not start with
 * {@code #!}: the caller decides whether to require one.
 */
public final class SbatchDirectives {

    private static final String IGNORED = " is accepted but Gantry does not act on it";

    private static final Pattern GPU_TYPE = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*");

    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private static final int MAX_NICE = 2_147_483_645;

    /**
     * The most host names a {@code -w} or {@code -x} list may expand to: more than any cluster Gantry
     * runs has nodes, few enough that expanding one stays cheap.
     */
    static final int MAX_HOSTLIST = SubmissionResolver.MAX_HOSTS;

    private static final Map<String, Option> LONG = new LinkedHashMap<>();

    private static final Map<Character, Option> SHORT = new LinkedHashMap<>();

    static {
        acted("job-name", 'J', Arg.VALUE, (p, o, v) -> p.name = text(v));
        acted("partition", 'p', Arg.VALUE, (p, o, v) -> p.partition = text(v));
        acted("account", 'A', Arg.VALUE, (p, o, v) -> p.account = text(v));
        acted("qos", 'q', Arg.VALUE, (p, o, v) -> p.qos = text(v));
        acted("nodes", 'N', Arg.VALUE, Parse::nodes);
        acted("ntasks", 'n', Arg.VALUE, (p, o, v) -> p.tasks = positive(v));
        acted("cpus-per-task", 'c', Arg.VALUE, (p, o, v) -> p.cpusPerTask = positive(v));
        acted("mem", null, Arg.VALUE, (p, o, v) -> p.memory(o, Memory.PER_NODE, v));
        acted("mem-per-cpu", null, Arg.VALUE, (p, o, v) -> p.memory(o, Memory.PER_CPU, v));
        acted("mem-per-gpu", null, Arg.VALUE, (p, o, v) -> p.memory(o, Memory.PER_GPU, v));
        acted("gres", null, Arg.VALUE, Parse::gres);
        acted("gpus", 'G', Arg.VALUE, (p, o, v) -> p.gpus = p.gpuCount(o, v));
        acted("gpus-per-node", null, Arg.VALUE, (p, o, v) -> p.gpusPerNode = p.gpuCount(o, v));
        acted("gpus-per-task", null, Arg.VALUE, (p, o, v) -> p.gpusPerTask = p.gpuCount(o, v));
        acted("cpus-per-gpu", null, Arg.VALUE, (p, o, v) -> p.cpusPerGpu = positive(v));
        acted("ntasks-per-node", null, Arg.VALUE, (p, o, v) -> p.ntasksPerNode = positive(v));
        acted("time", 't', Arg.VALUE, (p, o, v) -> p.timeLimitSeconds = SlurmTime.parseSeconds(v));
        acted("constraint", 'C', Arg.VALUE, (p, o, v) -> p.constraints = text(v));
        acted("exclusive", null, Arg.OPTIONAL_VALUE, Parse::exclusive);
        acted("dependency", 'd', Arg.VALUE, (p, o, v) -> p.dependency = DependencySpec.parse(v).toString());
        acted("array", 'a', Arg.VALUE, (p, o, v) -> p.array = ArraySpec.parse(v, p.maxArraySize).toString());
        acted("hold", 'H', Arg.NO_VALUE, (p, o, v) -> p.hold = true);
        acted("nice", null, Arg.OPTIONAL_VALUE, (p, o, v) -> p.nice = nice(v));
        acted("chdir", 'D', Arg.VALUE, (p, o, v) -> p.workdir = text(v));
        acted("output", 'o', Arg.VALUE, (p, o, v) -> p.stdout = text(v));
        acted("error", 'e', Arg.VALUE, (p, o, v) -> p.stderr = text(v));
        acted("requeue", null, Arg.NO_VALUE, (p, o, v) -> p.requeue = true);
        acted("no-requeue", null, Arg.NO_VALUE, (p, o, v) -> p.requeue = false);
        acted("nodelist", 'w', Arg.VALUE, (p, o, v) -> p.nodelist = hostlist(v));
        acted("exclude", 'x', Arg.VALUE, (p, o, v) -> p.exclude = hostlist(v));
        acted("begin", 'b', Arg.VALUE, (p, o, v) -> p.beginTime = BeginTime.parse(v));
        asked("deadline", SbatchDirectives::deadline);
        acted("reservation", null, Arg.VALUE, (p, o, v) -> p.reservation = text(v));
        acted("export", null, Arg.VALUE, (p, o, v) -> p.export = export(v));
        acted("comment", null, Arg.VALUE, (p, o, v) -> p.comment = text(v));
        asked("kill-on-invalid-dep", DependencySpec::killOnInvalidDep);
        acted("signal", null, Arg.VALUE, (p, o, v) -> p.signal = JobSignal.parse(v).toString());
        acted("switches", null, Arg.VALUE, (p, o, v) -> p.switches = JobSwitches.parse(v).toString());
        acted("time-min", null, Arg.VALUE, (p, o, v) -> p.timeMinSeconds = timeMin(v));
        acted("segment", null, Arg.VALUE, (p, o, v) -> p.segment = positive(v, "a segment size"));
        // pyxis's --container-* and Slurm's --container: the batch script runs in that container
        io.gantry.noded.protocol.ContainerOptions.OPTIONS.forEach((name, takesValue) -> acted(name, null, takesValue ? Arg.VALUE : Arg.NO_VALUE,
                (p, o, v) -> p.container.apply(name, v)));
        for (String name : io.gantry.noded.protocol.ContainerOptions.IGNORED) {
            ignored(name, null, io.gantry.noded.protocol.ContainerOptions.IGNORED_FLAGS.contains(name) ? Arg.NO_VALUE : Arg.VALUE);
        }
        acted("wrap", null, Arg.VALUE, (p, o, v) -> {
            throw new IllegalArgumentException("wraps a command line into a script, which makes no sense inside a script");
        });

        // Every other sbatch 22.05 option: accepted, as sbatch would, but reported.
        ignored("acctg-freq", null, Arg.VALUE);
        ignored("batch", null, Arg.VALUE);
        ignored("bb", null, Arg.VALUE);
        ignored("bbf", null, Arg.VALUE);
        ignored("cluster-constraint", null, Arg.VALUE);
        ignored("clusters", 'M', Arg.VALUE);
        ignored("contiguous", null, Arg.NO_VALUE);
        ignored("core-spec", 'S', Arg.VALUE);
        ignored("cores-per-socket", null, Arg.VALUE);
        ignored("cpu-freq", null, Arg.VALUE);
        ignored("delay-boot", null, Arg.VALUE);
        ignored("distribution", 'm', Arg.VALUE);
        ignored("export-file", null, Arg.VALUE);
        ignored("extra-node-info", 'B', Arg.VALUE);
        ignored("get-user-env", null, Arg.OPTIONAL_VALUE);
        ignored("gid", null, Arg.VALUE);
        ignored("gpu-bind", null, Arg.VALUE);
        ignored("gpu-freq", null, Arg.VALUE);
        ignored("gpus-per-socket", null, Arg.VALUE);
        ignored("gres-flags", null, Arg.VALUE);
        ignored("help", 'h', Arg.NO_VALUE);
        ignored("hint", null, Arg.VALUE);
        ignored("ignore-pbs", null, Arg.NO_VALUE);
        ignored("input", 'i', Arg.VALUE);
        ignored("licenses", 'L', Arg.VALUE);
        ignored("mail-type", null, Arg.VALUE);
        ignored("mail-user", null, Arg.VALUE);
        ignored("mcs-label", null, Arg.VALUE);
        ignored("mem-bind", null, Arg.VALUE);
        ignored("mincpus", null, Arg.VALUE);
        ignored("network", null, Arg.VALUE);
        ignored("no-kill", 'k', Arg.OPTIONAL_VALUE);
        ignored("nodefile", 'F', Arg.VALUE);
        ignored("ntasks-per-core", null, Arg.VALUE);
        ignored("ntasks-per-gpu", null, Arg.VALUE);
        ignored("ntasks-per-socket", null, Arg.VALUE);
        ignored("open-mode", null, Arg.VALUE);
        ignored("overcommit", 'O', Arg.NO_VALUE);
        ignored("oversubscribe", 's', Arg.NO_VALUE);
        ignored("parsable", null, Arg.NO_VALUE);
        ignored("power", null, Arg.VALUE);
        ignored("prefer", null, Arg.VALUE);
        ignored("priority", null, Arg.VALUE);
        ignored("profile", null, Arg.VALUE);
        ignored("propagate", null, Arg.OPTIONAL_VALUE);
        ignored("quiet", 'Q', Arg.NO_VALUE);
        ignored("reboot", null, Arg.NO_VALUE);
        ignored("sockets-per-node", null, Arg.VALUE);
        ignored("spread-job", null, Arg.NO_VALUE);
        ignored("test-only", null, Arg.NO_VALUE);
        ignored("thread-spec", null, Arg.VALUE);
        ignored("threads-per-core", null, Arg.VALUE);
        ignored("tmp", null, Arg.VALUE);
        ignored("uid", null, Arg.VALUE);
        ignored("usage", null, Arg.NO_VALUE);
        ignored("use-min-nodes", null, Arg.NO_VALUE);
        ignored("verbose", 'v', Arg.NO_VALUE);
        ignored("version", 'V', Arg.NO_VALUE);
        ignored("wait", 'W', Arg.NO_VALUE);
        ignored("wait-all-nodes", null, Arg.VALUE);
        ignored("wckey", null, Arg.VALUE);
    }

    private SbatchDirectives() {
    }

    /** Reads the directives with Slurm's default array size limit. */
    public static SbatchOptions parse(String script) {
        return parse(script, ArraySpec.DEFAULT_MAX_ARRAY_SIZE);
    }

    /**
     * Reads the directives of {@code script}.
     * @param maxArraySize the largest array index plus one, as Slurm's {@code MaxArraySize}
     * @return what they ask for, with a warning for each option Gantry does not act on
     * @throws SbatchException listing every unknown option, missing value and malformed value
     *     with its line, and what the other directives asked for (so a submission can report every
     *     other mistake in the same answer)
     */
    public static SbatchOptions parse(String script, int maxArraySize) {
        Objects.requireNonNull(script, "script");
        Parse parse = new Parse(maxArraySize);
        List<String> lines = script.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            parse.line = i + 1;
            if (line.startsWith("#SBATCH")) {
                parse.directive(line.substring("#SBATCH".length()));
            }
            else if (line.startsWith("#SLURM")) {
                parse.warnings.add("line " + parse.line + ": #SLURM is an old spelling of #SBATCH; write #SBATCH");
                parse.directive(line.substring("#SLURM".length()));
            }
            else if (isCommand(line)) {
                break;
            }
        }
        if (!parse.errors.isEmpty()) {
            SbatchOptions usable;
            try {
                usable = parse.options();
            } catch (RuntimeException e) {
                usable = null;
            }
            throw new SbatchException(parse.errors, usable);
        }
        return parse.options();
    }

    private static boolean isCommand(String line) {
        String content = line.stripLeading();
        return !content.isEmpty() && content.charAt(0) != '#';
    }

    /**
     * The options sbatch's command line takes, long name to whether each takes a value (Slurm's
     * getopt: {@code true} required, {@code false} none, {@code null} only as {@code --opt=value}), so the
     * CLI's sbatch tells its options from the script's name with the same registry the controller reads
     * directives with.
     */
    public static Map<String, Boolean> commandLineOptions() {
        Map<String, Boolean> options = new LinkedHashMap<>();
        LONG.forEach((name, o) -> options.put(name, o.arg() == Arg.OPTIONAL_VALUE ? null : o.arg() == Arg.VALUE));
        return options;
    }

    /** Short option letter to its long name. */
    public static Map<Character, String> shortOptions() {
        Map<Character, String> options = new LinkedHashMap<>();
        SHORT.forEach((letter, o) -> options.put(letter, o.longName()));
        return options;
    }

    private static void acted(String longName, Character shortName, Arg arg, Handler handler) {
        Option option = new Option(longName, shortName, arg, handler);
        LONG.put(longName, option);
        if (shortName != null) {
            SHORT.put(shortName, option);
        }
    }

    /**
     * An option whose value the job keeps as asked ({@link JobOptions}): parsed here, kept by its long name
     * ({@link SbatchOptions#asked}) for the resolver step that checks it.
     */
    private static void asked(String longName, java.util.function.Function<String, ?> parse) {
        acted(longName, null, Arg.VALUE, (p, o, v) -> p.asked.put(longName, parse.apply(v)));
    }

    private static void ignored(String longName, Character shortName, Arg arg) {
        acted(longName, shortName, arg, (p, o, v) -> p.warnings.add("line " + p.line + ": " + o + IGNORED));
    }

    private static String text(String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("needs a value");
        }
        if (ControlCharacters.in(value)) {
            throw new IllegalArgumentException("must not hold control characters (" + ControlCharacters.first(value) + ")");
        }
        return value;
    }

    private static int positive(String value) {
        int number = number(value);
        if (number < 1) {
            throw new IllegalArgumentException("'" + value + "' must be at least 1");
        }
        return number;
    }

    private static int number(String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("needs a number");
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                throw new IllegalArgumentException("'" + value + "' is not a whole number");
            }
        }
        try {
            return Integer.parseInt(value);
        }
        catch (NumberFormatException tooLarge) {
            throw new IllegalArgumentException("'" + value + "' is too large");
        }
    }

    /** A node count, with Slurm's k (1024) and m (1048576) multipliers. */
    private static int nodeCount(String value) {
        String digits = value;
        int multiplier = 1;
        if (!value.isEmpty()) {
            switch (Character.toLowerCase(value.charAt(value.length() - 1))) {
                case 'k' -> multiplier = 1024;
                case 'm' -> multiplier = 1024 * 1024;
                default -> {
                }
            }
            digits = multiplier == 1 ? value : value.substring(0, value.length() - 1);
        }
        try {
            return Math.multiplyExact(number(digits), multiplier);
        }
        catch (ArithmeticException tooLarge) {
            throw new IllegalArgumentException("'" + value + "' is too large");
        }
    }

    private static int nice(String value) {
        if (value == null) {
            return 100;
        }
        try {
            long nice = Long.parseLong(value);
            if (Math.abs(nice) <= MAX_NICE) {
                return (int) nice;
            }
        }
        catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException("'" + value + "' is not a whole number");
        }
        throw new IllegalArgumentException("'" + value + "' is out of range (+/- " + MAX_NICE + ")");
    }

    /** A whole number of at least 1 (and at most 1,000,000: more nodes than any cluster has). */
    private static int positive(String value, String what) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 1_000_000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("'" + value + "' is not " + what + " (a whole number from 1 to 1000000)");
    }

    /** {@code --deadline}: sbatch reads it in {@code --begin}'s time formats; the message names the deadline. */
    private static BeginTime deadline(String value) {
        try {
            return BeginTime.parse(value);
        } catch (JobSpecException e) {
            throw new IllegalArgumentException("Invalid deadline '" + e.input() + "': " + e.problem());
        }
    }

    /** {@code --time-min}: a duration in Slurm's formats; UNLIMITED would be no minimum at all. */
    private static long timeMin(String value) {
        long seconds = SlurmTime.parseSeconds(value);
        if (seconds == SlurmTime.UNLIMITED) {
            throw new IllegalArgumentException("a minimum time limit must be a duration, not UNLIMITED");
        }
        return seconds;
    }

    private static String hostlist(String value) {
        if (value.indexOf('/') >= 0) {
            throw new IllegalArgumentException("reading host names from a file is not supported; list the hosts, as in node[01-04]");
        }
        return Hostlist.parse(text(value), MAX_HOSTLIST).compressed();
    }

    private static String export(String value) {
        for (String item : text(value).split(",", -1)) {
            String variable = item.indexOf('=') < 0 ? item : item.substring(0, item.indexOf('='));
            if (!item.equals("ALL") && !item.equals("NONE") && !VARIABLE.matcher(variable).matches()) {
                throw new IllegalArgumentException("'" + item + "' is not ALL, NONE, NAME or NAME=value");
            }
        }
        return value;
    }

    /** How an option takes its value, as in getopt_long. */
    private enum Arg {
        NO_VALUE, VALUE,
        /** Only as {@code --opt=value}; a short form takes none. */
        OPTIONAL_VALUE
    }

    private enum Memory {
        PER_NODE, PER_CPU, PER_GPU
    }

    @FunctionalInterface
    private interface Handler {

        /**
         * @param spelled the option as written, for messages
         * @param value the value, or null for an option given without one
         * @throws IllegalArgumentException with the problem, which becomes a {@link ScriptError}
         */
        void apply(Parse parse, String spelled, String value);
    }

    private record Option(String longName, Character shortName, Arg arg, Handler handler) {
    }

    /** The state of reading one script. */
    private static final class Parse {

        final int maxArraySize;

        final List<String> warnings = new ArrayList<>();

        final List<ScriptError> errors = new ArrayList<>();

        /** The line each option (by long name) was last given on. */
        final Map<String, Integer> lines = new LinkedHashMap<>();
        /** The values of the options a job keeps as asked, by long name. */
        final Map<String, Object> asked = new LinkedHashMap<>();

        int line;

        String name;
        String partition;
        String account;
        String qos;
        Integer nodes;
        Integer maxNodes;
        Integer tasks;
        Integer cpusPerTask;
        Long memoryMb;
        Long memPerCpuMb;
        Long memPerGpuMb;
        Integer gpus;
        Integer gpusPerNode;
        Integer gpusPerTask;
        Integer cpusPerGpu;
        String gpuType;
        Long timeLimitSeconds;
        String constraints;
        Boolean exclusive;
        String dependency;
        String array;
        Boolean hold;
        Integer nice;
        String workdir;
        String stdout;
        String stderr;
        Boolean requeue;
        Integer ntasksPerNode;
        String nodelist;
        String exclude;
        BeginTime beginTime;
        String reservation;
        String export;
        String comment;
        String signal;
        String switches;
        Long timeMinSeconds;
        Integer segment;
        String exclusiveMode;
        Integer shards;
        final io.gantry.noded.protocol.ContainerOptions.Builder container = new io.gantry.noded.protocol.ContainerOptions.Builder();

        /** The memory option given so far, for sbatch's rule that only one kind may be. */
        Memory memoryKind;
        String memoryOption;
        int memoryLine;

        String gpuTypeOption;
        int gpuTypeLine;

        Parse(int maxArraySize) {
            if (maxArraySize < 1) {
                throw new IllegalArgumentException("maxArraySize must be at least 1, not " + maxArraySize);
            }
            this.maxArraySize = maxArraySize;
        }

        void directive(String rest) {
            List<String> words;
            try {
                words = words(rest);
            }
            catch (IllegalArgumentException unmatchedQuote) {
                this.errors.add(new ScriptError(this.line, "#SBATCH", unmatchedQuote.getMessage()));
                return;
            }
            for (int i = 0; i < words.size(); i++) {
                String word = words.get(i);
                String next = i + 1 < words.size() ? words.get(i + 1) : null;
                boolean usedNext;
                if (word.startsWith("--") && word.length() > 2) {
                    usedNext = longOption(word, next);
                }
                else if (word.startsWith("-") && word.length() > 1 && !word.equals("--")) {
                    usedNext = shortOptions(word, next);
                }
                else {
                    notAnOption(word);
                    usedNext = false;
                }
                if (usedNext) {
                    i++;
                }
            }
        }

        private void notAnOption(String word) {
            String lower = word.toLowerCase(Locale.ROOT);
            String problem = lower.equals("hetjob") || lower.equals("packjob")
                    ? "heterogeneous jobs are not supported; submit the components as separate jobs"
                    : "is not an option; an #SBATCH line holds only options and their values (quote a value with spaces)";
            this.errors.add(new ScriptError(this.line, word, problem));
        }

        /** Reads {@code --name[=value]}; true when the value was the next word. */
        private boolean longOption(String word, String next) {
            int equals = word.indexOf('=');
            String name = equals < 0 ? word.substring(2) : word.substring(2, equals);
            String value = equals < 0 ? null : word.substring(equals + 1);
            Option option = LONG.get(name);
            if (option == null) {
                List<String> candidates = LONG.keySet().stream().filter(known -> known.startsWith(name)).sorted().toList();
                if (candidates.size() != 1 || name.isEmpty()) {
                    String spelled = "--" + name;
                    this.errors.add(new ScriptError(this.line, spelled, candidates.size() > 1 && !name.isEmpty()
                            ? "is ambiguous: it could be --" + String.join(", --", candidates)
                            : "is not an sbatch option"));
                    return false;
                }
                option = LONG.get(candidates.get(0));
            }
            String spelled = "--" + option.longName();
            boolean usedNext = false;
            switch (option.arg()) {
                case NO_VALUE -> {
                    if (value != null) {
                        this.errors.add(new ScriptError(this.line, spelled, "takes no value"));
                        return false;
                    }
                }
                case VALUE -> {
                    if (value == null) {
                        if (next == null) {
                            this.errors.add(new ScriptError(this.line, spelled, "needs a value"));
                            return false;
                        }
                        value = next;
                        usedNext = true;
                    }
                }
                case OPTIONAL_VALUE -> {
                    // getopt_long: an optional value is only ever attached with '='.
                }
            }
            apply(option, spelled, value);
            return usedNext;
        }

        /** Reads {@code -x}, {@code -xvalue}, {@code -x value} and grouped flags such as {@code -Hk}. */
        private boolean shortOptions(String word, String next) {
            for (int i = 1; i < word.length(); i++) {
                char letter = word.charAt(i);
                String spelled = "-" + letter;
                Option option = SHORT.get(letter);
                if (option == null) {
                    this.errors.add(new ScriptError(this.line, spelled, "is not an sbatch option"));
                    return false;
                }
                if (option.arg() != Arg.VALUE) {
                    apply(option, spelled, null);
                    continue;
                }
                if (i + 1 < word.length()) {
                    apply(option, spelled, word.substring(i + 1));
                    return false;
                }
                if (next == null) {
                    this.errors.add(new ScriptError(this.line, spelled, "needs a value"));
                    return false;
                }
                apply(option, spelled, next);
                return true;
            }
            return false;
        }

        private void apply(Option option, String spelled, String value) {
            try {
                option.handler().apply(this, spelled, value);
                this.lines.put(option.longName(), this.line);
            }
            catch (IllegalArgumentException invalid) {
                this.errors.add(new ScriptError(this.line, spelled, invalid.getMessage()));
            }
        }

        void nodes(String spelled, String value) {
            int dash = value.indexOf('-');
            int min = nodeCount(dash < 0 ? value : value.substring(0, dash));
            int max = dash < 0 ? min : nodeCount(value.substring(dash + 1));
            if (min < 1) {
                throw new IllegalArgumentException("a job needs at least 1 node");
            }
            if (max < min) {
                throw new IllegalArgumentException("the maximum " + max + " is below the minimum " + min);
            }
            this.nodes = min;
            this.maxNodes = max;
        }

        void memory(String spelled, Memory kind, String value) {
            long megabytes = MemorySize.parseMegabytes(value);
            if (this.memoryKind != null && this.memoryKind != kind) {
                throw new IllegalArgumentException("--mem, --mem-per-cpu and --mem-per-gpu are mutually exclusive, and line "
                        + this.memoryLine + " gives " + this.memoryOption);
            }
            this.memoryKind = kind;
            this.memoryOption = spelled;
            this.memoryLine = this.line;
            switch (kind) {
                case PER_NODE -> this.memoryMb = megabytes;
                case PER_CPU -> this.memPerCpuMb = megabytes;
                case PER_GPU -> this.memPerGpuMb = megabytes;
            }
        }

        void exclusive(String spelled, String value) {
            if (value != null && !ExclusiveMode.NAMES.contains(value)) {
                throw new IllegalArgumentException("'" + value + "' is not user, mcs or topo; write --exclusive, "
                        + "--exclusive=user, --exclusive=mcs or --exclusive=topo");
            }
            if (value != null && !value.equals(ExclusiveMode.TOPO)) {
                this.warnings.add("line " + this.line + ": " + spelled + "=" + value
                        + " is accepted as --exclusive: Gantry gives the job whole nodes");
            }
            this.exclusive = true;
            this.exclusiveMode = value;
        }

        /**
         * {@code gpu}, {@code gpu:N}, {@code gpu:type} or {@code gpu:type:N}, per node (a MIG profile such
         * as {@code 1g.10gb} is a type); {@code shard} or {@code shard:N}; or {@code none}.
         */
        void gres(String spelled, String value) {
            if (text(value).equals("none")) {
                return;
            }
            String gpu = null;
            for (String item : value.split(",", -1)) {
                String[] parts = item.split(":", -1);
                if (parts[0].equals("shard")) {
                    if (parts.length > 2) {
                        throw new IllegalArgumentException("'" + item + "' has too many ':'; write shard[:count]");
                    }
                    int count = parts.length == 1 ? 1 : number(parts[1]);
                    if (count < 1) {
                        throw new IllegalArgumentException("'" + item + "' asks for no shard; write shard:N with N of "
                                + "at least 1");
                    }
                    this.shards = count;
                    continue;
                }
                if (!parts[0].equals("gpu")) {
                    throw new IllegalArgumentException("'" + item + "': Gantry schedules only GPUs and GPU shards as "
                            + "generic resources; write gpu[:type][:count] or shard[:count]");
                }
                if (gpu != null) {
                    throw new IllegalArgumentException("'" + value + "' asks for GPUs twice; a Gantry job uses one GPU type");
                }
                gpu = item;
            }
            if (gpu == null) {
                return;
            }
            String[] parts = gpu.split(":", -1);
            String type;
            int count;
            switch (parts.length) {
                case 1 -> {
                    type = null;
                    count = 1;
                }
                case 2 -> {
                    boolean isCount = !parts[1].isEmpty() && parts[1].chars().allMatch(Character::isDigit);
                    type = isCount ? null : parts[1];
                    count = isCount ? number(parts[1]) : 1;
                }
                case 3 -> {
                    type = parts[1];
                    count = number(parts[2]);
                }
                default -> throw new IllegalArgumentException("'" + gpu + "' has too many ':'; write gpu[:type][:count]");
            }
            this.gpusPerNode = count;
            gpuType(spelled, type);
        }

        /** {@code N}, {@code type:N} or {@code type} (one GPU), as -G and --gpus-per-* take them. */
        int gpuCount(String spelled, String value) {
            int colon = text(value).lastIndexOf(':');
            String count = colon < 0 ? value : value.substring(colon + 1);
            String type = colon < 0 ? null : value.substring(0, colon);
            if (colon < 0 && !Character.isDigit(value.charAt(0))) {
                type = value;
                count = "1";
            }
            int gpus = number(count);
            gpuType(spelled, type);
            return gpus;
        }

        private void gpuType(String spelled, String type) {
            if (type == null) {
                return;
            }
            if (!GPU_TYPE.matcher(type).matches() && !io.gantry.engine.Request.isMigProfile(type)) {
                throw new IllegalArgumentException("'" + type + "' is not a GPU type such as h100");
            }
            if (this.gpuType != null && !this.gpuType.equals(type)) {
                throw new IllegalArgumentException("asks for GPU type " + type + " but line " + this.gpuTypeLine + " ("
                        + this.gpuTypeOption + ") asks for " + this.gpuType + "; a Gantry job uses one GPU type");
            }
            this.gpuType = type;
            this.gpuTypeOption = spelled;
            this.gpuTypeLine = this.line;
        }

        SbatchOptions options() {
            return new SbatchOptions(this.name, this.partition, this.account, this.qos, this.nodes, this.maxNodes,
                    this.tasks, this.cpusPerTask, this.memoryMb, this.memPerCpuMb, this.memPerGpuMb, this.gpus,
                    this.gpusPerNode, this.gpusPerTask, this.cpusPerGpu, this.gpuType, this.timeLimitSeconds,
                    this.constraints, this.exclusive, this.dependency, this.array, this.hold, this.nice, this.workdir,
                    this.stdout, this.stderr, this.requeue, this.ntasksPerNode, this.nodelist, this.exclude,
                    this.beginTime, this.reservation, this.export, this.comment, this.signal, this.switches, this.timeMinSeconds, this.segment,
                    this.exclusiveMode, this.shards, this.container.build(), this.asked, this.warnings,
                    this.lines);
        }
    }

    /**
     * Splits a directive into words as sbatch's {@code _get_argument} does.
     * @throws IllegalArgumentException for an unmatched quote
     */
    static List<String> words(String directive) {
        List<String> words = new ArrayList<>();
        int i = 0;
        int length = directive.length();
        while (true) {
            while (i < length && isSpace(directive.charAt(i))) {
                i++;
            }
            if (i == length || directive.charAt(i) == '#') {
                return words;
            }
            StringBuilder word = new StringBuilder();
            char quote = 0;
            boolean escaped = false;
            while (i < length && (quote != 0 || !isSpace(directive.charAt(i)))) {
                char c = directive.charAt(i++);
                if (escaped) {
                    escaped = false;
                    word.append(c);
                }
                else if (c == '\\') {
                    escaped = true;
                }
                else if (quote != 0) {
                    if (c == quote) {
                        quote = 0;
                    }
                    else {
                        word.append(c);
                    }
                }
                else if (c == '"' || c == '\'') {
                    quote = c;
                }
                else if (c == '#') {
                    words.add(word.toString());
                    return words;
                }
                else {
                    word.append(c);
                }
            }
            if (quote != 0) {
                throw new IllegalArgumentException("the " + quote + " that opens a value is never closed");
            }
            words.add(word.toString());
        }
    }

    /** C's isspace, which sbatch uses: blanks, tabs and the other ASCII white space. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

}
