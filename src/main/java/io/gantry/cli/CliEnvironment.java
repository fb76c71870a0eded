package io.gantry.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a command reads and writes besides the controller: its streams, environment, home, clock and
 * time zone (Slurm prints local times). Passed in so tests run commands in-process against a fake controller.
 */
record CliEnvironment(Map<String, String> env, Path home, Path cwd, InputStream in, PrintStream out, PrintStream err,
        Clock clock, ZoneId zone, Supplier<ControllerApi> api) {

    static final String URL_ENV = "GANTRY_URL";
    static final String TOKEN_ENV = "GANTRY_TOKEN";
    /** The credential the agent gives each job (as srun uses it): sbatch and squeue inside a job act as its owner. */
    static final String JOB_TOKEN_ENV = "GANTRY_JOB_TOKEN";

    Path configDir() {
        String xdg = env.get("XDG_CONFIG_HOME");
        return (xdg != null && !xdg.isBlank() ? Path.of(xdg) : home.resolve(".config")).resolve("gantry");
    }

    Path tokenFile() {
        return configDir().resolve("token");
    }

    /**
     * The controller's URL: {@code GANTRY_URL} (inside a job the agent sets it, possibly to several
     * controllers, comma-separated: the first is taken), else {@code url=} in {@code ~/.config/gantry/config}.
     */
    String controllerUrl() {
        String url = env.get(URL_ENV);
        if (url == null || url.isBlank()) {
            url = configValue("url");
        }
        if (url == null || url.isBlank()) {
            return null;
        }
        return url.split(",")[0].strip();
    }

    /** {@code GANTRY_TOKEN}, else the job's credential inside a job, else the token {@code gantry login} stored. */
    String token() {
        for (String name : new String[] { TOKEN_ENV, JOB_TOKEN_ENV }) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        try {
            Path file = tokenFile();
            return Files.isRegularFile(file) ? Files.readString(file).strip() : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    String configValue(String key) {
        Path file = configDir().resolve("config");
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            for (String line : Files.readAllLines(file)) {
                String trimmed = line.strip();
                if (trimmed.startsWith("#")) {
                    continue;
                }
                int eq = trimmed.indexOf('=');
                if (eq > 0 && trimmed.substring(0, eq).strip().equals(key)) {
                    String value = trimmed.substring(eq + 1).strip();
                    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                            ? value.substring(1, value.length() - 1) : value;
                }
            }
        } catch (java.io.IOException e) {
            return null;
        }
        return null;
    }
}
