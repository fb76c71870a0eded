package io.gantry.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A list of host names written the way Slurm writes them: {@code gpu[001-003,007],cpu[1-2]}.
 *
 * <p>Like Slurm's own hostlist (and {@code scontrol show hostnames}), a parsed list keeps
 * hosts in the order written and keeps duplicates, so {@link #hosts()} answers "what did the
 * user write". {@link #compressed()} answers "which hosts", like
 * {@code scontrol show hostlistsorted}, except that duplicates are dropped: it sorts in
 * {@link #HOST_ORDER} and merges consecutive numbers into ranges. Two hostlists are equal when
 * they expand to the same sequence; compare {@code compressed()} to compare them as sets.
 *
 * <p>Deliberately stricter than Slurm 22.05, which silently skips empty elements and splits on
 * whitespace: here a dangling comma or any whitespace is an error, because a node list that
 * means something other than what was typed is worse than a rejected one. Deliberately wider:
 * text may follow a bracket ({@code n[1-3]-ib}) and brackets may be separated by text
 * ({@code a[1-2]b[3-4]}); Slurm 22.05 rejects both, so a compressed form with a suffix is
 * for Gantry, not for that Slurm.
 */
public final class Hostlist {

    /**
     * The most hosts one expression may expand to. Slurm 22.05 caps a single range at 65,536;
     * we allow more, but stop a typo like {@code n[1-100000000]} from exhausting memory.
     */
    public static final int MAX_HOSTS = 1_000_000;

    /**
     * The order {@link #compressed()} lists hosts in, which is Slurm's sorted order: by the
     * text before the number (digit runs compared as numbers, so rack2 before rack10), then
     * the text after it, then hosts without a number before those with one, then numerically.
     * Same number written with different padding ({@code n1}, {@code n01}) sorts shorter first.
     */
    public static final Comparator<String> HOST_ORDER = Comparator.comparing(Name::of, Name.ORDER);

    private static final Hostlist EMPTY = new Hostlist(List.of());

    /** Longer digit runs would overflow a long; such names are kept whole and never ranged. */
    private static final int MAX_DIGITS = 18;

    private final List<String> hosts;

    private final Set<String> distinct;

    private Hostlist(List<String> hosts) {
        this.hosts = List.copyOf(hosts);
        this.distinct = new HashSet<>(hosts);
    }

    /**
     * Expands a Slurm hostlist expression; the empty string is the empty list.
     * @throws HostlistException naming the position of the first problem
     */
    public static Hostlist parse(String expression) {
        return parse(expression, MAX_HOSTS);
    }

    /**
     * Expands a Slurm hostlist expression of at most {@code maxHosts} hosts (duplicates counted),
     * refusing a bigger one before expanding it.
     * @throws HostlistException naming the position of the first problem
     */
    public static Hostlist parse(String expression, int maxHosts) {
        Objects.requireNonNull(expression, "expression");
        if (maxHosts < 1 || maxHosts > MAX_HOSTS) {
            throw new IllegalArgumentException("maxHosts must be 1 to " + MAX_HOSTS + ", was " + maxHosts);
        }
        if (expression.isEmpty()) {
            return EMPTY;
        }
        return new Hostlist(new Parser(expression, maxHosts).hosts());
    }

    /**
     * A hostlist of exactly these hosts, in this order.
     * @throws HostlistException if a name is empty or holds a comma, bracket or whitespace,
     * because its compressed form could not be read back
     */
    public static Hostlist of(Collection<String> hosts) {
        for (String host : hosts) {
            Objects.requireNonNull(host, "host");
            if (host.isEmpty()) {
                throw new HostlistException(host, 0, "empty host name");
            }
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (c == ',' || c == '[' || c == ']' || Character.isWhitespace(c)) {
                    throw new HostlistException(host, i, "'" + c + "' is not allowed in a host name");
                }
            }
        }
        return hosts.isEmpty() ? EMPTY : new Hostlist(List.copyOf(hosts));
    }

    /** Every host, in the order written, duplicates kept. */
    public List<String> hosts() {
        return this.hosts;
    }

    /** How many hosts {@link #hosts()} holds, duplicates counted. */
    public int size() {
        return this.hosts.size();
    }

    public boolean isEmpty() {
        return this.hosts.isEmpty();
    }

    public boolean contains(String host) {
        return this.distinct.contains(host);
    }

    /**
     * The shortest Slurm form of the distinct hosts, sorted in {@link #HOST_ORDER}: hosts that
     * differ only in a number share a bracket, consecutive numbers become a range, and padding
     * survives ({@code n[098-100]}, {@code n[9-10]}). {@code parse(compressed()).hosts()} is
     * the distinct hosts in {@code HOST_ORDER}.
     */
    public String compressed() {
        // Duplicates are dropped after sorting, where they sit side by side (ORDER ties only a host with
        // itself), rather than through a set first: a replay writes a hostlist for each of its 230,000 jobs.
        List<Name> names = new ArrayList<>(this.hosts.size());
        for (String host : this.hosts) {
            names.add(Name.of(host));
        }
        names.sort(Name.ORDER);
        int kept = 0;
        for (Name name : names) {
            if (kept == 0 || !names.get(kept - 1).host().equals(name.host())) {
                names.set(kept++, name);
            }
        }
        names.subList(kept, names.size()).clear();
        StringBuilder out = new StringBuilder();
        int start = 0;
        while (start < names.size()) {
            int end = start + 1;
            while (end < names.size() && names.get(end).sameGroup(names.get(start))) {
                end++;
            }
            if (out.length() > 0) {
                out.append(',');
            }
            appendGroup(out, names.subList(start, end));
            start = end;
        }
        return out.toString();
    }

    private static void appendGroup(StringBuilder out, List<Name> group) {
        Name first = group.get(0);
        if (group.size() == 1) {
            out.append(first.host());
            return;
        }
        out.append(first.prefix()).append('[');
        int i = 0;
        while (i < group.size()) {
            Name lo = group.get(i);
            int minWidth = lo.minWidth();
            int maxWidth = lo.maxWidth();
            int j = i + 1;
            // Extend while the next number follows on and one width prints every member as
            // written; n9,n10 share width 1, but n09,n10 need 2 and n9,n010 cannot share.
            while (j < group.size() && group.get(j).value() == group.get(j - 1).value() + 1
                    && Math.max(minWidth, group.get(j).minWidth()) <= Math.min(maxWidth, group.get(j).maxWidth())) {
                minWidth = Math.max(minWidth, group.get(j).minWidth());
                maxWidth = Math.min(maxWidth, group.get(j).maxWidth());
                j++;
            }
            if (i > 0) {
                out.append(',');
            }
            out.append(padded(lo.value(), minWidth));
            if (j - i > 1) {
                out.append('-').append(padded(group.get(j - 1).value(), minWidth));
            }
            i = j;
        }
        out.append(']').append(first.suffix());
    }

    private static String padded(long value, int width) {
        String digits = Long.toString(value);
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    /** The compressed form, so logs and messages show what an operator would type. */
    @Override
    public String toString() {
        return compressed();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Hostlist that && this.hosts.equals(that.hosts);
    }

    @Override
    public int hashCode() {
        return this.hosts.hashCode();
    }

    /**
     * A host name split around its last run of digits, the part compression ranges over.
     * Slurm 22.05 only ranges over trailing digits; taking the last run anywhere also groups
     * {@code n1-ib,n2-ib}.
     */
    private record Name(String host, String prefix, String digits, String suffix, long value) {

        static final Comparator<Name> ORDER = Comparator.comparing(Name::prefix, Name::compareNaturally)
            .thenComparing(Name::suffix)
            .thenComparing(Name::hasNumber)
            .thenComparingLong(Name::value)
            .thenComparingInt(name -> name.digits().length());

        static Name of(String host) {
            int end = host.length();
            while (end > 0 && !isDigit(host.charAt(end - 1))) {
                end--;
            }
            int start = end;
            while (start > 0 && isDigit(host.charAt(start - 1))) {
                start--;
            }
            if (start == end || end - start > MAX_DIGITS) {
                return new Name(host, host, "", "", 0);
            }
            String digits = host.substring(start, end);
            return new Name(host, host.substring(0, start), digits, host.substring(end), Long.parseLong(digits));
        }

        boolean hasNumber() {
            return !this.digits.isEmpty();
        }

        boolean sameGroup(Name other) {
            return hasNumber() && other.hasNumber() && this.prefix.equals(other.prefix)
                    && this.suffix.equals(other.suffix);
        }

        /** Zero-padded digits print as written only at their own width. */
        int minWidth() {
            return isPadded() ? this.digits.length() : 1;
        }

        /** Unpadded digits print as written at any width up to their length. */
        int maxWidth() {
            return this.digits.length();
        }

        private boolean isPadded() {
            return this.digits.length() > 1 && this.digits.charAt(0) == '0';
        }

        /**
         * Slurm's strnatcmp, so rack2 sorts before rack10; ties (rack01 against rack1) fall
         * back to plain text order so the order stays total and consistent with equals.
         */
        static int compareNaturally(String a, String b) {
            int i = 0;
            int j = 0;
            while (i < a.length() && j < b.length()) {
                if (isDigit(a.charAt(i)) && isDigit(b.charAt(j))) {
                    int endA = digitsEnd(a, i);
                    int endB = digitsEnd(b, j);
                    int startA = zerosEnd(a, i, endA);
                    int startB = zerosEnd(b, j, endB);
                    int byLength = Integer.compare(endA - startA, endB - startB);
                    if (byLength != 0) {
                        return byLength;
                    }
                    for (int k = 0; k < endA - startA; k++) {
                        int byDigit = Character.compare(a.charAt(startA + k), b.charAt(startB + k));
                        if (byDigit != 0) {
                            return byDigit;
                        }
                    }
                    i = endA;
                    j = endB;
                }
                else {
                    int byChar = Character.compare(a.charAt(i), b.charAt(j));
                    if (byChar != 0) {
                        return byChar;
                    }
                    i++;
                    j++;
                }
            }
            int byRest = Integer.compare(a.length() - i, b.length() - j);
            return byRest != 0 ? byRest : a.compareTo(b);
        }

        private static int digitsEnd(String text, int from) {
            int end = from;
            while (end < text.length() && isDigit(text.charAt(end))) {
                end++;
            }
            return end;
        }

        private static int zerosEnd(String text, int from, int end) {
            int start = from;
            while (start < end - 1 && text.charAt(start) == '0') {
                start++;
            }
            return start;
        }

    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Reads an expression left to right. Each comma-separated element is literal text and
     * bracket groups; an element expands to the cartesian product of its groups, leftmost
     * varying slowest ({@code rack[1-2]n[01-02]} gives rack1n01, rack1n02, rack2n01, ...), as
     * Slurm does.
     */
    private static final class Parser {

        private final String text;

        private final List<String> hosts = new ArrayList<>();

        private final int max;

        Parser(String text, int max) {
            this.text = text;
            this.max = max;
        }

        List<String> hosts() {
            int start = 0;
            while (true) {
                int end = elementEnd(start);
                if (end == start) {
                    // The comma after the gap, or for a trailing comma the one before it.
                    throw error(end < this.text.length() ? end : start - 1, "dangling comma");
                }
                expand(start, end);
                if (end == this.text.length()) {
                    return this.hosts;
                }
                start = end + 1;
            }
        }

        /** Finds the comma ending the element at {@code start}, checking bracket balance. */
        private int elementEnd(int start) {
            int open = -1;
            for (int i = start; i < this.text.length(); i++) {
                char c = this.text.charAt(i);
                if (Character.isWhitespace(c)) {
                    throw error(i, "whitespace is not allowed");
                }
                if (c == '[') {
                    if (open >= 0) {
                        throw error(i, "'[' inside brackets");
                    }
                    open = i;
                }
                else if (c == ']') {
                    if (open < 0) {
                        throw error(i, "']' without a matching '['");
                    }
                    open = -1;
                }
                else if (c == ',' && open < 0) {
                    return i;
                }
            }
            if (open >= 0) {
                throw error(open, "'[' is never closed");
            }
            return this.text.length();
        }

        private void expand(int start, int end) {
            List<Part> parts = new ArrayList<>();
            long count = 1;
            int i = start;
            while (i < end) {
                int open = find('[', i, end);
                if (open == end) {
                    parts.add(Part.literal(this.text.substring(i, end)));
                    break;
                }
                if (open > i) {
                    parts.add(Part.literal(this.text.substring(i, open)));
                }
                int close = find(']', open, end);
                List<Range> ranges = ranges(open + 1, close);
                long groupSize = 0;
                for (Range range : ranges) {
                    groupSize = Math.min(groupSize + range.size(), this.max + 1L);
                }
                // Counted before expanding, so n[1-1000][1-1000000] fails at once instead of
                // after filling memory; the cap keeps the product from overflowing.
                count = Math.min(count * groupSize, this.max + 1L);
                if (this.hosts.size() + count > this.max) {
                    throw error(open, "expands to more than " + this.max + " hosts");
                }
                parts.add(new Part("", ranges));
                i = close + 1;
            }
            if (this.hosts.size() + count > this.max) {
                throw error(start, "expands to more than " + this.max + " hosts");
            }
            product(parts, 0, new StringBuilder());
        }

        private void product(List<Part> parts, int index, StringBuilder name) {
            if (index == parts.size()) {
                this.hosts.add(name.toString());
                return;
            }
            int mark = name.length();
            Part part = parts.get(index);
            if (part.ranges().isEmpty()) {
                name.append(part.literal());
                product(parts, index + 1, name);
            }
            else {
                for (Range range : part.ranges()) {
                    for (long n = range.lo(); n <= range.hi(); n++) {
                        name.append(padded(n, range.width()));
                        product(parts, index + 1, name);
                        name.setLength(mark);
                    }
                }
            }
            name.setLength(mark);
        }

        /** Reads the comma-separated ranges between {@code from} and the closing bracket. */
        private List<Range> ranges(int from, int close) {
            List<Range> ranges = new ArrayList<>();
            int start = from;
            while (true) {
                int end = find(',', start, close);
                ranges.add(range(start, end));
                if (end == close) {
                    return ranges;
                }
                start = end + 1;
            }
        }

        private Range range(int start, int end) {
            if (start == end) {
                throw error(start, "empty range element");
            }
            int loEnd = digits(start, end, "range");
            String lo = this.text.substring(start, loEnd);
            if (loEnd == end) {
                long value = number(start, lo);
                return new Range(value, value, lo.length());
            }
            if (this.text.charAt(loEnd) != '-') {
                throw error(loEnd, "'" + this.text.charAt(loEnd) + "' is not a digit");
            }
            int hiStart = loEnd + 1;
            int hiEnd = digits(hiStart, end, "range end");
            if (hiEnd != end) {
                throw error(hiEnd, "'" + this.text.charAt(hiEnd) + "' is not a digit");
            }
            long loValue = number(start, lo);
            long hiValue = number(hiStart, this.text.substring(hiStart, hiEnd));
            if (loValue > hiValue) {
                throw error(start, "descending range " + this.text.substring(start, end));
            }
            if (hiValue - loValue >= this.max) {
                throw error(start, "range " + this.text.substring(start, end) + " has more than " + this.max
                        + " hosts");
            }
            // Slurm pads the whole range to the width of its low end: n[8-010] is n8, n9, n10.
            return new Range(loValue, hiValue, lo.length());
        }

        /**
         * The first {@code c} in {@code [from, end)}, or {@code end}. Bounded, unlike
         * {@code String.indexOf}, so a list of many plain names is not read once per name.
         */
        private int find(char c, int from, int end) {
            int i = from;
            while (i < end && this.text.charAt(i) != c) {
                i++;
            }
            return i;
        }

        /** The end of the digit run at {@code start}, which must not be empty. */
        private int digits(int start, int end, String what) {
            int i = start;
            while (i < end && isDigit(this.text.charAt(i))) {
                i++;
            }
            if (i == start) {
                if (start == end) {
                    throw error(start, "empty " + what);
                }
                char c = this.text.charAt(start);
                throw error(start, c == '-' ? "missing number before '-'" : "'" + c + "' is not a digit");
            }
            return i;
        }

        private long number(int start, String digits) {
            if (digits.length() > MAX_DIGITS) {
                throw error(start, "number " + digits + " is too long");
            }
            return Long.parseLong(digits);
        }

        private HostlistException error(int position, String problem) {
            return new HostlistException(this.text, position, problem);
        }

    }

    /** Literal text, or a bracket group (whose ranges are never empty). */
    private record Part(String literal, List<Range> ranges) {

        static Part literal(String text) {
            return new Part(text, List.of());
        }

    }

    private record Range(long lo, long hi, int width) {

        long size() {
            return this.hi - this.lo + 1;
        }

    }

}
