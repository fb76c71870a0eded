package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.Launch;

/**
 * Expands Slurm's filename patterns in a job's {@code --output}/{@code --error} so scripts written
 * for {@code sbatch} write where their users expect: {@code %j} job id, {@code %A} array job id,
 * {@code %a} array task id (4294967294 outside arrays, as Slurm prints), {@code %x} job name,
 * {@code %u} user, {@code %N} node name, {@code %n} and {@code %t} 0, {@code %s} {@code batch},
 * {@code %J} job id and step ({@code 42.batch}), {@code %%} a percent sign. A number between the
 * percent sign and a numeric specifier zero-pads it (at most 10 digits); other specifiers ignore it.
 * Unknown specifiers stay as they are, and a pattern holding a backslash is not expanded at all
 * (its backslashes are dropped), as in Slurm.
 */
public final class OutputPattern {

    /** What Slurm prints for {@code %a} when the job is not an array task (NO_VAL - 1). */
    static final long NO_ARRAY_TASK = 4294967294L;

    private static final int MAX_PADDING = 10;

    private OutputPattern() {
    }

    /** The default output file: {@code gantry-%j.out}, or {@code gantry-%A_%a.out} for an array task. */
    public static String defaultPattern(Launch launch) {
        return launch.arrayTaskId() != null ? "gantry-%A_%a.out" : "gantry-%j.out";
    }

    public static String expand(String pattern, Launch launch, String node) {
        if (pattern.indexOf('\\') >= 0) {
            return pattern.replace("\\", "");
        }
        long jobId = numericJobId(launch);
        StringBuilder out = new StringBuilder(pattern.length() + 16);
        int i = 0;
        while (i < pattern.length()) {
            char c = pattern.charAt(i);
            if (c != '%') {
                out.append(c);
                i++;
                continue;
            }
            int j = i + 1;
            while (j < pattern.length() && Character.isDigit(pattern.charAt(j))) {
                j++;
            }
            if (j >= pattern.length()) {
                out.append(pattern, i, pattern.length());
                break;
            }
            int width = j > i + 1 ? Math.min(MAX_PADDING, parseWidth(pattern.substring(i + 1, j))) : 0;
            char spec = pattern.charAt(j);
            String text = switch (spec) {
                case 'j' -> padded(jobId, width);
                case 'A' -> padded(launch.arrayTaskId() != null ? launch.arrayJobId() : jobId, width);
                case 'a' -> padded(launch.arrayTaskId() != null ? launch.arrayTaskId() : NO_ARRAY_TASK, width);
                case 'J' -> padded(jobId, width) + ".batch";
                case 'n', 't' -> padded(0, width);
                case 'x' -> nullToEmpty(launch.name());
                case 'u' -> nullToEmpty(launch.user());
                case 'N' -> node;
                case 's' -> "batch";
                case '%' -> "%";
                default -> null;
            };
            if (text == null) {
                out.append(pattern, i, j + 1);
            } else {
                out.append(text);
            }
            i = j + 1;
        }
        return out.toString();
    }

    /** The job's number: the display id up to its {@code _} (the array job id for an array task). */
    public static long numericJobId(Launch launch) {
        String id = launch.jobId();
        int underscore = id.indexOf('_');
        try {
            return Long.parseLong(underscore >= 0 ? id.substring(0, underscore) : id);
        } catch (NumberFormatException e) {
            return launch.arrayJobId();
        }
    }

    private static int parseWidth(String digits) {
        return digits.length() > 2 ? MAX_PADDING : Integer.parseInt(digits);
    }

    private static String padded(long value, int width) {
        String digits = Long.toString(value);
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
