package io.gantry.api;

import java.time.Duration;
import java.time.temporal.Temporal;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * Words for what a client sent wrong, in the client's terms: JSON paths and JSON types, never the
 * Java classes and methods that Jackson's and Spring's own messages name.
 */
public final class InputText {

    /** A qualified Java name ({@code java.lang.Integer}, {@code io.gantry.x.Y$Z}): kept to its last simple name. */
    private static final Pattern QUALIFIED = Pattern.compile("\\b(?:[a-z_][a-z0-9_]*\\.)+(?:[A-Z][\\w]*\\$)*([A-Z]\\w*)");
    private static final int MAX_SHOWN = 100;

    private InputText() {
    }

    /** The JSON path of the value at fault, as {@code environment.A} or {@code qos[2]}; empty at the top. */
    public static String path(JacksonException e) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference reference : e.getPath()) {
            if (reference.getPropertyName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /** What is wrong, without Java names: what was expected where a mismatch says so, else Jackson's first line cleaned. */
    public static String jsonProblem(JacksonException e) {
        String original = firstLine(e.getOriginalMessage());
        int problem = original.indexOf("problem: ");
        if (problem >= 0) {
            // A constructor's own check (e.g. a record refusing a value) says best what is wrong.
            return clean(original.substring(problem + "problem: ".length()));
        }
        if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null
                && original.startsWith("Cannot ")) {
            // Jackson's "Cannot deserialize value of type `java.lang.Integer` from ...": say it in JSON's words.
            String expected = "expected " + describe(mismatch.getTargetType());
            if (e instanceof InvalidFormatException format && format.getValue() != null) {
                return expected + ", got '" + shown(String.valueOf(format.getValue())) + "'";
            }
            return expected;
        }
        return clean(original);
    }

    /** A JSON-side name for what a Java type reads. */
    public static String describe(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Short.class || type == short.class) {
            return "an integer from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE;
        }
        if (type == Long.class || type == long.class) {
            return "an integer from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE;
        }
        if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (CharSequence.class.isAssignableFrom(type) || type == char.class || type == Character.class) {
            return "a string";
        }
        if (Temporal.class.isAssignableFrom(type)) {
            return "a time as ISO-8601 text, e.g. 2030-01-31T12:00:00Z";
        }
        if (type == Duration.class) {
            return "a duration";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.toString(type.getEnumConstants());
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return "a JSON array";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "a JSON object";
        }
        return "a JSON object";
    }

    /** A client's value shown in a message: at most {@value #MAX_SHOWN} characters, control characters escaped. */
    public static String shown(String value) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < value.length() && out.length() < MAX_SHOWN; i++) {
            char c = value.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return out.length() < value.length() ? out + "..." : out.toString();
    }

    /**
     * The first of many bad names and how many there are in all: {@code 'a', 'b', 'c' and 99,997 more
     * (100,000 in all)}. Built from the few shown only, so a list of a million names costs no more.
     */
    public static String someOf(List<String> shown, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < shown.size(); i++) {
            text.append(i == 0 ? "" : ", ").append('\'').append(shown(shown.get(i))).append('\'');
        }
        if (count > shown.size()) {
            text.append(String.format(" and %,d more (%,d in all)", count - shown.size(), count));
        }
        return text.toString();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "it cannot be read";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static String clean(String message) {
        String cleaned = QUALIFIED.matcher(message).replaceAll("$1");
        return cleaned.length() > 300 ? cleaned.substring(0, 300) + "..." : cleaned;
    }
}
