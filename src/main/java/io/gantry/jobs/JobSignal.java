package io.gantry.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * sbatch's {@code --signal=[{R|B}:]<sig_num|sig_name>[@sig_time]}: the signal a job gets
 * {@code sig_time} seconds (60 when not given, at most 65535) before its time limit, sent to the
 * batch shell only with {@code B:}, else to every step. {@code R:} (send it when a reservation
 * ends) is accepted, as sbatch accepts it, but Gantry has no such warning and drops it.
 * Names are written with or without {@code SIG} in any case ({@code usr1}, {@code SIGUSR1});
 * numbers run from 1 to 64, the Linux signals.
 *
 * @param batchOnly {@code B:}: only the batch shell gets the signal
 * @param signal the signal's name without {@code SIG} when it has one (USR1), else its number
 * @param seconds how long before the time limit it is sent
 */
public record JobSignal(boolean batchOnly, String signal, int seconds) {

    static final int DEFAULT_SECONDS = 60;

    private static final int MAX_SECONDS = 65_535;

    private static final int MAX_SIGNAL = 64;

    /** Linux's signal numbers, by name without SIG. */
    private static final Map<String, Integer> NUMBERS = new LinkedHashMap<>();

    static {
        String[] names = {"HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
            "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
            "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"};
        for (int i = 0; i < names.length; i++) {
            NUMBERS.put(names[i], i + 1);
        }
        NUMBERS.put("IOT", 6);
        NUMBERS.put("POLL", 29);
    }

    /**
     * Reads a {@code --signal} value.
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static JobSignal parse(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("needs a value, as in B:USR1@60");
        }
        String rest = value;
        boolean batchOnly = false;
        String upper = rest.toUpperCase(Locale.ROOT);
        if (upper.startsWith("RB:") || upper.startsWith("BR:")) {
            batchOnly = true;
            rest = rest.substring(3);
        } else if (upper.startsWith("B:")) {
            batchOnly = true;
            rest = rest.substring(2);
        } else if (upper.startsWith("R:")) {
            rest = rest.substring(2);
        }
        int at = rest.indexOf('@');
        String name = at < 0 ? rest : rest.substring(0, at);
        String signal = signal(name, value);
        int seconds = DEFAULT_SECONDS;
        if (at >= 0) {
            String time = rest.substring(at + 1);
            if (time.isEmpty() || !time.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException("'" + value + "': the time after @ must be whole seconds, 0 to "
                        + MAX_SECONDS);
            }
            if (time.length() > 5 || Integer.parseInt(time) > MAX_SECONDS) {
                throw new IllegalArgumentException("'" + value + "': the time after @ is at most " + MAX_SECONDS
                        + " seconds");
            }
            seconds = Integer.parseInt(time);
        }
        return new JobSignal(batchOnly, signal, seconds);
    }

    /**
     * One signal as {@code scancel --signal} and {@code POST /jobs/{id}/signal} take it: a name with or
     * without {@code SIG} in any case, or a number from 1 to 64; answered in the form the agent reads
     * (USR1, or the number when it has no name).
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static String signalName(String given) {
        if (given == null || given.isBlank()) {
            throw new IllegalArgumentException("names no signal; write a name such as USR1 or SIGTERM, or a number "
                    + "from 1 to " + MAX_SIGNAL);
        }
        String name = given.strip();
        if (name.chars().anyMatch(c -> !Character.isLetterOrDigit(c))) {
            throw new IllegalArgumentException("'" + given + "' is not a signal; write a name such as USR1 or SIGTERM, "
                    + "or a number from 1 to " + MAX_SIGNAL);
        }
        return signal(name, name);
    }

    private static String signal(String given, String value) {
        if (given.isEmpty()) {
            throw new IllegalArgumentException("'" + value + "' names no signal; write [B:]SIG[@seconds], as in B:USR1@60");
        }
        if (given.chars().allMatch(c -> c >= '0' && c <= '9')) {
            int number = given.length() > 3 ? Integer.MAX_VALUE : Integer.parseInt(given);
            if (number < 1 || number > MAX_SIGNAL) {
                throw new IllegalArgumentException("'" + value + "': signal numbers run from 1 to " + MAX_SIGNAL);
            }
            return NUMBERS.entrySet().stream().filter(e -> e.getValue() == number).map(Map.Entry::getKey)
                    .findFirst().orElse(String.valueOf(number));
        }
        String name = given.toUpperCase(Locale.ROOT);
        if (name.startsWith("SIG")) {
            name = name.substring(3);
        }
        if (!NUMBERS.containsKey(name)) {
            throw new IllegalArgumentException("'" + value + "': '" + given + "' is not a signal; write a name such as "
                    + "USR1 or SIGTERM, or a number from 1 to " + MAX_SIGNAL);
        }
        return name.equals("IOT") ? "ABRT" : name.equals("POLL") ? "IO" : name;
    }

    /**
     * The signal a job gets as a reclaim's grace time starts, as Slurm's GraceTime gives it: its own
     * {@code --signal} ({@code spec}, canonical or null) when it has one, else SIGTERM. It reaches the
     * batch shell alone with {@code B:}; otherwise everything but the batch shell (what the script
     * started and the srun steps' tasks), so that a script that does not trap it lives on to finish
     * or checkpoint, as the warning before the time limit does.
     *
     * @param nodes the job's nodes, its batch host first
     */
    public static JobSignalRequested.Target atGraceStart(String jobId, List<String> nodes, String spec) {
        return warning(jobId, nodes, spec, "TERM");
    }

    /**
     * A warning signal reaching the job as {@link #atGraceStart} does: its own {@code --signal} when it has
     * one, else {@code otherwise} (USR1 for a GPU idle warning, which must not stop a job that does not trap it).
     */
    public static JobSignalRequested.Target warning(String jobId, List<String> nodes, String spec, String otherwise) {
        JobSignal own = spec == null || spec.isBlank() ? null : parse(spec);
        if (own != null && own.batchOnly()) {
            return new JobSignalRequested.Target(jobId, List.of(nodes.get(0)), own.signal(),
                    JobSignalRequested.Scope.BATCH);
        }
        return new JobSignalRequested.Target(jobId, nodes, own == null ? otherwise : own.signal(),
                JobSignalRequested.Scope.CHILDREN);
    }

    /** Linux's number for this signal. */
    public int number() {
        Integer known = NUMBERS.get(signal);
        return known != null ? known : Integer.parseInt(signal);
    }

    /** The canonical form the agent reads and the API shows: {@code B:USR1@5}, {@code TERM@60}. */
    @Override
    public String toString() {
        return (batchOnly ? "B:" : "") + signal + "@" + seconds;
    }
}
