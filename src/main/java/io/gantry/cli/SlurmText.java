package io.gantry.cli;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/** How Slurm 22.05 writes durations, times, states and host lists, in one place for every command. */
final class SlurmText {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
    private static final Pattern HOST = Pattern.compile("^(.*?)(\\d+)$");

    /** Gantry's job states to squeue's compact codes (%t). */
    static final Map<String, String> STATE_CODES = Map.ofEntries(Map.entry("PENDING", "PD"),
            Map.entry("RUNNING", "R"), Map.entry("COMPLETING", "CG"), Map.entry("COMPLETED", "CD"),
            Map.entry("FAILED", "F"), Map.entry("CANCELLED", "CA"), Map.entry("TIMEOUT", "TO"),
            Map.entry("NODE_FAIL", "NF"), Map.entry("PREEMPTED", "PR"), Map.entry("OUT_OF_MEMORY", "OOM"),
            Map.entry("SUSPENDED", "S"), Map.entry("BOOT_FAIL", "BF"), Map.entry("DEADLINE", "DL"));

    /** What squeue and sacct accept for -t/-s; Slurm lists them in this order when one is wrong. */
    static final List<String> JOB_STATES = List.of("PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED",
            "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "COMPLETING",
            "CONFIGURING", "RESIZING", "RESV_DEL_HOLD", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "REVOKED",
            "SIGNALING", "SPECIAL_EXIT", "STAGE_OUT", "STOPPED");

    private SlurmText() {
    }

    /** squeue's %M and %l: {@code M:SS}, {@code H:MM:SS}, {@code D-HH:MM:SS}. */
    static String elapsed(long seconds) {
        long s = Math.max(0, seconds);
        long days = s / 86_400;
        long hours = s % 86_400 / 3_600;
        long minutes = s % 3_600 / 60;
        long secs = s % 60;
        if (days > 0) {
            return String.format(Locale.ROOT, "%d-%02d:%02d:%02d", days, hours, minutes, secs);
        }
        if (hours > 0) {
            return String.format(Locale.ROOT, "%d:%02d:%02d", hours, minutes, secs);
        }
        return String.format(Locale.ROOT, "%d:%02d", minutes, secs);
    }

    /** scontrol's and sacct's {@code HH:MM:SS} or {@code D-HH:MM:SS}. */
    static String clock(long seconds) {
        long s = Math.max(0, seconds);
        long days = s / 86_400;
        String hms = String.format(Locale.ROOT, "%02d:%02d:%02d", s % 86_400 / 3_600, s % 3_600 / 60, s % 60);
        return days > 0 ? days + "-" + hms : hms;
    }

    /** A time limit as squeue prints it: a zero or absent limit is UNLIMITED. */
    static String limit(JsonNode seconds) {
        return seconds == null || seconds.isNull() || seconds.asLong() <= 0 ? "UNLIMITED" : elapsed(seconds.asLong());
    }

    /** Slurm's local timestamp, or {@code fallback} (N/A, Unknown, None) when there is none. */
    static String time(JsonNode value, ZoneId zone, String fallback) {
        if (value == null || value.isNull() || value.asString().isBlank()) {
            return fallback;
        }
        return TIME.format(LocalDateTime.ofInstant(Instant.parse(value.asString()), zone));
    }

    static Instant instant(JsonNode value) {
        return value == null || value.isNull() || value.asString().isBlank() ? null : Instant.parse(value.asString());
    }

    static String text(JsonNode node, String field, String fallback) {
        JsonNode value = node == null ? null : node.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        String s = value.isArray() ? joined(value) : value.asString();
        return s.isEmpty() ? fallback : s;
    }

    private static String joined(JsonNode array) {
        List<String> parts = new ArrayList<>();
        array.forEach(v -> parts.add(v.asString()));
        return String.join(",", parts);
    }

    /** Host names a Slurm host list stands for, in its order ({@code scontrol show hostnames}). */
    static List<String> expand(String hostlist) {
        List<String> hosts = new ArrayList<>();
        for (String item : splitTop(hostlist)) {
            int open = item.indexOf('[');
            if (open < 0) {
                if (!item.isEmpty()) {
                    hosts.add(item);
                }
                continue;
            }
            int close = item.indexOf(']', open);
            if (close < 0) {
                throw new IllegalArgumentException("Invalid hostlist: " + hostlist);
            }
            String prefix = item.substring(0, open);
            String suffix = item.substring(close + 1);
            for (String range : item.substring(open + 1, close).split(",")) {
                String[] ends = range.split("-", 2);
                long lo = Long.parseLong(ends[0]);
                long hi = ends.length > 1 ? Long.parseLong(ends[1]) : lo;
                int width = ends[0].length();
                for (long n = lo; n <= hi; n++) {
                    String digits = Long.toString(n);
                    hosts.add(prefix + "0".repeat(Math.max(0, width - digits.length())) + digits + suffix);
                }
            }
        }
        return hosts;
    }

    private static List<String> splitTop(String list) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : list.toCharArray()) {
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                items.add(current.toString().strip());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        items.add(current.toString().strip());
        return items;
    }

    /**
     * The ranged form of hosts as {@code scontrol show hostlist} writes it: hosts that differ only in
     * a trailing number, and that follow one another, share a bracket; the first host's prefix comes first.
     */
    static String compress(List<String> hosts) {
        record Name(String prefix, long value, String digits) {
        }
        List<String> groups = new ArrayList<>();
        int i = 0;
        while (i < hosts.size()) {
            Matcher m = HOST.matcher(hosts.get(i));
            if (!m.matches()) {
                groups.add(hosts.get(i));
                i++;
                continue;
            }
            String prefix = m.group(1);
            List<Name> names = new ArrayList<>();
            int j = i;
            while (j < hosts.size()) {
                Matcher n = HOST.matcher(hosts.get(j));
                if (!n.matches() || !n.group(1).equals(prefix)) {
                    break;
                }
                names.add(new Name(prefix, Long.parseLong(n.group(2)), n.group(2)));
                j++;
            }
            if (names.size() == 1) {
                groups.add(hosts.get(i));
            } else {
                names.sort(java.util.Comparator.comparingLong(Name::value));
                StringBuilder ranges = new StringBuilder();
                int k = 0;
                while (k < names.size()) {
                    int end = k;
                    while (end + 1 < names.size() && names.get(end + 1).value() == names.get(end).value() + 1) {
                        end++;
                    }
                    if (ranges.length() > 0) {
                        ranges.append(',');
                    }
                    ranges.append(names.get(k).digits());
                    if (end > k) {
                        ranges.append('-').append(pad(names.get(end).value(), names.get(k).digits().length()));
                    }
                    k = end + 1;
                }
                groups.add(prefix + "[" + ranges + "]");
            }
            i = j;
        }
        return String.join(",", groups);
    }

    private static String pad(long value, int width) {
        String digits = Long.toString(value);
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    /**
     * One field of a {@code %[.][width]X} format: right-justified with a dot, left-justified without,
     * cut to the width as Slurm cuts it.
     */
    static String fit(String value, Integer width, boolean right) {
        if (width == null) {
            return value;
        }
        String cut = value.length() > width ? value.substring(0, width) : value;
        String pad = " ".repeat(width - cut.length());
        return right ? pad + cut : cut + pad;
    }

    /** Slurm's job state names, with Slurm's short codes and any case accepted. */
    static String jobState(String word) {
        String upper = word.strip().toUpperCase(Locale.ROOT);
        for (Map.Entry<String, String> e : STATE_CODES.entrySet()) {
            if (e.getValue().equals(upper)) {
                return e.getKey();
            }
        }
        return JOB_STATES.contains(upper) ? upper : null;
    }
}
