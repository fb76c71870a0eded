package io.gantry.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Slurm's {@code print_fields} (src/common/print_fields.c), which sacctmgr, sshare and sreport print
 * with: fixed-width columns (a positive width right-justifies, a negative one left-justifies, text too
 * wide is cut with a trailing '+', each column followed by a space, a header with a line of dashes), or
 * {@code -p} (every value followed by '|') and {@code -P} (between values only). An unset value prints
 * blank.
 */
final class PrintFields {

    /** How a column prints its value: Slurm's print routine for it. */
    enum Kind {
        /** Text: cut to the width with '+'. */
        STR,
        /** An integer: never cut. */
        NUM,
        /** {@code %f}: six decimals, in exponent form when too wide. */
        DOUBLE,
        /** A duration given in minutes: {@code [D-]HH:MM:SS}. */
        MINUTES,
        /** A duration given in seconds: {@code [D-]HH:MM:SS}. */
        SECONDS
    }

    /** One column: its header, its width (negative: left-justified) and kind. */
    record Column(String name, int width, Kind kind) {
        Column withWidth(int newWidth) {
            return new Column(name, newWidth, kind);
        }
    }

    enum Mode {
        FIXED, PARSABLE, PARSABLE2
    }

    private final PrintStream out;
    private final Mode mode;
    private final boolean header;
    private final String delimiter;

    PrintFields(PrintStream out, Mode mode, boolean header) {
        this(out, mode, header, "|");
    }

    PrintFields(PrintStream out, Mode mode, boolean header, String delimiter) {
        this.out = out;
        this.mode = mode;
        this.header = header;
        this.delimiter = delimiter;
    }

    void header(List<Column> columns) {
        if (!header) {
            return;
        }
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            if (mode == Mode.PARSABLE2 && i == columns.size() - 1) {
                line.append(c.name());
            } else if (mode != Mode.FIXED) {
                line.append(c.name()).append(delimiter);
            } else {
                line.append(pad(cut(c.name(), Math.abs(c.width()), false), c.width())).append(' ');
            }
        }
        out.println(line);
        if (mode != Mode.FIXED) {
            return;
        }
        StringBuilder dashes = new StringBuilder();
        for (Column c : columns) {
            dashes.append("-".repeat(Math.abs(c.width()))).append(' ');
        }
        out.println(dashes);
    }

    /** One line; {@code values} holds each column's value as text (null when unset) in column order. */
    void row(List<Column> columns, List<String> values) {
        out.println(line(columns, values));
    }

    String line(List<Column> columns, List<String> values) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            line.append(cell(columns.get(i), values.get(i), i == columns.size() - 1));
        }
        return line.toString();
    }

    private String cell(Column c, String value, boolean last) {
        String text = value == null ? "" : render(c.kind(), value, c.width());
        if (mode == Mode.PARSABLE2 && last) {
            return text;
        }
        if (mode != Mode.FIXED) {
            return text + delimiter;
        }
        int abs = Math.abs(c.width());
        if (value == null) {
            return " ".repeat(abs) + " ";
        }
        // Text is cut (with '+'); numbers and durations are printed whole, as printf's width does.
        String shown = c.kind() == Kind.STR ? cut(text, abs, true) : text;
        return pad(shown, c.width()) + " ";
    }

    private String render(Kind kind, String value, int width) {
        return switch (kind) {
            case STR, NUM -> value;
            case DOUBLE -> value.equals("inf") ? "inf" : mode == Mode.FIXED ? fixedDouble(Double.parseDouble(value), Math.abs(width))
                    : String.format(Locale.ROOT, "%f", Double.parseDouble(value));
            case MINUTES -> duration(Long.parseLong(value) * 60);
            case SECONDS -> duration(Long.parseLong(value));
        };
    }

    /** {@code %*f}, or {@code %*.*e} when six decimals do not fit the width, as print_fields_double. */
    static String fixedDouble(double value, int width) {
        String plain = String.format(Locale.ROOT, "%f", value);
        if (plain.length() <= width) {
            return plain;
        }
        String tmp = cFormatExp(value, width);
        int w = width;
        if (tmp.length() > width) {
            w -= tmp.length() - width;
        }
        return cFormatExp(value, Math.max(w, 0));
    }

    /** C's {@code %.Ne}: Java writes the exponent without the sign's zero padding, C with two digits at least. */
    private static String cFormatExp(double value, int precision) {
        String java = String.format(Locale.ROOT, "%." + precision + "e", value);
        int e = java.indexOf('e');
        String mantissa = java.substring(0, e);
        String exp = java.substring(e + 1);
        char sign = exp.charAt(0) == '-' ? '-' : '+';
        String digits = exp.replaceFirst("^[+-]", "");
        while (digits.length() > 2 && digits.charAt(0) == '0') {
            digits = digits.substring(1);
        }
        if (digits.length() < 2) {
            digits = "0" + digits;
        }
        return mantissa + "e" + sign + digits;
    }

    /** Slurm's {@code secs2time_str}: {@code HH:MM:SS} or {@code D-HH:MM:SS}. */
    static String duration(long seconds) {
        long days = seconds / 86_400;
        String hms = String.format(Locale.ROOT, "%02d:%02d:%02d", seconds % 86_400 / 3_600, seconds % 3_600 / 60,
                seconds % 60);
        return days > 0 ? days + "-" + hms : hms;
    }

    private static String cut(String text, int width, boolean plus) {
        if (text.length() <= width) {
            return text;
        }
        return plus && width > 0 ? text.substring(0, width - 1) + "+" : text.substring(0, width);
    }

    private static String pad(String text, int width) {
        int abs = Math.abs(width);
        if (text.length() >= abs) {
            return text;
        }
        String spaces = " ".repeat(abs - text.length());
        return width >= 0 ? spaces + text : text + spaces;
    }

    /** The columns of a format, looked up by {@code lookup}; kept for commands that build them in a loop. */
    static List<Column> columns(List<Column> base) {
        return new ArrayList<>(base);
    }
}
