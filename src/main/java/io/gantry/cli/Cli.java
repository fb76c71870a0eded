package io.gantry.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;

/**
 * Gantry's command line: Slurm's commands ({@code sbatch squeue scancel sinfo sacct sstat seff scontrol sacctmgr sshare
 * sprio sreport}) as
 * subcommands of the jar, plus {@code login} and {@code cli install}. Plain Java, no Spring context,
 * so a command answers in a fraction of a second; messages and exit codes follow Slurm 22.05.
 */
public final class Cli {

    /** The Slurm names {@code cli install} writes launchers for. */
    public static final List<String> COMMANDS = List.of("sbatch", "squeue", "scancel", "sinfo", "sacct", "sacctmgr",
            "scontrol", "sprio", "sshare", "sreport", "srun", "salloc", "sstat", "seff", "sdiag");

    private Cli() {
    }

    /** Whether the jar's first argument is one of the command line's subcommands. */
    public static boolean handles(String word) {
        // srun and salloc start without the command line's machinery (see GantryApplication)
        return COMMANDS.contains(word) && !word.equals("srun") && !word.equals("salloc") || word.equals("login")
                || word.equals("cli");
    }

    public static int run(String command, String[] args) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        CliEnvironment[] holder = new CliEnvironment[1];
        String home = System.getenv("HOME");
        holder[0] = new CliEnvironment(System.getenv(),
                Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home")),
                Path.of("").toAbsolutePath(), System.in, out, err, Clock.systemUTC(), ZoneId.systemDefault(),
                () -> connect(holder[0], command));
        try {
            return run(holder[0], command, Arrays.asList(args));
        } finally {
            out.flush();
        }
    }

    private static ControllerApi connect(CliEnvironment env, String command) {
        String url = env.controllerUrl();
        if (url == null) {
            throw new ControllerApi.Unreachable("no controller: set " + CliEnvironment.URL_ENV + " or url= in "
                    + env.configDir().resolve("config"));
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new ControllerApi.Unreachable("the controller URL '" + url + "' is not a URL");
        }
        if (uri.getHost() == null) {
            throw new ControllerApi.Unreachable("the controller URL '" + url + "' has no host");
        }
        return new HttpControllerApi(uri, env.token());
    }

    /** Runs {@code command}; every failure ends as Slurm's one-line message and a non-zero exit code. */
    static int run(CliEnvironment env, String command, List<String> args) {
        try {
            return switch (command) {
                case "sbatch" -> new Sbatch(env).run(args);
                case "squeue" -> new Squeue(env).run(args);
                case "scancel" -> new Scancel(env).run(args);
                case "sinfo" -> new Sinfo(env).run(args);
                case "sacct" -> new Sacct(env).run(args);
                case "sstat" -> new Sstat(env).run(args);
                case "seff" -> new Seff(env).run(args);
                case "scontrol" -> new Scontrol(env).run(args);
                case "sacctmgr" -> new Sacctmgr(env).run(args);
                case "sshare" -> new Sshare(env).run(args);
                case "sprio" -> new Sprio(env).run(args);
                case "sreport" -> new Sreport(env).run(args);
                case "sdiag" -> new Sdiag(env).run(args);
                case "login" -> new Login(env).run(args);
                case "cli" -> new Install(env).run(args);
                default -> {
                    env.err().println("gantry: unknown command '" + command + "'");
                    yield 2;
                }
            };
        } catch (CommandLine.UsageError e) {
            env.err().println(command + ": " + e.getMessage());
            env.err().println("Try \"" + command + " --help\" for more information");
            // sbatch exits 255 on a bad option (its error(), as recorded from Slurm 22.05); the others 1.
            return command.equals("sbatch") ? 255 : 1;
        } catch (Clusters.Refused e) {
            return 1;
        } catch (ControllerApi.Unreachable e) {
            env.err().println(command + ": error: " + e.getMessage());
            return 1;
        } catch (ControllerApi.ApiException e) {
            env.err().println(command + ": error: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            env.err().println(command + ": error: " + e.getMessage());
            return 1;
        }
    }

    /** What {@code java -jar gantry.jar} does with each first word; printed for a word it does not know. */
    public static String usage() {
        return """
                usage: java -jar gantry.jar [--spring.option=value ...]   start a controller (no word, or only options)
                       java -jar gantry.jar agent ...                     run a node agent
                       java -jar gantry.jar simulate|bench|loadtest ...   the simulator and benchmarks
                       java -jar gantry.jar cli install --prefix DIR      write sbatch, squeue, ... launchers into DIR
                       java -jar gantry.jar login [--user NAME] [--password-stdin] [--url URL]
                       java -jar gantry.jar sbatch|squeue|scancel|sinfo|sacct|sstat|seff|scontrol|sacctmgr|sshare|sprio|sreport|sdiag|srun ...
                """;
    }
}
