package io.gantry.jobs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A job's environment stored as text: one {@code NAME=value} per line, newlines and backslashes
 * in values escaped. Names are checked at submit, so they never hold '=' or a newline.
 */
final class EnvironmentText {

    private EnvironmentText() {
    }

    static String encode(Map<String, String> environment) {
        if (environment.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        environment.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> text.append(e.getKey())
                .append('=').append(e.getValue().replace("\\", "\\\\").replace("\n", "\\n")).append('\n'));
        return text.toString();
    }

    static Map<String, String> decode(String text) {
        Map<String, String> environment = new LinkedHashMap<>();
        if (text == null) {
            return environment;
        }
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            environment.put(line.substring(0, eq), unescape(line.substring(eq + 1)));
        }
        return environment;
    }

    private static String unescape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length()) {
                char next = value.charAt(++i);
                out.append(next == 'n' ? '\n' : next);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
