package io.gantry.api.fuzz;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Writes generated values as JSON text, by hand, so that the fuzz can send what a JSON library would
 * not: numbers past any Java type, {@code NaN}, lone surrogates as {@code \ud800} escapes. A value is
 * null, a String, a Boolean, a Number, a {@link Raw} token, a List or a Map with String keys.
 */
final class FuzzJson {

    /** Text written as it is: a bare {@code NaN}, {@code 1e400}, {@code 9223372036854775808}. */
    record Raw(String text) {
    }

    private static final HexFormat HEX = HexFormat.of();

    private FuzzJson() {
    }

    static String write(Object value, SplittableRandom random) {
        StringBuilder out = new StringBuilder();
        write(value, out, random.nextInt(4) == 0);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out, boolean escapeNonAscii) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            string(s, out, escapeNonAscii);
        } else if (value instanceof Raw raw) {
            out.append(raw.text());
        } else if (value instanceof Boolean || value instanceof Number) {
            out.append(value);
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(list.get(i), out, escapeNonAscii);
            }
            out.append(']');
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(String.valueOf(entry.getKey()), out, escapeNonAscii);
                out.append(':');
                write(entry.getValue(), out, escapeNonAscii);
            }
            out.append('}');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass());
        }
    }

    private static void string(String s, StringBuilder out, boolean escapeNonAscii) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    // Surrogates go escaped: as UTF-8 bytes a lone one would turn into '?' before it left.
                    if (c < 0x20 || Character.isSurrogate(c) || (escapeNonAscii && c > 0x7e)) {
                        // HexFormat, not String.format: the fuzz's strings of megabytes are mostly escapes
                        out.append("\\u").append(HEX.toHexDigits(c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
