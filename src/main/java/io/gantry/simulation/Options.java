package io.gantry.simulation;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** {@code --name value} and {@code --name=value} command-line options; unknown ones are an error. */
final class Options {

    private final Map<String, String> values = new HashMap<>();

    static Options parse(String[] args, String... known) {
        Set<String> allowed = Set.of(known);
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a;
            String value;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + a + " needs a value");
                }
                value = args[++i];
            }
            if (!allowed.contains(name)) {
                throw new IllegalArgumentException("unknown option " + name);
            }
            o.values.put(name, value);
        }
        return o;
    }

    String required(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v;
    }

    String value(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    int intValue(String name, int fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not '" + v + "'");
        }
    }

    long longValue(String name, long fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not '" + v + "'");
        }
    }
}
