package io.gantry.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A job's dependencies in Slurm's {@code -d/--dependency} syntax: {@code type:id[:id...]}
 * items joined by {@code ,} (all must hold) or by {@code ?} (any one is enough), and
 * {@code singleton}.
 *
 * <p>Differences from Slurm 22.05, each to turn a silent surprise into an error: mixing
 * {@code ,} and {@code ?} is rejected (Slurm documents it as unsupported but quietly treats the
 * whole list as {@code ?}); a {@code +minutes} delay is accepted on {@code after} only (Slurm
 * takes it on every type but only {@code after} uses it) and applies to its own job id only (Slurm
 * carries it over to the ids after it); {@code afterburstbuffer} is rejected as unsupported.
 * As in Slurm, a bare job id means {@code afterany}, type names are
 * case-insensitive, and {@code 123_*} names the whole array, the same as {@code 123}.
 *
 * @param anyOf whether one condition is enough ({@code ?}) rather than all of them ({@code ,})
 * @param singleton whether the job also waits for earlier jobs of its user with its name
 * @param conditions the conditions on other jobs, in the order given; empty only when
 *     {@code singleton}
 */
public record DependencySpec(boolean anyOf, boolean singleton, List<Condition> conditions) {

    private static final String WHAT = "dependency";

    public DependencySpec {
        conditions = List.copyOf(conditions);
        if (conditions.isEmpty() && !singleton) {
            throw new IllegalArgumentException("a dependency needs singleton or at least one condition");
        }
        // With a single condition "any" and "all" agree; one spelling keeps equals meaningful.
        anyOf = anyOf && conditions.size() + (singleton ? 1 : 0) > 1;
    }

    /** The kinds of condition on another job that Gantry evaluates. */
    public enum Type {
        /** The other job has started (or was cancelled), plus an optional delay. */
        AFTER,
        /** The other job has ended, in any state. */
        AFTERANY,
        /** The other job has completed with exit code zero. */
        AFTEROK,
        /** The other job has ended in a failed state. */
        AFTERNOTOK,
        /**
         * Each task of this array waits for the task of the other array with its own task id to complete with
         * exit code zero; where the other job has no such task (or this job is no array), for the whole other
         * job to, as Slurm's {@code aftercorr}.
         */
        AFTERCORR;

        /** Slurm's spelling, as written in {@code --dependency}. */
        public String slurmName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A condition on one job, or on one task of an array job.
     * @param arrayTaskId the task, or {@code null} for the whole job (every task of an array)
     * @param delayMinutes minutes to wait after the condition holds; only {@code AFTER} has any
     */
    public record Condition(Type type, long jobId, Integer arrayTaskId, long delayMinutes) {

        public Condition {
            Objects.requireNonNull(type, "type");
            if (jobId < 1) {
                throw new IllegalArgumentException("job ids start at 1, not " + jobId);
            }
            if (arrayTaskId != null && arrayTaskId < 0) {
                throw new IllegalArgumentException("array task ids cannot be negative, not " + arrayTaskId);
            }
            if (delayMinutes < 0 || (delayMinutes > 0 && type != Type.AFTER)) {
                throw new IllegalArgumentException("only after takes a delay, of zero or more minutes");
            }
        }

        /** {@code 123}, {@code 123_4} or {@code 123+10}, as after the {@code type:}. */
        String target() {
            String target = this.arrayTaskId == null ? Long.toString(this.jobId) : this.jobId + "_" + this.arrayTaskId;
            return this.delayMinutes > 0 ? target + "+" + this.delayMinutes : target;
        }
    }

    /**
     * Reads a dependency list.
     * @throws JobSpecException naming the position and the problem
     */
    public static DependencySpec parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new JobSpecException(WHAT, text, "it is empty");
        }
        int comma = text.indexOf(',');
        int question = text.indexOf('?');
        if (comma >= 0 && question >= 0) {
            throw new JobSpecException(WHAT, text, "',' at position " + comma + " (all must hold) and '?' at position "
                    + question + " (any may hold) cannot be mixed; use one separator");
        }
        char separator = question >= 0 ? '?' : ',';
        boolean singleton = false;
        List<Condition> conditions = new ArrayList<>();
        int start = 0;
        while (start <= text.length()) {
            int next = text.indexOf(separator, start);
            int end = next < 0 ? text.length() : next;
            singleton |= item(text, start, end, conditions);
            start = end + 1;
        }
        return new DependencySpec(question >= 0, singleton, conditions);
    }

    /** Reads one item, adding its conditions; true when it is {@code singleton}. */
    private static boolean item(String text, int start, int end, List<Condition> conditions) {
        if (start == end) {
            throw new JobSpecException(WHAT, text, "an empty item at position " + start + "; write type:jobid as in afterok:123");
        }
        String item = text.substring(start, end);
        int colon = item.indexOf(':');
        if (colon < 0) {
            if (item.equalsIgnoreCase("singleton")) {
                return true;
            }
            if (isDigit(item.charAt(0))) {
                // Slurm's oldest form: a bare job id waits for it to end, like afterany.
                conditions.add(condition(text, start, end, Type.AFTERANY));
                return false;
            }
            throw new JobSpecException(WHAT, text, typeProblem(item, start) + "; or is the ':' and job id missing?");
        }
        Type type = type(text, item.substring(0, colon), start);
        int idStart = start + colon + 1;
        while (idStart <= end) {
            int next = text.indexOf(':', idStart);
            int idEnd = next < 0 || next > end ? end : next;
            conditions.add(condition(text, idStart, idEnd, type));
            idStart = idEnd + 1;
        }
        return false;
    }

    private static Type type(String text, String name, int position) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (Type type : Type.values()) {
            if (type.slurmName().equals(lower)) {
                return type;
            }
        }
        switch (lower) {
            case "afterburstbuffer" -> throw new JobSpecException(WHAT, text, "'" + name + "' at position "
                    + position + " is a Slurm dependency type Gantry does not support; use after, afterany, afterok, afternotok, aftercorr or singleton");
            case "singleton" -> throw new JobSpecException(WHAT, text, "singleton at position " + position + " takes no job ids");
            default -> throw new JobSpecException(WHAT, text, typeProblem(name, position));
        }
    }

    private static String typeProblem(String name, int position) {
        return "'" + name + "' at position " + position
                + " is not a dependency type; use after, afterany, afterok, afternotok, aftercorr or singleton";
    }

    /** {@code 123}, {@code 123_4}, {@code 123_*} or (for after) {@code 123+10}. */
    private static Condition condition(String text, int start, int end, Type type) {
        if (start == end) {
            throw new JobSpecException(WHAT, text, "a job id is missing at position " + start);
        }
        int plus = indexOf(text, '+', start, end);
        int idEnd = plus < 0 ? end : plus;
        int underscore = indexOf(text, '_', start, idEnd);
        long jobId = number(text, start, underscore < 0 ? idEnd : underscore, "a job id");
        if (jobId == 0) {
            throw new JobSpecException(WHAT, text, "job id 0 at position " + start + " does not exist; ids start at 1");
        }
        Integer task = null;
        if (underscore >= 0 && !text.substring(underscore + 1, idEnd).equals("*")) {
            long value = number(text, underscore + 1, idEnd, "an array task id");
            if (value > Integer.MAX_VALUE) {
                throw new JobSpecException(WHAT, text, "the array task id at position " + (underscore + 1) + " is too large");
            }
            task = (int) value;
        }
        long delay = 0;
        if (plus >= 0) {
            if (type != Type.AFTER) {
                throw new JobSpecException(WHAT, text, "'+' at position " + plus + ": only after takes a delay in minutes, as in after:123+10");
            }
            delay = number(text, plus + 1, end, "a delay in minutes");
            if (delay == 0) {
                throw new JobSpecException(WHAT, text, "the delay at position " + (plus + 1) + " is 0; leave out '+0' or give minutes");
            }
        }
        return new Condition(type, jobId, task, delay);
    }

    private static int indexOf(String text, char c, int start, int end) {
        int at = text.indexOf(c, start);
        return at >= end ? -1 : at;
    }

    private static long number(String text, int start, int end, String what) {
        if (start == end) {
            throw new JobSpecException(WHAT, text, what + " is missing at position " + start);
        }
        for (int i = start; i < end; i++) {
            if (!isDigit(text.charAt(i))) {
                throw new JobSpecException(WHAT, text, "'" + text.charAt(i) + "' at position " + i + ": expected " + what);
            }
        }
        try {
            return Long.parseLong(text, start, end, 10);
        }
        catch (NumberFormatException tooLarge) {
            throw new JobSpecException(WHAT, text, what + " at position " + start + " is too large");
        }
    }

    /**
     * sbatch's {@code --kill-on-invalid-dep=yes|no}, in any case: whether a job whose dependency can never be
     * satisfied is cancelled rather than left pending with reason DependencyNeverSatisfied.
     * @throws IllegalArgumentException for any other value (sbatch ignores it silently)
     */
    public static boolean killOnInvalidDep(String value) {
        if ("yes".equalsIgnoreCase(value)) {
            return true;
        }
        if ("no".equalsIgnoreCase(value)) {
            return false;
        }
        throw new IllegalArgumentException("'" + value + "' is neither yes nor no");
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Slurm's form with lower-case types: {@code singleton} first, then the conditions in order;
     * with {@code ,} consecutive ones of one type share it ({@code afterok:1:2}), with {@code ?}
     * each is written out. Parsing it gives back an equal spec.
     */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        char separator = this.anyOf ? '?' : ',';
        if (this.singleton) {
            out.append("singleton");
        }
        Type previous = null;
        for (Condition condition : this.conditions) {
            if (condition.type() == previous && !this.anyOf) {
                out.append(':');
            }
            else {
                if (!out.isEmpty()) {
                    out.append(separator);
                }
                out.append(condition.type().slurmName()).append(':');
            }
            out.append(condition.target());
            previous = condition.type();
        }
        return out.toString();
    }

}
