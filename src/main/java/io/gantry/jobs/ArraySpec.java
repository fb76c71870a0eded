package io.gantry.jobs;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * The task indexes of a job array in Slurm's {@code -a/--array} syntax: a comma list of
 * {@code n}, {@code a-b} and {@code a-b:step}, optionally followed by {@code %max} to limit how
 * many tasks run at once.
 *
 * <p>Stricter than Slurm 22.05, which silently accepts an empty list, empty list items and
 * {@code %0}: here all three are errors, because each is a typo rather than a request.
 *
 * @param taskIds the indexes, sorted and distinct, never empty
 * @param maxRunning how many tasks may run at once, or {@code null} for no limit
 */
public record ArraySpec(List<Integer> taskIds, Integer maxRunning) {

    /**
     * Slurm's default {@code MaxArraySize}: indexes run from 0 to one less than it. Callers
     * that allow bigger arrays pass their own limit to {@link #parse(String, int)}.
     */
    public static final int DEFAULT_MAX_ARRAY_SIZE = 1001;

    private static final String WHAT = "array";

    public ArraySpec {
        taskIds = List.copyOf(taskIds);
        if (taskIds.isEmpty()) {
            throw new IllegalArgumentException("an array has at least one task");
        }
        for (int i = 1; i < taskIds.size(); i++) {
            if (taskIds.get(i) <= taskIds.get(i - 1)) {
                throw new IllegalArgumentException("task ids must be sorted and distinct: " + taskIds);
            }
        }
        if (taskIds.get(0) < 0) {
            throw new IllegalArgumentException("task ids cannot be negative: " + taskIds);
        }
        if (maxRunning != null && maxRunning < 1) {
            throw new IllegalArgumentException("maxRunning must be at least 1, not " + maxRunning);
        }
    }

    /** Reads an array expression with Slurm's default limit, {@link #DEFAULT_MAX_ARRAY_SIZE}. */
    public static ArraySpec parse(String text) {
        return parse(text, DEFAULT_MAX_ARRAY_SIZE);
    }

    /**
     * Reads an array expression whose indexes must all be below {@code maxArraySize}, as with
     * Slurm's {@code MaxArraySize}.
     * @throws JobSpecException naming the position and the problem
     */
    public static ArraySpec parse(String text, int maxArraySize) {
        Objects.requireNonNull(text, "text");
        if (maxArraySize < 1) {
            throw new IllegalArgumentException("maxArraySize must be at least 1, not " + maxArraySize);
        }
        if (text.isEmpty()) {
            throw new JobSpecException(WHAT, text, "it is empty");
        }
        int percent = text.indexOf('%');
        String list = percent < 0 ? text : text.substring(0, percent);
        Integer maxRunning = percent < 0 ? null : maxRunning(text, percent);
        BitSet ids = new BitSet();
        int start = 0;
        while (start <= list.length()) {
            int comma = list.indexOf(',', start);
            int end = comma < 0 ? list.length() : comma;
            item(text, start, end, maxArraySize, ids);
            start = end + 1;
        }
        List<Integer> taskIds = new ArrayList<>(ids.cardinality());
        ids.stream().forEach(taskIds::add);
        return new ArraySpec(taskIds, maxRunning);
    }

    private static Integer maxRunning(String text, int percent) {
        int value = number(text, percent + 1, text.length(), "after '%' the maximum number of running tasks");
        if (value == 0) {
            throw new JobSpecException(WHAT, text, "%0 at position " + percent + " would never run a task; write %1 or more");
        }
        return value;
    }

    /** One {@code n}, {@code a-b} or {@code a-b:step} between {@code start} and {@code end}. */
    private static void item(String text, int start, int end, int maxArraySize, BitSet ids) {
        if (start == end) {
            throw new JobSpecException(WHAT, text, "an empty item at position " + start + "; write indexes like 0-99 or 1,3,5-7");
        }
        int dash = indexOf(text, '-', start, end);
        int colon = indexOf(text, ':', start, end);
        if (dash == start) {
            throw new JobSpecException(WHAT, text, "'-' at position " + start + ": indexes cannot be negative");
        }
        if (dash < 0) {
            if (colon >= 0) {
                throw new JobSpecException(WHAT, text, "':' at position " + colon + ": a step needs a range, as in 0-15:3");
            }
            int id = number(text, start, end, "an index");
            checkMax(text, start, id, maxArraySize);
            ids.set(id);
            return;
        }
        if (colon >= 0 && colon < dash) {
            throw new JobSpecException(WHAT, text, "':' at position " + colon + ": a step comes after the range, as in 0-15:3");
        }
        int first = number(text, start, dash, "the start of a range");
        int last = number(text, dash + 1, colon < 0 ? end : colon, "the end of a range");
        int step = colon < 0 ? 1 : number(text, colon + 1, end, "a step");
        if (last < first) {
            throw new JobSpecException(WHAT, text, "the range at position " + start + " runs down from " + first
                    + " to " + last + "; write the smaller index first");
        }
        if (step == 0) {
            throw new JobSpecException(WHAT, text, "the step at position " + (colon + 1) + " is 0; it must be at least 1");
        }
        checkMax(text, dash + 1, last, maxArraySize);
        for (int id = first; id <= last; id += step) {
            ids.set(id);
            if (last - id < step) {
                break;
            }
        }
    }

    private static void checkMax(String text, int position, int id, int maxArraySize) {
        if (id >= maxArraySize) {
            throw new JobSpecException(WHAT, text, "index " + id + " at position " + position
                    + " is too large; indexes run from 0 to " + (maxArraySize - 1));
        }
    }

    private static int indexOf(String text, char c, int start, int end) {
        int at = text.indexOf(c, start);
        return at >= end ? -1 : at;
    }

    private static int number(String text, int start, int end, String what) {
        if (start == end) {
            throw new JobSpecException(WHAT, text, what + " is missing at position " + start);
        }
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new JobSpecException(WHAT, text, "'" + c + "' at position " + i + ": expected " + what);
            }
        }
        try {
            return Integer.parseInt(text, start, end, 10);
        }
        catch (NumberFormatException tooLarge) {
            throw new JobSpecException(WHAT, text, "the number at position " + start + " is too large");
        }
    }

    /**
     * The shortest form Slurm shows: runs of consecutive indexes as {@code a-b}, evenly spaced
     * ones as {@code a-b:step}, then {@code %max}. Parsing it gives back an equal spec.
     */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < this.taskIds.size()) {
            if (!out.isEmpty()) {
                out.append(',');
            }
            int first = this.taskIds.get(i);
            int j = i;
            if (i + 1 < this.taskIds.size()) {
                int step = this.taskIds.get(i + 1) - first;
                while (j + 1 < this.taskIds.size() && this.taskIds.get(j + 1) - this.taskIds.get(j) == step) {
                    j++;
                }
                // A stepped run gives up its last index when that starts a consecutive run: 1,3,5-7.
                if (step > 1 && j + 1 < this.taskIds.size() && this.taskIds.get(j + 1) - this.taskIds.get(j) == 1) {
                    j--;
                }
                if (step == 1 || j - i >= 2) {
                    out.append(first).append('-').append(this.taskIds.get(j));
                    if (step > 1) {
                        out.append(':').append(step);
                    }
                    i = j + 1;
                    continue;
                }
            }
            out.append(first);
            i++;
        }
        if (this.maxRunning != null) {
            out.append('%').append(this.maxRunning);
        }
        return out.toString();
    }

}
