package io.gantry.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tools.jackson.databind.JsonNode;

/**
 * How {@code sacctmgr} reads its command line ({@code key=value} words, names, {@code where} and
 * {@code set}, a list's conditions) and the few values it reads out of the API's JSON.
 */
final class SacctmgrWords {

    private SacctmgrWords() {
    }

    /** A list command's conditions: names, other key=values, format items, flags. */
    static final class Conditions {
        final List<String> names = new ArrayList<>();
        final Map<String, List<String>> values = new LinkedHashMap<>();
        final List<String> format = new ArrayList<>();
        boolean withAssoc;
        boolean assocCondition;

        List<String> get(String key) {
            return values.getOrDefault(key, List.of());
        }
    }

    /** The key of a {@code key=value} word, its value, or null for a bare word. */
    record Word(String text, String key, String value) {
        static Word of(String text) {
            int eq = text.indexOf('=');
            if (eq <= 0) {
                return new Word(text, null, null);
            }
            String key = text.substring(0, eq);
            // sacctmgr's "+=" and "-=" name the same key.
            if (key.endsWith("+") || key.endsWith("-")) {
                key = key.substring(0, key.length() - 1);
            }
            return new Word(text, key, text.substring(eq + 1));
        }

        boolean is(String name, int minimum) {
            return key != null && SacctmgrFields.abbreviates(key, name, minimum);
        }
    }

    /** The names and settings of an add or modify: bare words and names= are names, the rest key=value. */
    record Change(List<String> names, List<Word> where, List<Word> set) {
    }

    static Change change(List<String> args, boolean modify) {
        List<String> names = new ArrayList<>();
        List<Word> where = new ArrayList<>();
        List<Word> set = new ArrayList<>();
        boolean inSet = !modify;
        for (String arg : args) {
            Word w = Word.of(arg);
            if (w.key() == null && SacctmgrFields.abbreviates(arg, "set", 3)) {
                inSet = true;
                continue;
            }
            if (w.key() == null && SacctmgrFields.abbreviates(arg, "where", 5)) {
                inSet = false;
                continue;
            }
            if (w.key() == null) {
                names.addAll(commaList(arg.toLowerCase(Locale.ROOT)));
            } else if (!inSet && (w.is("Names", 1))) {
                names.addAll(commaList(w.value().toLowerCase(Locale.ROOT)));
            } else if (inSet) {
                set.add(w);
            } else {
                where.add(w);
            }
        }
        return new Change(names, where, set);
    }

    static List<String> commaList(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }

    static int number(Word w) {
        String v = w.value().strip();
        if (v.equals("-1") || v.equalsIgnoreCase("none") || v.isEmpty()) {
            return -1;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value '" + w.value() + "' for " + w.key());
        }
    }

    static boolean matches(List<String> wanted, String value) {
        return wanted.isEmpty() || value != null && wanted.stream().anyMatch(w -> w.equalsIgnoreCase(value));
    }

    static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    static String tresCount(String tres, String name) {
        if (tres == null) {
            return null;
        }
        for (String part : tres.split(",")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        return null;
    }
}
