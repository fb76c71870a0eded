package io.gantry.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.gantry.cli.CommandLine.Option;

/**
 * {@code cli install --prefix DIR}: writes {@code sbatch}, {@code squeue}, ... and {@code gantry} into DIR,
 * each a two-line sh script that runs this jar (by absolute path, with this Java) with its subcommand.
 */
final class Install {

    static final List<Option> OPTIONS = List.of(new Option("prefix", '\0', true), new Option("jar", '\0', true),
            new Option("java", '\0', true), new Option("no-cds", '\0', false));

    /**
     * A command line tool's JVM: C1 only and the serial collector start faster than the defaults for a short run;
     * without the performance-data file (hsperfdata, for jstat) a run saves its creation and removal, ~15 ms.
     */
    static final String JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xshare:auto";

    private final CliEnvironment env;

    Install(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        if (args.isEmpty() || !args.get(0).equals("install")) {
            env.err().println("usage: java -jar gantry.jar cli install --prefix DIR");
            return 2;
        }
        CommandLine line = CommandLine.parse(args.subList(1, args.size()), OPTIONS, false);
        if (!line.has("prefix")) {
            env.err().println("cli install: error: --prefix DIR is required (where to write the launchers)");
            return 2;
        }
        Path prefix = env.cwd().resolve(line.value("prefix")).toAbsolutePath().normalize();
        String jar = line.has("jar") ? line.value("jar") : System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0];
        Path jarPath = env.cwd().resolve(jar).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jarPath) || !jarPath.toString().endsWith(".jar")) {
            env.err().println("cli install: error: cannot tell which jar this is (" + jar + "): run it as java -jar "
                    + "gantry.jar cli install, or give --jar PATH");
            return 1;
        }
        String java = line.has("java") ? line.value("java")
                : ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String runs = "-jar " + quote(jarPath.toString());
        String srunRuns = runs;
        if (!line.has("no-cds")) {
            Path fast = fastStart(java, jarPath, prefix.resolve(".gantry-cli"));
            if (fast != null) {
                runs = "-XX:SharedArchiveFile=" + quote(fast.resolveSibling("cli.jsa").toString()) + " -jar "
                        + quote(fast.toString());
                Path srunArchive = fast.resolveSibling("srun.jsa");
                srunRuns = Files.isRegularFile(srunArchive)
                        ? "-XX:SharedArchiveFile=" + quote(srunArchive.toString()) + " -jar " + quote(fast.toString())
                        : runs;
            }
        }
        List<String> written = new ArrayList<>();
        try {
            Files.createDirectories(prefix);
            List<String> names = new ArrayList<>(Cli.COMMANDS);
            names.add("gantry");
            for (String name : names) {
                String sub = name.equals("gantry") ? "" : " " + name;
                String script = "#!/bin/sh\n# Written by 'java -jar gantry.jar cli install': Gantry's " + name + ".\n"
                        + "exec " + quote(java) + " " + JVM_OPTIONS + " " + (name.equals("srun") ? srunRuns : runs)
                        + sub + " \"$@\"\n";
                Path file = prefix.resolve(name);
                Files.writeString(file, script);
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
                written.add(name);
            }
        } catch (IOException e) {
            env.err().println("cli install: error: cannot write into " + prefix + ": " + e.getMessage());
            return 1;
        }
        env.out().println("Installed " + String.join(" ", written) + " into " + prefix);
        return 0;
    }

    /**
     * The jar extracted (classes load from plain jars instead of the nested ones of Spring Boot's
     * launcher) plus a class-data archive of a command's run (AppCDS): a command starts in about
     * half the time. Null, and the launchers run the jar itself, when either step fails.
     */
    private Path fastStart(String java, Path jar, Path dir) {
        try {
            Path app = dir.resolve("app");
            if (!run(List.of(java, "-Djarmode=tools", "-jar", jar.toString(), "extract", "--destination", app.toString(),
                    "--force"), Map.of())) {
                return null;
            }
            Path extracted = app.resolve(jar.getFileName().toString());
            Path archive = app.resolve("cli.jsa");
            Files.deleteIfExists(archive);
            // A squeue that finds no controller loads what every command loads: the HTTP client, JSON, the formats.
            List<String> record = new ArrayList<>(List.of(java, "-XX:ArchiveClassesAtExit=" + archive));
            record.addAll(List.of(JVM_OPTIONS.split(" ")));
            record.addAll(List.of("-jar", extracted.toString(), "squeue", "-h"));
            run(record, Map.of("GANTRY_URL", "http://127.0.0.1:1", "GANTRY_TOKEN", "none"));
            // srun loads more of its own (its options, the job and step requests, the output relay) and
            // lies on an interactive path: it gets an archive of its own run, used when it was made.
            Path srunArchive = app.resolve("srun.jsa");
            Files.deleteIfExists(srunArchive);
            List<String> srun = new ArrayList<>(List.of(java, "-XX:ArchiveClassesAtExit=" + srunArchive));
            srun.addAll(List.of(JVM_OPTIONS.split(" ")));
            srun.addAll(List.of("-jar", extracted.toString(), "srun", "-N1", "true"));
            run(srun, Map.of("GANTRY_URL", "http://127.0.0.1:1", "GANTRY_TOKEN", "none"));
            return Files.isRegularFile(extracted) && Files.isRegularFile(archive) ? extracted : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static boolean run(List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(environment);
        return builder.start().waitFor() == 0;
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
