package io.gantry.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import io.gantry.jobs.SbatchDirectives;
import io.gantry.jobs.SbatchException;
import io.gantry.jobs.SbatchOptions;
import tools.jackson.databind.JsonNode;

/**
 * {@code sbatch}: submits a script (a file, standard input, or {@code --wrap}) to {@code POST /api/v1/jobs}
 * and prints "Submitted batch job N" (or N with {@code --parsable}). The controller reads the script's
 * {@code #SBATCH} directives; the command-line options are added as directives after the script's own,
 * so they win as they do in sbatch, and the controller checks them with the same registry.
 */
final class Sbatch {

    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Options only the command line has: they shape the submission and are not passed on. */
    private static final Map<String, Boolean> LOCAL = Map.of("parsable", false, "wrap", true, "test-only", false,
            "export", true, "help", false, "usage", false, "version", false, "quiet", false, "wait", false,
            "clusters", true);

    private final CliEnvironment env;

    Sbatch(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        Map<String, Boolean> known = new LinkedHashMap<>(SbatchDirectives.commandLineOptions());
        known.putAll(LOCAL);
        Map<Character, String> letters = SbatchDirectives.shortOptions();
        Map<String, String> local = new LinkedHashMap<>();
        List<String> directives = new ArrayList<>();
        List<String> operands = new ArrayList<>();
        int i = 0;
        while (i < args.size()) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                operands.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (arg.startsWith("--")) {
                int eq = arg.indexOf('=');
                String written = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
                String name = resolve(known, written, arg);
                Boolean takes = known.get(name);
                String value = eq < 0 ? null : arg.substring(eq + 1);
                if (Boolean.TRUE.equals(takes) && value == null) {
                    if (i + 1 >= args.size()) {
                        throw new CommandLine.UsageError("option '--" + name + "' requires an argument");
                    }
                    value = args.get(++i);
                } else if (Boolean.FALSE.equals(takes) && value != null) {
                    throw new CommandLine.UsageError("option '--" + name + "' doesn't allow an argument");
                }
                take(name, value, local, directives);
            } else if (arg.startsWith("-") && arg.length() > 1) {
                for (int k = 1; k < arg.length(); k++) {
                    char letter = arg.charAt(k);
                    String name = letter == 'W' ? "wait" : letter == 'Q' ? "quiet" : letter == 'V' ? "version"
                            : letter == 'h' ? "help" : letters.get(letter);
                    if (name == null) {
                        throw new CommandLine.UsageError("invalid option -- '" + letter + "'");
                    }
                    if (Boolean.TRUE.equals(known.get(name))) {
                        String value;
                        if (k + 1 < arg.length()) {
                            value = arg.substring(k + 1);
                        } else if (i + 1 < args.size()) {
                            value = args.get(++i);
                        } else {
                            throw new CommandLine.UsageError("option requires an argument -- '" + letter + "'");
                        }
                        take(name, value, local, directives);
                        break;
                    }
                    take(name, null, local, directives);
                }
            } else {
                operands.addAll(args.subList(i, args.size()));
                break;
            }
            i++;
        }
        if (local.containsKey("version")) {
            env.out().println("slurm 22.05.8");
            return 0;
        }
        if (local.containsKey("help") || local.containsKey("usage")) {
            env.out().println("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]");
            env.out().println("Gantry's sbatch: every sbatch 22.05 option is read; see the README for those Gantry acts on.");
            return 0;
        }
        Clusters.named(env, "sbatch", local.get("clusters"));
        String script;
        if (local.containsKey("wrap")) {
            if (!operands.isEmpty()) {
                env.err().println("sbatch: error: Script arguments not permitted with --wrap option");
                return 1;
            }
            script = "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + local.get("wrap") + "\n";
        } else {
            try {
                if (operands.isEmpty()) {
                    script = new String(env.in().readAllBytes(), StandardCharsets.UTF_8);
                } else {
                    Path file = env.cwd().resolve(operands.get(0));
                    if (!Files.isReadable(file)) {
                        env.err().println("sbatch: error: Unable to open file " + operands.get(0));
                        return 1;
                    }
                    script = Files.readString(file);
                }
            } catch (IOException e) {
                env.err().println("sbatch: error: Unable to read the batch script: " + e.getMessage());
                return 1;
            }
            if (operands.size() > 1) {
                env.err().println("sbatch: error: script arguments are not supported by Gantry yet: "
                        + String.join(" ", operands.subList(1, operands.size())));
                return 1;
            }
            if (script.isEmpty()) {
                env.err().println("sbatch: error: Batch script is empty!");
                return 1;
            }
            if (!script.startsWith("#!")) {
                env.err().println("sbatch: error: This does not look like a batch script.  The first");
                env.err().println("sbatch: error: line must start with #! followed by the path to an interpreter.");
                env.err().println("sbatch: error: For instance: #!/bin/sh");
                return 1;
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("script", withDirectives(script, directives));
        body.put("environment", exported(local.get("export")));
        // sbatch's default name, which the JSON would make win over a -J in the script: only when nothing names the job.
        if (!directivesName(directives) && !scriptNames(script)) {
            if (local.containsKey("wrap")) {
                body.put("name", "wrap");
            } else {
                body.put("name", operands.isEmpty() ? "sbatch" : Path.of(operands.get(0)).getFileName().toString());
            }
        }
        if (!hasDirective(directives, "chdir") && !scriptHas(script, "chdir", 'D')) {
            body.put("workdir", env.cwd().toString());
        } else {
            chdir((String) body.get("script")).filter(d -> !d.startsWith("/"))
                    .ifPresent(d -> body.put("workdir", env.cwd().resolve(d).normalize().toString()));
        }
        try {
            containerFromEnvironment(body);
        } catch (IllegalArgumentException e) {
            env.err().println("sbatch: error: " + e.getMessage());
            return 1;
        }
        if (local.containsKey("test-only")) {
            return testOnly(body, local.containsKey("quiet"));
        }
        JsonNode answer;
        try {
            answer = env.api().get().post("/api/v1/jobs", body);
        } catch (ControllerApi.ApiException e) {
            String detail = e.getMessage();
            if (detail.contains("unknown partition")) {
                String name = detail.replaceAll(".*unknown partition '([^']*)'.*", "$1");
                env.err().println("sbatch: error: invalid partition specified: " + name);
                env.err().println("sbatch: error: Batch job submission failed: Invalid partition name specified");
            } else {
                env.err().println("sbatch: error: Batch job submission failed: " + detail);
            }
            return 1;
        }
        if (!local.containsKey("quiet") && answer.has("warnings") && answer.get("warnings").isArray()) {
            for (JsonNode warning : answer.get("warnings")) {
                env.err().println("sbatch: warning: " + warning.asString());
            }
        }
        String id = answer.path("jobId").asString();
        // With -M, sbatch names the cluster: "id;cluster" (--parsable) or "... on cluster X".
        String cluster = Clusters.named(env, "sbatch", local.get("clusters"));
        env.out().println(local.containsKey("parsable") ? id + (cluster == null ? "" : ";" + cluster)
                : "Submitted batch job " + id + (cluster == null ? "" : " on cluster " + cluster));
        return local.containsKey("wait") ? waitFor(env, id) : 0;
    }

    /**
     * {@code --test-only}: the controller checks the job and estimates its start without storing it;
     * printed to stderr as sbatch 22.05's will_run prints it ("sbatch: Job 0 to start at ... using N
     * processors on nodes ... in partition ..."), or "allocation failure: ..." with exit code 1.
     */
    private int testOnly(Map<String, Object> body, boolean quiet) {
        JsonNode answer;
        try {
            answer = env.api().get().post("/api/v1/jobs/test", body);
        } catch (ControllerApi.ApiException e) {
            String detail = e.getMessage();
            env.err().println("allocation failure: " + (detail.contains("unknown partition")
                    ? "Invalid partition name specified" : detail));
            return 1;
        }
        if (!quiet && answer.has("warnings") && answer.get("warnings").isArray()) {
            for (JsonNode warning : answer.get("warnings")) {
                env.err().println("sbatch: warning: " + warning.asString());
            }
        }
        if (!answer.hasNonNull("startTime")) {
            env.err().println("allocation failure: no start time can be given: " + answer.path("reason").asString());
            return 1;
        }
        env.err().println("sbatch: Job " + answer.path("jobId").asLong() + " to start at "
                + SlurmText.time(answer.get("startTime"), env.zone(), "Unknown") + " using "
                + answer.path("processors").asLong() + " processors on nodes "
                + (answer.hasNonNull("nodes") ? answer.get("nodes").asString() : "(null)")
                + " in partition " + answer.path("partition").asString());
        return 0;
    }

    private static final java.util.Set<String> ACTIVE = java.util.Set.of("PENDING", "RUNNING", "COMPLETING");

    /**
     * {@code --wait}: returns when the job (every task of an array) has ended, with its exit code as
     * sbatch's: the highest of an array's tasks, 1 for a job ended by a signal (cancelled, timed out)
     * or by its node. Polls as sbatch does, more rarely as the wait grows (0.2 s up to 5 s).
     */
    static int waitFor(CliEnvironment env, String id) {
        long sleep = 200;
        while (true) {
            List<JsonNode> jobs;
            try {
                jobs = tasks(env, id);
            } catch (ControllerApi.ApiException e) {
                env.err().println("sbatch: error: waiting for job " + id + ": " + e.getMessage());
                return 1;
            }
            if (!jobs.isEmpty() && jobs.stream().noneMatch(j -> ACTIVE.contains(j.path("state").asString()))) {
                return jobs.stream().mapToInt(Sbatch::exitCode).max().orElse(0);
            }
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
            sleep = Math.min(5_000, sleep * 2);
        }
    }

    /** The job, or an array's tasks (all pages). */
    private static List<JsonNode> tasks(CliEnvironment env, String id) {
        List<JsonNode> tasks = new java.util.ArrayList<>();
        for (int page = 0; ; page++) {
            JsonNode listed = env.api().get().get("/api/v1/jobs?arrayJobId=" + id + "&size=1000&page=" + page);
            listed.path("items").forEach(tasks::add);
            if (tasks.size() >= listed.path("total").asLong() || listed.path("items").isEmpty()) {
                break;
            }
        }
        return tasks.isEmpty() ? List.of(env.api().get().get("/api/v1/jobs/" + id)) : tasks;
    }

    private static int exitCode(JsonNode job) {
        String state = job.path("state").asString();
        if ("COMPLETED".equals(state)) {
            return 0;
        }
        if ("FAILED".equals(state) && job.hasNonNull("exitCode") && !job.hasNonNull("signal")) {
            return job.get("exitCode").asInt();
        }
        return 1;
    }

    private static String resolve(Map<String, Boolean> known, String written, String arg) {
        if (known.containsKey(written)) {
            return written;
        }
        List<String> prefixed = known.keySet().stream().filter(k -> k.startsWith(written)).toList();
        if (prefixed.size() == 1 && !written.isEmpty()) {
            return prefixed.get(0);
        }
        if (prefixed.size() > 1) {
            throw new CommandLine.UsageError("option '" + arg + "' is ambiguous");
        }
        throw new CommandLine.UsageError("unrecognized option '" + arg + "'");
    }

    private static void take(String name, String value, Map<String, String> local, List<String> directives) {
        if (LOCAL.containsKey(name)) {
            local.put(name, value == null ? "" : value);
        } else {
            directives.add(value == null ? "--" + name : "--" + name + "=" + quoted(value));
        }
    }

    /** A value as a directive line needs it: in double quotes when it holds a space, quote or {@code #}. */
    private static String quoted(String value) {
        if (value.isEmpty() || value.chars().anyMatch(c -> c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '#')) {
            return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        }
        return value;
    }

    /**
     * pyxis's {@code PYXIS_CONTAINER_*} variables in sbatch's environment, as pyxis reads them there:
     * each gives what neither the command line nor the script's directives gave. When they add
     * anything, the container is sent whole as JSON (which the controller takes instead of the
     * directives'); otherwise the directives speak for themselves.
     */
    private void containerFromEnvironment(Map<String, Object> body) {
        SbatchOptions options;
        try {
            options = SbatchDirectives.parse((String) body.get("script"));
        } catch (SbatchException e) {
            options = e.usable();
        }
        if (options == null) {
            return; // the controller names the script's mistakes
        }
        io.gantry.noded.protocol.ContainerSpec merged = io.gantry.noded.protocol.ContainerOptions.withEnvironment(options.container(), env.env());
        if (merged != options.container()) {
            body.put("container", merged);
        }
    }

    /**
     * The directory the script's directives (the command line's among them) name with -D/--chdir:
     * Slurm takes a relative one from where sbatch runs, which the controller cannot know, so sbatch
     * sends it resolved as {@code workdir} (which wins over the directive).
     */
    private static Optional<String> chdir(String script) {
        SbatchOptions options;
        try {
            options = SbatchDirectives.parse(script);
        } catch (SbatchException e) {
            options = e.usable();
        }
        return Optional.ofNullable(options == null ? null : options.workdir()).filter(d -> !d.isEmpty());
    }

    private static boolean hasDirective(List<String> directives, String name) {
        return directives.stream().anyMatch(d -> d.equals("--" + name) || d.startsWith("--" + name + "="));
    }

    private static boolean directivesName(List<String> directives) {
        return hasDirective(directives, "job-name");
    }

    private static boolean scriptNames(String script) {
        return scriptHas(script, "job-name", 'J');
    }

    /** Whether the script's directive block sets an option (sbatch's defaults must not override it). */
    private static boolean scriptHas(String script, String name, char letter) {
        for (String line : script.lines().skip(1).toList()) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                break;
            }
            if (line.startsWith("#SBATCH") && (line.contains("--" + name) || line.matches("#SBATCH\\s+-" + letter + ".*"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The script with the command line's options as {@code #SBATCH} lines after its own directive
     * block (its first lines of comments and blanks): read last, they win, as sbatch's command line does.
     */
    static String withDirectives(String script, List<String> directives) {
        if (directives.isEmpty()) {
            return script;
        }
        List<String> lines = new ArrayList<>(script.lines().toList());
        int at = lines.isEmpty() ? 0 : 1;
        while (at < lines.size() && (lines.get(at).isBlank() || lines.get(at).startsWith("#"))) {
            at++;
        }
        List<String> added = new ArrayList<>();
        added.add("# Options given on sbatch's command line:");
        for (String directive : directives) {
            added.add("#SBATCH " + directive);
        }
        lines.addAll(at, added);
        return String.join("\n", lines) + "\n";
    }

    /**
     * The job's environment as {@code --export} asks: ALL (the default) is this environment, NONE is
     * empty, else the names listed (with their values here) and the assignments. Never the controller
     * token or a job credential: a job must not carry its submitter's login.
     */
    private Map<String, String> exported(String export) {
        Map<String, String> out = new TreeMap<>();
        String spec = export == null ? "ALL" : export;
        for (String item : spec.split(",")) {
            String word = item.strip();
            if (word.equalsIgnoreCase("ALL")) {
                env.env().forEach((k, v) -> {
                    if (VARIABLE.matcher(k).matches()) {
                        out.put(k, v);
                    }
                });
            } else if (word.equalsIgnoreCase("NONE") || word.isEmpty()) {
                continue;
            } else if (word.contains("=")) {
                out.put(word.substring(0, word.indexOf('=')), word.substring(word.indexOf('=') + 1));
            } else if (env.env().containsKey(word)) {
                out.put(word, env.env().get(word));
            }
        }
        out.remove(CliEnvironment.TOKEN_ENV);
        out.remove(CliEnvironment.JOB_TOKEN_ENV);
        // As Slurm's sbatch: the job learns the host it was submitted from, whatever --export says
        String host = hostName();
        if (host != null) {
            out.put("SLURM_SUBMIT_HOST", host);
        }
        return out;
    }

    /** This machine's name as gethostname(2) gives it (what Slurm's sbatch sends), null when unknown. */
    private static String hostName() {
        try {
            String name = java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: ask the resolver library
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
