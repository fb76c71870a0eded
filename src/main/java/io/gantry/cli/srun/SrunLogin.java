package io.gantry.cli.srun;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Who srun is outside any job: the controller and the login token the command line uses
 * ({@code GANTRY_URL} and {@code GANTRY_TOKEN}, else {@code url=} in {@code ~/.config/gantry/config}
 * and the token {@code gantry login} stored in {@code ~/.config/gantry/token}), read the same way.
 */
record SrunLogin(List<URI> controllers, String token) {

    /** The login in this environment, or null when there is none (no controller or no token). */
    static SrunLogin of(Map<String, String> env) {
        String home = env.get("HOME");
        Path base = env.get("XDG_CONFIG_HOME") != null && !env.get("XDG_CONFIG_HOME").isBlank()
                ? Path.of(env.get("XDG_CONFIG_HOME"))
                : Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".config");
        Path dir = base.resolve("gantry");
        String url = env.get("GANTRY_URL");
        if (url == null || url.isBlank()) {
            url = configValue(dir.resolve("config"), "url");
        }
        String token = env.get("GANTRY_TOKEN");
        if (token == null || token.isBlank()) {
            try {
                Path file = dir.resolve("token");
                token = Files.isRegularFile(file) ? Files.readString(file).strip() : null;
            } catch (IOException e) {
                token = null;
            }
        }
        if (url == null || url.isBlank() || token == null || token.isBlank()) {
            return null;
        }
        List<URI> controllers = Arrays.stream(url.split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .map(s -> URI.create(s.replaceAll("/+$", ""))).toList();
        return controllers.isEmpty() ? null : new SrunLogin(controllers, token.strip());
    }

    private static String configValue(Path file, String key) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            for (String line : Files.readAllLines(file)) {
                String trimmed = line.strip();
                int eq = trimmed.indexOf('=');
                if (!trimmed.startsWith("#") && eq > 0 && trimmed.substring(0, eq).strip().equals(key)) {
                    String value = trimmed.substring(eq + 1).strip();
                    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                            ? value.substring(1, value.length() - 1) : value;
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
